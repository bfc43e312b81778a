// Loads the WebAssembly core once per page, however many <qkv-lesson> elements there are. Two builds of the
// same C++ exist, with the same bits: one with 128-bit SIMD (faster matmuls) and one without, for engines
// that lack SIMD. The engine is asked which it can compile, and only that module is downloaded.
import type { QkvCore } from './core-api';
import { simdSupported } from './simd';

export { simdSupported };

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
