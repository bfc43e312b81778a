/// <reference types="vite/client" />

declare module 'virtual:math' {
  const html: Record<import('./math/formulas').FormulaName, string>;
  export default html;
  export const css: string;
}

declare module '*/wasm/qkv.mjs' {
  const createQkvModule: (options?: { wasmBinary?: ArrayBuffer; locateFile?: (path: string) => string }) => Promise<unknown>;
  export default createQkvModule;
}
