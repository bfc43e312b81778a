// Loads the WebAssembly core once per page, however many <qkv-lesson> elements there are. Two builds of the
// same C++ exist, with the same bits: one with 128-bit SIMD (faster matmuls) and one without, for engines
// that lack SIMD. The engine is asked which it can compile, and only that module is downloaded.
import type { QkvCore } from './core-api';

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
export function simdSupported(validate: (bytes: Uint8Array) => boolean = (bytes) => WebAssembly.validate(bytes)): boolean {
  try {
    return validate(simdProbe);
  } catch {
    return false;
  }
}

type ModuleFactory = () => Promise<unknown>;

let importing: Promise<ModuleFactory> | undefined;

// The Emscripten factory of the module this engine can run. Each import is its own chunk, and each module
// finds its own .wasm, so the other variant is never fetched.
export function importCoreModule(): Promise<ModuleFactory> {
  importing ??= (simdSupported() ? import('../wasm/qkv-simd.mjs') : import('../wasm/qkv.mjs')).then((imported) => imported.default);
  return importing;
}

// The chosen module's script is fetched as soon as this file runs, not when the first element asks for the
// core: the chunk would otherwise add a round trip before the .wasm request. (A failure reaches loadCore.)
importCoreModule().catch(() => undefined);

let loading: Promise<QkvCore> | undefined;

export function loadCore(): Promise<QkvCore> {
  loading ??= importCoreModule()
    .then((create) => create())
    .then((module) => module as QkvCore);
  return loading;
}
