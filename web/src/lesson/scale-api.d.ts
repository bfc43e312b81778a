// What the scale section's WebAssembly module (qkv-scale.mjs, loaded by scale-core.ts) answers: beside the
// page's core types (core-api.d.ts), so that the section (scale.ts) and its loader both import them from here.
import type { ErrorView } from './core-api';

export interface ScaleRunView {
  shape: string;
  multiply_adds: string;
  seconds: string;
  gflops: string;
  runs: string;
}
export interface ScaleResponse {
  ok: boolean;
  preset: string;
  label: string;
  input_shape: string;
  weight_shape: string;
  output_shape: string;
  parameters: string;
  run: ScaleRunView;
  smaller: ScaleRunView;
  linear: string;
  summaries: { name: string; shape: string; mean: string; rms: string; min: string; max: string }[];
  error?: ErrorView;
}
export interface ScaleCore {
  scale(request: { preset: string }): ScaleResponse;
}
