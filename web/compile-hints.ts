// V8 compiles a script's functions lazily: each one on its first call, on the page's thread. Nearly all of the
// lesson's element and of the core's Emscripten glue run in the start (core loaded → ready), so in Chromium
// (136 and later) the start paid for compiling them there. A file that begins with the magic comment
// `//# allFunctionsCalledOnLoad` is compiled whole, eagerly, while it streams in, on a background thread:
// issue 19's phone profile starts about 20 ms sooner (docs/performance.md). Other engines read a comment.
//
// Put on the chunks the start runs: the one with the element (src/lesson/define.ts) and the core's glue, either
// build (src/wasm/qkv-simd.mjs, qkv.mjs); not on the scale section's, which runs later. The workers' build uses this
// plugin too (vite.config.ts), so that the glue it emits is the page's file, not a copy with another hash.
import type { Plugin } from 'vite';

const compileHint = '//# allFunctionsCalledOnLoad'; // a line of its own: postBanner adds the line break
const startModules = [/\/src\/lesson\/define\.ts$/, /\/src\/wasm\/qkv(-simd)?\.mjs$/];

export function compileHints(): Plugin {
  return {
    name: 'qkv-compile-hints',
    apply: 'build',
    // postBanner: after minification (which drops comments) and before the file's hash is taken.
    outputOptions(options) {
      const hinted = (chunk: { moduleIds: string[] }) => chunk.moduleIds.some((id) => startModules.some((module) => module.test(id)));
      // No banner is undefined: '' would still add an empty first line.
      return { ...options, postBanner: (chunk) => (hinted(chunk) ? compileHint : (undefined as unknown as string)) };
    },
  };
}
