// Every formula of the page typeset by KaTeX at build time, once: its HTML and MathML by name (the page's
// `virtual:math`, vite.config.ts), and the characters they draw (the fonts' subsets, katex-font-subsets.ts).
import katex from 'katex';
import { formulas } from './src/math/formulas.ts';

let typeset: Record<string, string> | undefined;

export function typesetFormulas(): Record<string, string> {
  typeset ??= Object.fromEntries(
    Object.entries(formulas).map(([name, { tex, display }]) => [name, katex.renderToString(tex, { displayMode: display, output: 'htmlAndMathml', throwOnError: true })]),
  );
  return typeset;
}
