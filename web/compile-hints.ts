// V8 compiles a script's functions lazily: each one on its first call, on the page's thread. Nearly all of the
// lesson's element and of the core's Emscripten glue run in the start (core loaded → ready), so in Chromium
// (136 and later) the start paid for compiling them there. A file that begins with the magic comment
// `//# allFunctionsCalledOnLoad` is compiled whole, eagerly, while it streams in, on a background thread:
// issue 19's phone profile starts about 20 ms sooner (README, bench:phone). Other engines read a comment.
//
// Put on the chunks the start runs: the one with the element
// (src/lesson/define.ts) and the page's core glue, either build (src/wasm/qkv-simd.mjs, qkv.mjs). Not the
// workers' or the scale section's: they run later, off the start's path.
import type { Plugin } from 'vite';

export const compileHint = '//# allFunctionsCalledOnLoad\n';
const startModules = [/\/src\/lesson\/define\.ts$/, /\/src\/wasm\/qkv(-simd)?\.mjs$/];

export function compileHints(): Plugin {
  return {
    name: 'qkv-compile-hints',
    apply: 'build',
    // postBanner: after minification (which drops comments) and before the file's hash is taken.
    outputOptions(options) {
      const hinted = (chunk: { moduleIds: string[] }) => chunk.moduleIds.some((id) => startModules.some((module) => module.test(id)));
      return { ...options, postBanner: (chunk) => (hinted(chunk) ? compileHint.trimEnd() : (undefined as unknown as string)) };
    },
  };
}
