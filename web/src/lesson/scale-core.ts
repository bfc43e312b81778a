// The scale section's WebAssembly module (qkv-scale.mjs: the core, the benchmark's pass and the scale call,
// nothing else), kept apart from the page's module so that a cold load of the lesson never downloads it. It
// is imported on first use: by the section's worker when a learner first runs a preset, or on the page's
// thread where workers are refused. With SIMD where the engine has it, as the page's module (simd.ts).
import { simdSupported } from './simd';
import type { ScaleCore } from './scale';

let loading: Promise<ScaleCore> | undefined;

export function loadScaleCore(): Promise<ScaleCore> {
  loading ??= (simdSupported() ? import('../wasm/qkv-scale-simd.mjs') : import('../wasm/qkv-scale.mjs'))
    .then((imported) => imported.default())
    .then((module) => module as ScaleCore);
  return loading;
}
