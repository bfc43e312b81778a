// Runs the self-score section's long calls in a Web Worker (self-score-worker.ts) so the page's thread stays
// free: one job at a time, a new job or Cancel terminates the running one (a fresh worker takes the next).
// Browsers refuse workers from another origin, so when the lesson's script comes from another origin than the
// page (a course page loading qkv-lesson.js from the lesson's host), or a worker cannot start, the same calls
// run on the page's thread instead, after the busy message has been painted.
import type { QkvCore, SeedSearchRequest, SeedSearchResponse, SelfScoreRequest, SelfScoreSummaryResponse } from './core-api';
import type { WorkerJob, WorkerReply } from './self-score-worker';

// A job either finished with the core's response, or was stopped: by Cancel, by a newer job, or by a failure.
export type Outcome<T> = { done: true; response: T } | { done: false; reason: 'cancelled' | 'superseded' | 'failed'; message?: string };

export interface SelfScoreRunner {
  summary(request: SelfScoreRequest): Promise<Outcome<SelfScoreSummaryResponse>>;
  search(request: SeedSearchRequest, onProgress: (tried: number) => void): Promise<Outcome<SeedSearchResponse>>;
  cancel(): void;
}

type Job = { job: 'summary'; request: SelfScoreRequest } | { job: 'search'; request: SeedSearchRequest };
interface Running {
  id: number;
  job: Job;
  settle: (outcome: Outcome<unknown>) => void;
  onProgress?: (tried: number) => void;
}

export function createRunner(core: QkvCore): SelfScoreRunner {
  let useWorker = typeof Worker === 'function' && new URL(import.meta.url).origin === location.origin;
  let worker: Worker | undefined;
  let running: Running | undefined;
  let nextId = 0;

  const finish = (outcome: Outcome<unknown>) => {
    const job = running;
    running = undefined;
    job?.settle(outcome);
  };

  const inline = (job: Running) => {
    // A macrotask later, so that the busy message is on screen while the page's thread works.
    setTimeout(() => {
      if (running !== job) return;
      const response =
        job.job.job === 'summary'
          ? core.selfScoreSummary(job.job.request)
          : core.findSeedWithProgress(job.job.request, (tried) => job.onProgress?.(tried));
      if (running === job) finish({ done: true, response });
    }, 0);
  };

  const startWorker = (): Worker => {
    const fresh = new Worker(new URL('./self-score-worker.ts', import.meta.url), { type: 'module' });
    fresh.addEventListener('message', (event: MessageEvent<WorkerReply>) => {
      const reply = event.data;
      if (fresh !== worker || !running || reply.id !== running.id) return;
      if (reply.type === 'progress') running.onProgress?.(reply.tried);
      else if (reply.type === 'failed') finish({ done: false, reason: 'failed', message: reply.message });
      else finish({ done: true, response: reply.response });
    });
    // The worker's script or module could not load: run this job, and the next ones, on the page's thread.
    fresh.addEventListener('error', (event) => {
      event.preventDefault();
      if (fresh !== worker) return;
      fresh.terminate();
      worker = undefined;
      useWorker = false;
      if (running) inline(running);
    });
    return fresh;
  };

  const stop = (reason: 'cancelled' | 'superseded') => {
    if (!running) return;
    worker?.terminate();
    worker = undefined;
    finish({ done: false, reason });
  };

  const run = (job: Job, onProgress?: (tried: number) => void) =>
    new Promise<Outcome<unknown>>((settle) => {
      stop('superseded');
      const current: Running = { id: nextId++, job, settle, onProgress };
      running = current;
      if (!useWorker) return inline(current);
      worker ??= startWorker();
      const message: WorkerJob = { id: current.id, ...job };
      worker.postMessage(message);
    });

  return {
    summary: (request) => run({ job: 'summary', request }) as Promise<Outcome<SelfScoreSummaryResponse>>,
    search: (request, onProgress) => run({ job: 'search', request }, onProgress) as Promise<Outcome<SeedSearchResponse>>,
    cancel: () => stop('cancelled'),
  };
}
