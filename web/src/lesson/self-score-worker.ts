// The self-score section's Web Worker: the same WebAssembly core as the page, running the calls that can
// take seconds (the experiment at up to 512 × 512, the seed searches) off the page's thread. One job at a
// time; the page terminates the worker to cancel one and starts a fresh worker for the next.
import { createCore } from './core';
import type { QkvCore, SeedSearchRequest, SeedSearchResponse, SelfScoreRequest, SelfScoreSummaryResponse } from './core-api';

export type WorkerJob = { id: number; job: 'summary'; request: SelfScoreRequest } | { id: number; job: 'search'; request: SeedSearchRequest };
export type WorkerReply =
  | { id: number; type: 'progress'; tried: number }
  | { id: number; type: 'summary'; response: SelfScoreSummaryResponse }
  | { id: number; type: 'search'; response: SeedSearchResponse }
  | { id: number; type: 'failed'; message: string };

// The same module as the page's: with SIMD where the engine has it (core.ts decides).
const loading: Promise<QkvCore> = createCore();
const reply = (message: WorkerReply, transfer: Transferable[] = []) => self.postMessage(message, { transfer });

// The Float64Arrays' buffers in a response, so that postMessage moves them instead of copying.
function buffers(value: unknown, out: Transferable[] = []): Transferable[] {
  if (value instanceof Float64Array) out.push(value.buffer);
  else if (Array.isArray(value)) for (const item of value) buffers(item, out);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) buffers(item, out);
  return out;
}

self.addEventListener('message', (event: MessageEvent<WorkerJob>) => {
  const message = event.data;
  loading.then(
    (core) => {
      if (message.job === 'summary') {
        const response = core.selfScoreSummary(message.request);
        reply({ id: message.id, type: 'summary', response }, buffers(response));
      } else {
        const response = core.findSeedWithProgress(message.request, (tried) => reply({ id: message.id, type: 'progress', tried }));
        reply({ id: message.id, type: 'search', response });
      }
    },
    (error: unknown) => reply({ id: message.id, type: 'failed', message: error instanceof Error ? error.message : String(error) }),
  );
});
