// Loads the WebAssembly core once per page, however many <qkv-lesson> elements there are. Two builds of the
// same C++ exist, with the same bits: one with 128-bit SIMD (faster matmuls) and one without, for engines
// that lack SIMD. The engine is asked which it can compile, and only that module is downloaded.
import type { QkvCore } from './core-api';
import { guardCore } from './core-boundary';
import { simdSupported } from './simd';
import simdWasmUrl from '../wasm/qkv-simd.wasm?url';
import plainWasmUrl from '../wasm/qkv.wasm?url';

type ModuleFactory = (options?: EmscriptenModuleOptions) => Promise<unknown>;

const simd = simdSupported();
let importing: Promise<ModuleFactory> | undefined;
let compiling: Promise<WebAssembly.Module> | undefined;

// The Emscripten factory of the module this engine can run. Each import is its own chunk, so the other
// variant's script is never fetched (nor its .wasm: compileCoreWasm fetches the chosen one).
function importCoreModule(): Promise<ModuleFactory> {
  importing ??= (simd ? import('../wasm/qkv-simd.mjs') : import('../wasm/qkv.mjs')).then((imported) => imported.default);
  return importing;
}

// The chosen .wasm, fetched and compiled while its script (the chunk above) is still on its way: the two
// downloads overlap instead of following each other. Compiled as it streams in, which needs the
// application/wasm media type; from a host that serves another type, compiled from the whole bytes.
function compileCoreWasm(): Promise<WebAssembly.Module> {
  const url = simd ? simdWasmUrl : plainWasmUrl;
  compiling ??= fetch(url).then(async (response) => {
    if (!response.ok) throw new Error(`the lesson's engine (${url}) could not be fetched: HTTP ${response.status}`);
    const streamable = response.headers.get('Content-Type')?.split(';')[0].trim() === 'application/wasm';
    return streamable ? WebAssembly.compileStreaming(response) : WebAssembly.compile(await response.arrayBuffer());
  });
  return compiling;
}

// Both start as soon as this file runs, not when the first element asks for the core. (A failure reaches
// createCore's caller.)
importCoreModule().catch(() => undefined);
compileCoreWasm().catch(() => undefined);

// A new instance of the core (the page makes one; the self-score worker makes its own), every call through
// the boundary of core-boundary.ts (well-formed strings, fresh requests, the built-ins as they were at load).
export function createCore(): Promise<QkvCore> {
  return new Promise<QkvCore>((resolve, reject) => {
    importCoreModule()
      .then((create) =>
        create({
          instantiateWasm(imports, receive) {
            compileCoreWasm()
              .then((module) => WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module)))
              .catch(reject);
            return {}; // instantiated asynchronously
          },
        }),
      )
      .then((module) => resolve(guardCore(module as QkvCore)), reject);
  });
}

let loading: Promise<QkvCore> | undefined;

export function loadCore(): Promise<QkvCore> {
  loading ??= createCore();
  return loading;
}
