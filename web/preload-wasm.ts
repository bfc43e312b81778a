// The built pages (index.html, embed.html) ask for the lesson's SIMD .wasm while the HTML is parsed, in
// parallel with the lesson's script, instead of after it: a <link rel="preload" as="fetch"> with the hashed
// name, before the page's scripts. The core's own request (src/lesson/core.ts: fetch(url), mode 'cors', credentials
// 'same-origin') is the same request, so the browser hands it the preloaded response and no engine warns of
// an unused preload. The SIMD build, because every current engine runs it; an engine without SIMD reads
// the file anyway (core.ts), paying one download for nothing, rather than every other engine waiting for the
// script before its .wasm starts. A course page loading qkv-lesson.js has none of our HTML: there core.ts
// starts the fetch as soon as the script is evaluated.
import { posix, relative } from 'node:path';
import type { Plugin } from 'vite';

const source = 'src/wasm/qkv-simd.wasm';

export function preloadWasm(): Plugin {
  let root = '';
  return {
    name: 'qkv-preload-wasm',
    apply: 'build',
    configResolved(config) {
      root = config.root;
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, { filename, bundle }) {
        if (!bundle) return html;
        const wasm = Object.values(bundle).find((file) => file.type === 'asset' && file.originalFileNames.some((name) => name.endsWith(source)));
        if (!wasm) throw new Error(`preload-wasm.ts: no ${source} in the build (the core no longer imports it?)`);
        const page = relative(root, filename).split('\\').join('/');
        const href = `./${posix.relative(posix.dirname(page), wasm.fileName)}`;
        // Before the first script or link of <head> (after the meta tags), so that it is asked for first.
        const link = `<link rel="preload" as="fetch" type="application/wasm" crossorigin href="${href}">`;
        const out = html.replace(/\n(\s*)(<script|<link)/, `\n$1${link}\n$1$2`);
        if (out === html) throw new Error(`preload-wasm.ts: ${page} has no <script> or <link> to put the preload before`);
        return out;
      },
    },
  };
}
