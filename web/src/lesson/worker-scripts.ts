// Which script each worker the lesson started runs (trusted-types.ts records it as the worker starts), so that a
// worker whose script could not load can ask for that script again past the HTTP cache (worker-runner.ts): a copy
// cut short on the way is kept by the browser as if whole, for a year, as a hashed asset is.
const scripts = new WeakMap<Worker, string>();

export function recordWorkerScript(worker: Worker, url: string): void {
  scripts.set(worker, url);
}

// Replaces the browser's cached copy of the worker's script with the server's (`cache: 'reload'`), so that the
// next page that starts it gets whole bytes. Nothing is said if that fails too: the section runs on the page's thread.
export function refetchWorkerScript(worker: Worker): void {
  const url = scripts.get(worker);
  if (url) fetch(url, { cache: 'reload' }).then((response) => response.arrayBuffer(), () => undefined).catch(() => undefined);
}
