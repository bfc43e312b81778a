// The scale section's Web Worker: the same WebAssembly core as the page (with SIMD where the engine has it),
// running the layer at a model's size off the page's thread. One job per message; the page terminates the
// worker to cancel a job.
import { importCoreModule } from './core';
import type { ScaleCore, ScaleResponse } from './scale';

export type ScaleJob = { id: number; preset: string };
export type ScaleReply = { id: number; response: ScaleResponse } | { id: number; failed: string };

const loading = importCoreModule()
  .then((create) => create())
  .then((module) => module as ScaleCore);

self.addEventListener('message', (event: MessageEvent<ScaleJob>) => {
  const { id, preset } = event.data;
  loading.then(
    (core) => self.postMessage({ id, response: core.scale({ preset }) } satisfies ScaleReply),
    (error: unknown) => self.postMessage({ id, failed: error instanceof Error ? error.message : String(error) } satisfies ScaleReply),
  );
});
