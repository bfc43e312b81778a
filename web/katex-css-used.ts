// KaTeX's style sheet styles every construct KaTeX can typeset (18.6 kB, 3 kB gzipped), and the lesson ships
// it in its script for a dozen formulas typeset at build time (typeset-formulas.ts). Only the rules
// whose class names all occur in that markup can match anything (KaTeX's rules are scoped to its own
// classes, which nothing else in the lesson uses), so the rest is dropped here, after katexWithoutFontFaces:
// 2 kB of the cold load's gzipped bytes (issue 19, the 150 kB budget). Rules without a class are kept.
import type { Plugin } from 'vite';
import { typesetFormulas } from './typeset-formulas.ts';

// The top-level blocks of a style sheet ("a{…}", "@media …{…}"), nested braces kept whole.
function blocks(css: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < css.length; i++) {
    if (css[i] === '{') depth++;
    else if (css[i] === '}' && --depth === 0) {
      out.push(css.slice(start, i + 1));
      start = i + 1;
    }
  }
  return out;
}

export function usedKatexCss(css: string, classes: Set<string>): string {
  const used = (selectors: string) => selectors.split(',').some((selector) => [...selector.matchAll(/\.([\w-]+)/g)].every(([, name]) => classes.has(name)));
  return blocks(css)
    .map((block) => {
      const head = block.slice(0, block.indexOf('{'));
      if (!head.startsWith('@')) return used(head) ? block : '';
      const inner = block.slice(head.length + 1, -1);
      if (!inner.includes('{')) return block; // an at-rule of declarations (@page …): kept
      const kept = usedKatexCss(inner, classes);
      return kept ? `${head}{${kept}}` : '';
    })
    .join('');
}

export function katexCssUsed(): Plugin {
  const classes = new Set<string>();
  for (const html of Object.values(typesetFormulas())) {
    for (const [, names] of html.matchAll(/class="([^"]*)"/g)) for (const name of names.split(/\s+/)) if (name) classes.add(name);
  }
  return {
    name: 'qkv-katex-css-used',
    enforce: 'pre',
    transform(code, id) {
      if (!id.split('?')[0].endsWith('/katex/dist/katex.min.css')) return undefined;
      const out = usedKatexCss(code, classes);
      if (!out.includes('.katex{')) this.error('katex-css-used.ts kept no .katex rule: has katex.min.css changed form?');
      return { code: out, map: null };
    },
  };
}
