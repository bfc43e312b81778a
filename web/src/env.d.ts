/// <reference types="vite/client" />

declare module 'virtual:math' {
  const html: Record<import('./math/formulas').FormulaName, string>;
  export default html;
  export const css: string;
}

// Both builds of the core (web/src/wasm/qkv.mjs and qkv-simd.mjs) have the same factory.
declare module '*/wasm/qkv.mjs' {
  const createQkvModule: (options?: { wasmBinary?: ArrayBuffer; locateFile?: (path: string) => string }) => Promise<unknown>;
  export default createQkvModule;
}

declare module '*/wasm/qkv-simd.mjs' {
  const createQkvModule: (options?: { wasmBinary?: ArrayBuffer; locateFile?: (path: string) => string }) => Promise<unknown>;
  export default createQkvModule;
}

// The scale section's module (web/src/wasm/qkv-scale.mjs and qkv-scale-simd.mjs), fetched on first use.
declare module '*/wasm/qkv-scale.mjs' {
  const createQkvScaleModule: (options?: { wasmBinary?: ArrayBuffer; locateFile?: (path: string) => string }) => Promise<unknown>;
  export default createQkvScaleModule;
}

declare module '*/wasm/qkv-scale-simd.mjs' {
  const createQkvScaleModule: (options?: { wasmBinary?: ArrayBuffer; locateFile?: (path: string) => string }) => Promise<unknown>;
  export default createQkvScaleModule;
}
