// Runs a section's long core calls in a Web Worker so the page's thread stays free: one job at a time; a new
// job or Cancel terminates a running one (a fresh worker takes the next), an idle worker is reused (its
// module is fetched and compiled once). Browsers refuse a worker whose script is of another origin than the
// page, and the lesson asks for none (trusted-types.ts throws first: a course page loading qkv-lesson.js from
// the lesson's host), so then, or when a worker cannot start, the same calls run on the page's thread instead,
// after the busy message has been painted; the worker is not tried again. A worker that starts but cannot load
// its engine (its module script or .wasm) is handled per section: the self-score section runs the job on the page's thread
// with the page's core (already loaded); the scale section, whose engine the page does not have, reports
// 'unavailable' and offers to try again in a fresh worker. worker-jobs.ts is the worker's side.

// A job either finished with the core's response, or was stopped: by Cancel, by a newer job, by a failure, or
// because its engine could not load ('unavailable'; `reloadNeeded`: only a reload of the page can load it
// again, as a module script that failed to import stays failed in that document).
import { mendFailedScripts, noteFailedWorker } from './failed-scripts';
export type Outcome<T> =
  | { done: true; response: T }
  | { done: false; reason: 'cancelled' | 'superseded' | 'failed' | 'unavailable'; message?: string; reloadNeeded?: boolean; network?: boolean };

// Thrown by a section's engine loader (scale-core.ts) when the engine cannot load; the runner reports it as
// the outcome 'unavailable' rather than 'failed'. `network`: a download failed (offline, say).
export class EngineUnavailable extends Error {
  constructor(
    message: string,
    readonly reloadNeeded = false,
    readonly network = false,
  ) {
    super(message);
  }
}

// What the page sends a worker: first what it loads its engine from (`engine`: the page's compiled module, or
// undefined: the worker fetches its own), then jobs; and what the worker answers for each job.
export type InitMessage = { init: true; engine: unknown };
export type JobMessage<J> = { id: number; job: J };
// 'unavailable': the worker's engine could not load, so the job was not tried (worker-jobs.ts).
export type JobReply =
  | { id: number; type: 'progress'; tried: number }
  | { id: number; type: 'done'; response: unknown }
  | { id: number; type: 'failed'; message: string }
  | { id: number; type: 'unavailable'; message: string; network?: boolean };

export interface Runner<J, R> {
  run(job: J, onProgress?: (tried: number) => void): Promise<Outcome<R>>;
  cancel(): void;
  // Where the latest job ran: in the worker, or on the page's thread (no worker could start). The sections
  // show it as data-ran-in, a fact the tests check instead of timing the page's thread.
  ranIn(): 'worker' | 'page' | undefined;
  // The element left the page: a running job is cancelled and the worker, idle or not, is terminated with
  // its WebAssembly instance. A later job starts a fresh worker (an element moved in the page reconnects).
  release(): void;
}

export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

