// The worker's side of worker-runner.ts: each message is one job; progress, the response (its Float64Arrays
// moved, not copied) or the failure goes back with the job's id. The page terminates the worker to cancel.
import { messageOf, type JobMessage, type JobReply } from './worker-runner';

// The Float64Arrays' buffers in a response, so that postMessage moves them instead of copying.
function buffers(value: unknown, out: Transferable[] = []): Transferable[] {
  if (value instanceof Float64Array) out.push(value.buffer);
  else if (Array.isArray(value)) for (const item of value) buffers(item, out);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) buffers(item, out);
  return out;
}

export function serveJobs<J>(handle: (job: J, onProgress: (tried: number) => void) => Promise<unknown>): void {
  self.addEventListener('message', (event: MessageEvent<JobMessage<J>>) => {
    const { id, job } = event.data;
    const reply = (message: JobReply, transfer: Transferable[] = []) => self.postMessage(message, { transfer });
    handle(job, (tried) => reply({ id, type: 'progress', tried })).then(
      (response) => reply({ id, type: 'done', response }, buffers(response)),
      (error: unknown) => reply({ id, type: 'failed', message: messageOf(error) }),
    );
  });
}
