// The scale section's WebAssembly module (qkv-scale.mjs, loaded by scale-core.ts): its one call
// (cpp/wasm/scale_bindings.cpp), typed with the request and response types generated from the C++ field lists
// (core-types.d.ts), so that the section (scale-run.ts) and its loader both import them from here.
import type { Request } from './core-api';
import type { ScaleRequest, ScaleResponse } from './core-types';

export type { ScaleResponse } from './core-types';

export interface ScaleCore {
  scale(request: Request<ScaleRequest>): ScaleResponse; // preset left out: "lesson"
}
