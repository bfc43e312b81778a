// The lesson's service worker, built into sw.js by web/pwa.ts (vite-plugin-pwa's injectManifest, which writes the
// build's file list into self.__WB_MANIFEST). Workbox precaches the build at install, serves it cache first with
// every query string ignored, and replaces it when a new build's sw.js installs (skipWaiting, clientsClaim, the old
// build's entries deleted at activation).
//
// A precache deleted under this worker (the learner cleared the site's caches, or a cleaning extension did, while the
// worker stayed registered) is repaired by this worker itself, when a page asks (src/offline.ts, once the lesson has
// laid out): Workbox fetches only at install, so the lesson would otherwise never work offline again for this build.
// The repair is not left to a second worker: a worker that installs beside an active one waits until the browser
// hands over, which Chromium does once the active worker has no work left, or else after five minutes, and with
// DevTools attached the five minutes can be what it waits (docs/offline.md). Meanwhile a request the precache lacks
// goes to the network at once.
import { clientsClaim } from 'workbox-core';
import { cleanupOutdatedCaches, PrecacheController, PrecacheRoute, type PrecacheEntry } from 'workbox-precaching';
import { registerRoute } from 'workbox-routing';
import { repairPrecacheMessage, type PrecacheRepaired } from './offline-messages';

// The parts of a service worker's global scope used here (tsconfig's libraries are the page's, not a worker's).
interface RepairRequest {
  data: unknown;
  ports: readonly MessagePort[];
  waitUntil(promise: Promise<unknown>): void;
}
declare const self: {
  __WB_MANIFEST: PrecacheEntry[];
  skipWaiting(): Promise<void>;
  addEventListener(type: 'message', listener: (event: RepairRequest) => void): void;
};

const precache = new PrecacheController({ fallbackToNetwork: true });
self.skipWaiting();
clientsClaim();
cleanupOutdatedCaches();
precache.precache(self.__WB_MANIFEST);
// A lesson's state travels in the query (index.html?b=…, embed.html?seed=…): every query string is the same page.
// No navigation fallback: a path the build has no file for is the server's to answer.
registerRoute(new PrecacheRoute(precache, { ignoreURLParametersMatching: [/./] }));

// Fetches and stores every entry of this build that the precache lacks. Returns how many it stored and how many are
// still missing (the network failed for them: the next page that asks tries again). 'no-cache': whatever the HTTP
// cache holds is revalidated with the server first (a 304 when it is current), so a page is never stored stale.
async function repairPrecache(): Promise<Omit<PrecacheRepaired, 'type'>> {
  const cache = await caches.open(precache.strategy.cacheName);
  let repaired = 0;
  let missing = 0;
  for (const [url, cacheKey] of precache.getURLsToCacheKeys()) {
    if (await cache.match(cacheKey)) continue;
    try {
      const response = await fetch(url, { credentials: 'same-origin', cache: 'no-cache' });
      if (response.status !== 200 || response.redirected) throw new Error(`${url}: HTTP ${response.status}`);
      await cache.put(cacheKey, response);
      repaired++;
    } catch {
      missing++;
    }
  }
  return { repaired, missing };
}

// One repair at a time: a request that comes while one runs gets a check of its own after it.
let lastRepair: Promise<unknown> = Promise.resolve();
self.addEventListener('message', (event) => {
  if ((event.data as { type?: unknown } | null)?.type !== repairPrecacheMessage) return;
  const repair = lastRepair.catch(() => undefined).then(repairPrecache);
  lastRepair = repair;
  const answered = repair.then((counts) => {
    const answer: PrecacheRepaired = { type: repairPrecacheMessage, ...counts };
    event.ports[0]?.postMessage(answer);
  });
  event.waitUntil(answered);
});
