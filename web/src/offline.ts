// Registers the lesson's service worker (sw.js, src/sw.ts, built by web/pwa.ts) for the standalone page and
// embed.html, once the lesson has laid out, so that precaching never competes with the first load. Nothing where
// service workers cannot run (file://, an insecure origin, a sandboxed frame's opaque origin, where even reading
// navigator.serviceWorker throws): the lesson works as it does without one, and nothing reaches the console.
import { trustedWorkerScript } from './lesson/trusted-types';
import { repairPrecacheMessage } from './offline-messages';

export function registerOffline(lesson: Element): void {
  const register = () => {
    try {
      if (!isSecureContext || self.origin === 'null' || !/^https?:$/.test(location.protocol) || !('serviceWorker' in navigator)) return;
      navigator.serviceWorker.register(trustedWorkerScript('./sw.js'), { scope: './' }).catch(() => undefined);
      // A page served by the worker asks it to fetch again what its precache lacks (the learner may have deleted
      // the site's caches while the worker stayed registered): a check of the cache when nothing is missing. The
      // page waits for nothing; a first visit has no controller, and the worker's install precaches the build.
      navigator.serviceWorker.controller?.postMessage({ type: repairPrecacheMessage });
    } catch {
      // no service worker here (see above)
    }
  };
  if ((lesson as HTMLElement).dataset.laidOut !== undefined) register();
  else lesson.addEventListener('qkv-lesson-laid-out', register, { once: true });
}
