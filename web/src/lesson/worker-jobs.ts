// The worker's side of worker-runner.ts: the first message says what to load the engine from (the page's
// compiled module, or nothing: load it here); each later message is one job; progress, the response (its
// Float64Arrays moved, not copied) or the failure goes back with the job's id. The page terminates the worker
// to cancel. A worker whose engine (its module script or .wasm) could not load answers every job
// 'unavailable', not 'failed': the job was never tried, and the page runs it on its own thread instead.
import { EngineUnavailable, messageOf, type InitMessage, type JobMessage, type JobReply } from './worker-runner';

// The Float64Arrays' buffers in a response, so that postMessage moves them instead of copying.
function buffers(value: unknown, out: Transferable[] = []): Transferable[] {
  if (value instanceof Float64Array) out.push(value.buffer);
  else if (Array.isArray(value)) for (const item of value) buffers(item, out);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) buffers(item, out);
  return out;
}

// `load` makes the worker's engine from what the first message carries; `handle` does one job with it.
export function serveJobs<C, J>(load: (engine: unknown) => Promise<C>, handle: (core: C, job: J, onProgress: (tried: number) => void) => unknown): void {
  let loading: Promise<C> | undefined;
  self.addEventListener('message', (event: MessageEvent<InitMessage | JobMessage<J>>) => {
    if ('init' in event.data) {
      loading ??= load(event.data.engine);
      loading.catch(() => undefined); // a failure is told to the page with the first job, not as an unhandled rejection
      return;
    }
    const { id, job } = event.data;
    const reply = (message: JobReply, transfer: Transferable[] = []) => self.postMessage(message, { transfer });
    loading ??= load(undefined);
    loading.then(
      (core) =>
        new Promise((done) => done(handle(core, job, (tried) => reply({ id, type: 'progress', tried })))).then(
          (response) => reply({ id, type: 'done', response }, buffers(response)),
          (error: unknown) => reply({ id, type: 'failed', message: messageOf(error) }),
        ),
      (error: unknown) => reply({ id, type: 'unavailable', message: messageOf(error), network: error instanceof EngineUnavailable && error.network }),
    );
  });
}
