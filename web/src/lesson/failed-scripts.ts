// The scripts the lesson loads later, as a worker (the self-score and scale workers) or by import() (the scale
// section's code), are hashed files the browser keeps a year, and no integrity covers them (docs/downloads.md). A
// copy cut short on the way is kept as if whole, so it would fail on every load. A script that failed is noted for
// this tab (sessionStorage); on a later load, before the lesson first starts a worker or imports that code, every
// script this build noted on an earlier load is asked for once past the HTTP cache (`cache: 'reload'` replaces the
// cached copy), the request awaited before the worker or import starts. Nothing is fetched on the load that failed:
// a request left in flight would be cut off by a navigation (a reload onto a new build); and a script that keeps
// failing (a 404, a refused worker) costs one request per load, not a loop.
const key = 'qkv-lesson-failed-scripts';
// This build's: the hashed module holding this file names every later script of the build, so its URL tells a
// note of this build from one a page of an older build left in the tab (whose files the server may no longer have).
const build = import.meta.url;

type Note = { url: string; build: string };

function storage(): Storage | null {
  try {
    return window.sessionStorage; // throws in an opaque-origin frame: nothing is noted there
  } catch {
    return null;
  }
}

function notes(): Note[] {
  try {
    const parsed: unknown = JSON.parse(storage()?.getItem(key) ?? '[]');
    return Array.isArray(parsed) ? (parsed as Note[]) : [];
  } catch {
    return [];
  }
}

function keep(list: Note[]): void {
  try {
    if (list.length > 0) storage()?.setItem(key, JSON.stringify(list));
    else storage()?.removeItem(key);
  } catch {
    // Storage full or refused: the failure is not noted, and the section works as it did on this load.
  }
}

// Noted by this document: a fresh copy would not help it (a runner whose worker failed computes on the page's thread
// for the rest of this load; a chunk that did not parse stays failed here), so only a later load asks for them.
const notedHere = new Set<string>();

export function noteFailedScripts(urls: string[]): void {
  const list = notes();
  for (const url of urls) if (!list.some((note) => note.url === url)) list.push({ url, build });
  for (const url of urls) notedHere.add(url);
  keep(list);
}

let mending: Promise<void> | undefined;

// Asks the server for every script this build noted as failed on an earlier load, past the cache, and forgets those
// notes (an older build's too); undefined when there is nothing to ask for. A worker or an import waits for it.
export function mendFailedScripts(): Promise<void> | undefined {
  if (mending) return mending;
  const list = notes();
  const earlier = list.filter((note) => !notedHere.has(note.url));
  if (earlier.length === 0) return undefined;
  keep(list.filter((note) => notedHere.has(note.url)));
  const ours = earlier.filter((note) => note.build === build);
  if (ours.length === 0) return undefined;
  mending = askAgainPastTheCache(ours.map((note) => note.url)).then(() => {
    mending = undefined;
  });
  return mending;
}

// Each script read whole from the server past the HTTP cache (`cache: 'reload'` replaces the cached copy); settles
// when every answer is in, whatever it was.
export async function askAgainPastTheCache(urls: string[]): Promise<void> {
  const whole = (url: string) => fetch(url, { cache: 'reload' }).then((response) => response.arrayBuffer());
  await Promise.allSettled(urls.map(whole));
}

// Which script each of the lesson's workers runs (trusted-types.ts records it as the worker starts), for the
// runner to note when the worker's script could not load (worker-runner.ts).
const workerScripts = new WeakMap<Worker, string>();

export function recordWorkerScript(worker: Worker, url: string): void {
  workerScripts.set(worker, url);
}

export function noteFailedWorker(worker: Worker): void {
  const url = workerScripts.get(worker);
  if (url) noteFailedScripts([url]);
}

// The scripts the page loaded since `since` (performance.now()): what an import() started then fetched. The browser
// says no more of a module that failed to parse (a SyntaxError names no file), and the bundler's file names are its own.
export function scriptsLoadedSince(since: number): string[] {
  return performance
    .getEntriesByType('resource')
    .filter((entry) => entry.startTime >= since && (entry as PerformanceResourceTiming).initiatorType === 'script')
    .map((entry) => entry.name);
}

// An import() of a later script (`load`), after any script that failed on an earlier load of this tab has been asked
// for past the cache; a script it fetched that arrived damaged (it does not parse: a SyntaxError) stays failed in this
// document, so it is noted for the next load to ask for past the cache.
export async function importMended<T>(load: () => Promise<T>): Promise<T> {
  await mendFailedScripts();
  const since = performance.now();
  try {
    return await load();
  } catch (error) {
    if (error instanceof SyntaxError) noteFailedScripts(scriptsLoadedSince(since));
    throw error;
  }
}

// The script a failed import() names: Chromium and Firefox end the TypeError's message with the module's URL
// ("Failed to fetch dynamically imported module: <url>", "error loading dynamically imported module: <url>");
// WebKitGTK names none. Undefined when the message ends in no script's URL (a webpack ChunkLoadError is no
// TypeError: its chunk is a classic script, not a module to import).
export function scriptNamedBy(error: unknown): URL | undefined {
  if (!(error instanceof TypeError)) return undefined;
  const last = error.message.trim().split(/\s+/).pop() ?? '';
  try {
    const url = new URL(last);
    return /^https?:$/.test(url.protocol) && /\.m?js$/.test(url.pathname) ? url : undefined;
  } catch {
    return undefined; // not a URL
  }
}
