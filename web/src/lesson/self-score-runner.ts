// The self-score section's long calls (the experiment at up to 512 × 512, the seed searches), run by
// worker-runner.ts in self-score-worker.ts, or on the page's thread where a worker cannot start; one job at
// a time, Cancel stops it.
import { compiledCore } from './core';
import type { QkvCore, Request, SeedSearchRequest, SeedSearchResponse, SelfScoreRequest, SelfScoreSummaryResponse } from './core-api';
import { runSelfScoreJob, type SelfScoreJob } from './self-score-jobs';
import { startWorkerViaPolicy } from './trusted-types';
import { createRunner, type Outcome } from './worker-runner';

export interface SelfScoreRunner {
  summary(request: SelfScoreRequest): Promise<Outcome<SelfScoreSummaryResponse<Float64Array>>>;
  search(request: Request<SeedSearchRequest>, onProgress: (tried: number) => void): Promise<Outcome<SeedSearchResponse>>;
  cancel(): void;
  ranIn(): 'worker' | 'page' | undefined;
  release(): void; // the element left the page: no worker stays behind
}

export function createSelfScoreRunner(core: QkvCore): SelfScoreRunner {
  const runner = createRunner<SelfScoreJob, SelfScoreSummaryResponse<Float64Array> | SeedSearchResponse>(
    () => startWorkerViaPolicy(() => new Worker(new URL('./self-score-worker.ts', import.meta.url), { type: 'module' })),
    (job, onProgress) => Promise.resolve(runSelfScoreJob(core, job, onProgress)),
    { engine: compiledCore }, // the page's compiled module: the worker does not download the .wasm again
  );
  return {
    summary: (request) => runner.run({ kind: 'summary', request }) as Promise<Outcome<SelfScoreSummaryResponse<Float64Array>>>,
    search: (request, onProgress) => runner.run({ kind: 'search', request }, onProgress) as Promise<Outcome<SeedSearchResponse>>,
    cancel: () => runner.cancel(),
    ranIn: () => runner.ranIn(),
    release: () => runner.release(),
  };
}
