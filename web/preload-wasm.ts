// The built pages (index.html, embed.html) ask for the lesson's SIMD .wasm while the HTML is parsed, in
// parallel with the lesson's script, instead of after it: a <link rel="preload" as="fetch"> with the hashed
// name, before the page's scripts. The core's own request (src/lesson/core.ts: fetch(url), mode 'cors', credentials
// 'same-origin') is the same request, so the browser hands it the preloaded response and no engine warns of
// an unused preload. The SIMD build, because every current engine runs it; an engine without SIMD reads
// the file anyway (core.ts), paying one download for nothing, rather than every other engine waiting for the
// script before its .wasm starts. A course page loading qkv-lesson.js has none of our HTML: there core.ts
// starts the fetch as soon as the script is evaluated.
// The SIMD build's Emscripten script (the glue) is preloaded the same way, as a module: the element's chunk imports it
// only once it has run, and waiting for that put one more request after the chunk's (50–100 ms on a laptop before
// the start could begin). page-integrity.ts gives the preload its integrity, as it does the other module preloads.
import { posix, relative } from 'node:path';
import type { Plugin } from 'vite';

const source = 'src/wasm/qkv-simd.wasm';
const glueSource = 'src/wasm/qkv-simd.mjs';

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
        const glue = Object.values(bundle).find((file) => file.type === 'chunk' && file.facadeModuleId?.endsWith(glueSource));
        if (!glue) throw new Error(`preload-wasm.ts: no ${glueSource} chunk in the build (the core no longer imports it?)`);
        const page = relative(root, filename).split('\\').join('/');
        const href = (file: { fileName: string }) => `./${posix.relative(posix.dirname(page), file.fileName)}`;
        // Before the first script or link of <head> (after the meta tags), so that they are asked for first.
        const links = [
          `<link rel="preload" as="fetch" type="application/wasm" crossorigin href="${href(wasm)}">`,
          `<link rel="modulepreload" crossorigin href="${href(glue)}">`,
        ];
        const out = html.replace(/\n(\s*)(<script|<link)/, (_, indent: string, tag: string) => `\n${links.map((link) => indent + link + '\n').join('')}${indent}${tag}`);
        if (out === html) throw new Error(`preload-wasm.ts: ${page} has no <script> or <link> to put the preload before`);
        return out;
      },
    },
  };
}
