// The lesson's static build: relative URLs (works from any sub-path and offline), math typeset at build
// time by KaTeX, and the WASM module emitted beside the scripts.
import { resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import { compileHints } from './compile-hints.ts';
import { offline } from './pwa.ts';
import { prerenderedOpening } from './prerender/opening-html.ts';
import { preloadWasm } from './preload-wasm.ts';
import { pageIntegrity } from './page-integrity.ts';
import { wasmIntegrity } from './wasm-integrity.ts';
import { katexCssUsed } from './katex-css-used.ts';
import { katexFontSubsets } from './katex-font-subsets.ts';
import { withLessonFontFamilies } from './src/lesson/font-families.ts';
import { typesetFormulas } from './typeset-formulas.ts';
import { thirdPartyNotices } from './third-party-notices.ts';

// KaTeX positions glyphs with inline style attributes, which a Content-Security-Policy without
// 'unsafe-inline' blocks. Each distinct style becomes a data-ks attribute and one rule in a style sheet.
function withoutInlineStyles(html: Record<string, string>): { html: Record<string, string>; css: string } {
  const ids = new Map<string, number>();
  const rewritten = Object.fromEntries(
    Object.entries(html).map(([name, markup]) => [
      name,
      markup.replace(/ style="([^"]*)"/g, (_, style: string) => {
        if (!ids.has(style)) ids.set(style, ids.size);
        return ` data-ks="${ids.get(style)}"`;
      }),
    ]),
  );
  const css = [...ids].map(([style, id]) => `[data-ks="${id}"]{${style}}`).join('\n');
  return { html: rewritten, css };
}

// `import math, { css } from 'virtual:math'` gives { name: html } with KaTeX's HTML and MathML for every
// formula, and the CSS that replaces KaTeX's inline styles.
function prerenderedMath(): Plugin {
  const id = 'virtual:math';
  return {
    name: 'qkv-prerendered-math',
    resolveId: (source) => (source === id ? `\0${id}` : undefined),
    load(source) {
      if (source !== `\0${id}`) return undefined;
      const { html: markup, css } = withoutInlineStyles(typesetFormulas());
      return `export default ${JSON.stringify(markup)};\nexport const css = ${JSON.stringify(css)};`;
    },
  };
}

// KaTeX's style sheet names each of its fonts three times (woff2, woff, ttf), and Vite emits every file a url()
// names, though the lesson registers only the woff2 files, on the document (fonts.ts: @font-face rules in a
// shadow root are ignored). Its @font-face rules are dropped here, before Vite reads the url()s, so that
// the build ships only the woff2 files (tests/node/dist-fonts.test.mjs). The families its rules name are the
// lesson's names for KaTeX's fonts, under which fonts.ts registers them (src/lesson/font-families.ts).
function katexWithoutFontFaces(): Plugin {
  return {
    name: 'qkv-katex-without-font-faces',
    enforce: 'pre',
    transform(code, id) {
      if (!id.split('?')[0].endsWith('/katex/dist/katex.min.css')) return undefined;
      const withoutFaces = code.replace(/@font-face\{[^{}]*\}/g, '');
      if (withoutFaces === code || /url\(/.test(withoutFaces)) this.error(`katex.min.css no longer has the @font-face rules this plugin removes (vite.config.ts)`);
      const out = withLessonFontFamilies(withoutFaces);
      if (out === withoutFaces) this.error('katex.min.css names none of the KaTeX_ font families this plugin renames (vite.config.ts)');
      return { code: out, map: null };
    },
  };
}

// THIRD_PARTY_NOTICES.md from the module graph of the build and of its workers (the notices follow the service
// worker's plugins: they read sw.js).
const notices = thirdPartyNotices();

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  plugins: [
    katexWithoutFontFaces(),
    katexCssUsed(),
    katexFontSubsets(),
    prerenderedMath(),
    // The opening in index.html and embed.html, made by the lesson's modules with what they need to load.
    prerenderedOpening(() => [katexWithoutFontFaces(), katexCssUsed(), prerenderedMath()]),
    offline(),
    preloadWasm(),
    pageIntegrity(),
    wasmIntegrity(),
    compileHints(),
    notices.plugin,
  ],
  // The self-score worker is a module worker: it imports the Emscripten ES module, which finds its .wasm
  // through import.meta.url (the default 'iife' format has no import.meta).
  // compileHints in the workers' build too: the worker imports the same glue file as the page (one download).
  worker: { format: 'es', plugins: () => [wasmIntegrity(), compileHints(), notices.workerPlugin()] },
  build: {
    outDir: resolve(import.meta.dirname, '../dist'),
    emptyOutDir: true,
    target: 'es2022',
    // Never inline assets as data: URLs (a strict font-src/img-src would refuse them).
    assetsInlineLimit: 0,
    rollupOptions: {
      // The bundler's note that a plugin took seconds (the prerender runs the core) is about the build machine, not
      // the lesson; on a busy machine it filled `npm start`'s output with a warning a newcomer cannot act on.
      checks: { bundlerTimings: false },
      // index.html: the standalone page; embed.html: the iframe page; qkv-lesson: the element for course
      // pages, at a stable URL (dist/qkv-lesson.js) with the WASM and fonts beside it in assets/.
      input: {
        index: resolve(import.meta.dirname, 'index.html'),
        embed: resolve(import.meta.dirname, 'embed.html'),
        'qkv-lesson': resolve(import.meta.dirname, 'src/lesson/define.ts'),
      },
      output: {
        entryFileNames: (chunk) => (chunk.name === 'qkv-lesson' ? 'qkv-lesson.js' : 'assets/[name]-[hash].js'),
      },
      preserveEntrySignatures: 'exports-only',
    },
  },
});
