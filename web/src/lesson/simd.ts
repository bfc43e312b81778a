// Whether this engine runs WebAssembly SIMD, asked without compiling anything: both the page's module
// (core.ts) and the scale section's (scale-core.ts) come in a SIMD and a plain build, and only the one the
// engine can run is downloaded. Its own file, so that a worker can ask without importing the page's module.

// The smallest module that uses SIMD: one function () -> v128 { i8x16.popcnt(i8x16.splat(i32.const 0)) }
// (the probe of the wasm-feature-detect library). Validating it compiles nothing and runs nothing, so the
// page's Content-Security-Policy ('wasm-unsafe-eval', no 'unsafe-eval') allows it.
const simdProbe = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // "\0asm", version 1
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, // type section: () -> v128
  0x03, 0x02, 0x01, 0x00, // function section: one function of type 0
  0x0a, 0x0a, 0x01, 0x08, 0x00, 0x41, 0x00, 0xfd, 0x0f, 0xfd, 0x62, 0x0b, // code: i32.const 0, i8x16.splat, i8x16.popcnt, end
]);

// Whether this engine runs WebAssembly SIMD (every current browser does; some older Safari and embedded
// engines do not).
export function simdSupported(): boolean {
  try {
    return WebAssembly.validate(simdProbe);
  } catch {
    return false;
  }
}
