// The scale section's Web Worker: the section's own WebAssembly module (scale-core.ts; with SIMD where the
// engine has it), running the layer at a model's size off the page's thread. One job per message; the page
// terminates the worker to cancel a job.
import { loadScaleCore } from './scale-core';
import type { ScaleResponse } from './scale';

export type ScaleJob = { id: number; preset: string };
export type ScaleReply = { id: number; response: ScaleResponse } | { id: number; failed: string };

const loading = loadScaleCore();

self.addEventListener('message', (event: MessageEvent<ScaleJob>) => {
  const { id, preset } = event.data;
  loading.then(
    (core) => self.postMessage({ id, response: core.scale({ preset }) } satisfies ScaleReply),
    (error: unknown) => self.postMessage({ id, failed: error instanceof Error ? error.message : String(error) } satisfies ScaleReply),
  );
});
