// Registers the lesson's service worker (sw.js, web/pwa.ts) for the standalone page and embed.html, once the
// lesson has laid out, so that precaching never competes with the first load. Nothing where service workers
// cannot run (file://, an insecure origin, a sandboxed frame's opaque origin, where even reading
// navigator.serviceWorker throws): the lesson works as it does without one, and nothing reaches the console.
import { trustedWorkerScript } from './lesson/trusted-types';

// The build's hashed files (serve.mjs's hashedAsset pattern) of the kinds the worker precaches (web/pwa.ts).
const precachedAsset = /\/assets\/[^/]+-[\w-]{8}\.(js|css|wasm|woff2)$/;

// True when the page was served under an active worker (so its install had precached the build) but a hashed
// file the page loaded is in no cache: the learner deleted the site's caches, and the worker is still registered.
async function precacheLost(): Promise<boolean> {
  if (!navigator.serviceWorker.controller) return false; // a first visit: the worker is installing now
  const loaded = performance.getEntriesByType('resource').map((entry) => entry.name);
  const assets = loaded.filter((url) => url.startsWith(location.origin) && precachedAsset.test(new URL(url).pathname));
  for (const url of assets) if (!(await caches.match(url))) return true;
  return false;
}

// The worker's script URL to register. A worker installs only when its script changes, so a precache deleted under
// it would stay empty for this build: then the worker is registered under its other URL (sw.js and
// sw.js?precache=rebuild are the same file), which installs a fresh copy whose install precaches the whole build
// again (Workbox). Otherwise the newest worker's own URL, which the browser does not fetch again before its update
// check (so an offline load says nothing on the console); a new build reaches either URL as an update.
// "Other" is told from the registration's newest worker, not from the controller: a worker that has installed but
// not yet taken over (the browser lets the old one finish its work first) is what register() compares with, and
// registering its own URL again would install nothing.
async function workerScript(lost: boolean): Promise<string> {
  const rebuildUrl = './sw.js?precache=rebuild';
  const registration = await navigator.serviceWorker.getRegistration('./');
  const newest = registration?.installing ?? registration?.waiting ?? registration?.active;
  const newestIsRebuild = newest?.scriptURL.endsWith('?precache=rebuild') ?? false;
  const [current, other] = newestIsRebuild ? [rebuildUrl, './sw.js'] : ['./sw.js', rebuildUrl];
  return lost ? other : current;
}

export function registerOffline(lesson: Element): void {
  const register = () => {
    try {
      if (!isSecureContext || self.origin === 'null' || !/^https?:$/.test(location.protocol) || !('serviceWorker' in navigator)) return;
      precacheLost()
        .catch(() => false)
        .then(workerScript)
        .then((script) => navigator.serviceWorker.register(trustedWorkerScript(script), { scope: './' }))
        .catch(() => undefined);
    } catch {
      // no service worker here (see above)
    }
  };
  if ((lesson as HTMLElement).dataset.laidOut !== undefined) register();
  else lesson.addEventListener('qkv-lesson-laid-out', register, { once: true });
}