// `startWorker` makes the section's worker (written at the caller, so that the bundler sees its URL);
// `inline` does the same job on the page's thread. `pageHasEngine`: a worker whose engine cannot load hands
// its jobs to the page's thread (true), or they end 'unavailable' and the next job starts a fresh worker.
// `engine`: what a fresh worker gets in its first message to load its engine from (the page's compiled
// WebAssembly.Module, so that the .wasm is downloaded and compiled once per page).
export function createRunner<J, R>(
  startWorker: () => Worker,
  inline: (job: J, onProgress: (tried: number) => void) => Promise<R>,
  { pageHasEngine = true, engine = (): unknown => undefined } = {},
): Runner<J, R> {
  type Running = { id: number; job: J; settle: (outcome: Outcome<R>) => void; onProgress?: (tried: number) => void };
  // Not decided from import.meta.url: webpack replaces it with the source file's file: URL.
  let useWorker = typeof Worker === 'function';
  let worker: Worker | undefined;
  let running: Running | undefined;
  let nextId = 0;
  let ranIn: 'worker' | 'page' | undefined;

  const finish = (outcome: Outcome<R>) => {
    const job = running;
    running = undefined;
    job?.settle(outcome);
  };

  // A macrotask later, so that the busy message is on screen while the page's thread works.
  const runInline = (job: Running) =>
    setTimeout(() => {
      if (running !== job) return;
      ranIn = 'page';
      inline(job.job, (tried) => job.onProgress?.(tried)).then(
        (response) => running === job && finish({ done: true, response }),
        (error: unknown) =>
          running === job &&
          finish(
            error instanceof EngineUnavailable
              ? { done: false, reason: 'unavailable', message: error.message, reloadNeeded: error.reloadNeeded, network: error.network }
              : { done: false, reason: 'failed', message: messageOf(error) },
          ),
      );
    }, 0);

  // The worker could not start (or could not load its engine, and the page has one): this job, and the next
  // ones, run on the page's thread.
  const fallBack = (failed: Worker) => {
    failed.terminate();
    if (failed !== worker) return;
    worker = undefined;
    useWorker = false;
    if (running) runInline(running);
  };

  const start = (): Worker => {
    const fresh = startWorker();
    fresh.addEventListener('message', (event: MessageEvent<JobReply>) => {
      const reply = event.data;
      if (fresh !== worker || !running || reply.id !== running.id) return;
      if (reply.type === 'progress') running.onProgress?.(reply.tried);
      else if (reply.type === 'unavailable' && pageHasEngine) fallBack(fresh);
      else if (reply.type === 'unavailable') {
        fresh.terminate(); // the next job starts a fresh worker, which loads the engine anew
        worker = undefined;
        finish({ done: false, reason: 'unavailable', message: reply.message, network: reply.network });
      }
      else if (reply.type === 'failed') finish({ done: false, reason: 'failed', message: reply.message });
      else finish({ done: true, response: reply.response as R });
    });
    // The worker's script could not load (perhaps a damaged copy in the HTTP cache: noted, so that the next load
    // asks for it past the cache before its worker starts).
    fresh.addEventListener('error', (event) => {
      event.preventDefault();
      noteFailedWorker(fresh);
      fallBack(fresh);
    });
    const init = engine();
    try {
      fresh.postMessage({ init: true, engine: init } satisfies InitMessage);
    } catch {
      // A module this engine cannot post (DataCloneError): the worker fetches and compiles its own.
      fresh.postMessage({ init: true, engine: undefined } satisfies InitMessage);
    }
    return fresh;
  };

  const stop = (reason: 'cancelled' | 'superseded') => {
    if (!running) return;
    worker?.terminate();
    worker = undefined;
    finish({ done: false, reason });
  };
  // Sends the job to the worker, starting one if none is running, or runs it on the page's thread.
  const dispatch = (current: Running) => {
    if (useWorker && !worker) {
      try {
        worker = start();
      } catch {
        // Refused at once: a script of another origin than the page's (trusted-types.ts), or a document of an
        // opaque origin (a sandboxed iframe without allow-same-origin), which may start no worker at all.
        useWorker = false;
      }
    }
    if (!useWorker || !worker) return void runInline(current);
    ranIn = 'worker';
    worker.postMessage({ id: current.id, job: current.job } satisfies JobMessage<J>);
  };

  return {
    run: (job, onProgress) =>
      new Promise<Outcome<R>>((settle) => {
        stop('superseded');
        const current: Running = { id: nextId++, job, settle, onProgress };
        running = current;
        // A worker's script that failed on an earlier load of this tab is asked for past the cache first.
        const mending = useWorker && !worker && mendFailedScripts();
        void (mending ? mending.then(() => running === current && dispatch(current)) : dispatch(current));
      }),
    cancel: () => stop('cancelled'),
    ranIn: () => ranIn,
    release: () => {
      stop('cancelled');
      worker?.terminate();
      worker = undefined;
    },
  };
}
