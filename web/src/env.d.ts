/// <reference types="vite/client" />

declare module 'virtual:math' {
  const html: Record<import('./math/formulas').FormulaName, string>;
  export default html;
  export const css: string;
}

// What the Emscripten factories take. instantiateWasm: a module compiled elsewhere (core.ts fetches and
// compiles the page's .wasm while its script loads); Emscripten hands over the imports and takes the instance.
interface EmscriptenModuleOptions {
  instantiateWasm?: (imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) => object;
}

// Every module built from cpp/ (web/src/wasm/*.mjs: the page's core and the scale section's, each with and
// without SIMD) exports one such factory; the only .mjs files web/src imports are these.
declare module '*.mjs' {
  const createModule: (options?: EmscriptenModuleOptions) => Promise<unknown>;
  export default createModule;
}

// A .wasm's byte length and SHA-256 (hex) as the build ships it (web/wasm-integrity.ts).
declare module '*.wasm?integrity' {
  const expected: { size: number; sha256: string };
  export default expected;
}
