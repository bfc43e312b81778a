// Offline (issue 19, item 5): a service worker (sw.js, built by vite-plugin-pwa with Workbox's injectManifest from
// src/sw.ts) that precaches the build's files for the standalone page and embed.html, the scale section's lazily
// loaded module and both WebAssembly variants included. The precache is versioned by content: hashed assets by their
// names, everything else by a revision hash in sw.js's manifest, so a new build changes sw.js, which the browser
// checks on each visit (serve.mjs sends it no-cache).
//
// The new worker takes over as soon as it has precached the new build (skipWaiting, clientsClaim) and deletes the
// entries the new build no longer has; the page is not reloaded (no workbox-window: the page's own register call is a
// few bytes, src/offline.ts), so the next load or reload runs the new build. A prompt would need a reload button in
// the lesson, and until the learner pressed it the old build would go on being served. A page loaded from the old
// build that then loads the scale module for the first time gets it from the network, where the host still has it if
// it keeps a build's old hashed files. A precache deleted under the worker is repaired by that worker (src/sw.ts).
// Only the site's pages register it (src/main.ts, src/embed.ts); the element (define.ts, the npm package) never
// does, and the package's build (vite.lib.config.ts, whose inputs are no pages) gets no sw.js.
import { VitePWA } from 'vite-plugin-pwa';
import type { Plugin, UserConfig } from 'vite';

// A build whose inputs include an HTML page: the site's, not the npm package's.
function buildsPages(config: UserConfig): boolean {
  const options = (config.build as { rollupOptions?: { input?: unknown }; rolldownOptions?: { input?: unknown } } | undefined);
  const input = options?.rolldownOptions?.input ?? options?.rollupOptions?.input;
  const names = typeof input === 'string' ? [input] : Array.isArray(input) ? input : Object.values(input ?? {});
  return names.some((name) => String(name).endsWith('.html'));
}

export function offline(): Plugin[] {
  return VitePWA({
    strategies: 'injectManifest',
    srcDir: 'src',
    filename: 'sw.ts', // built into sw.js
    injectRegister: false, // src/offline.ts registers it, through the Trusted Types policy
    manifest: false, // an offline lesson, not an installable app
    mode: 'production', // no Workbox logging in the console
    injectManifest: {
      // The lesson's pages, scripts, styles, both core variants, the scale module, the math fonts, the favicon;
      // not the course-host example (host-example.*, qkv-embed-host.js) or the element's stable entry for course
      // pages (qkv-lesson.js), which run on the host's origin.
      globPatterns: ['**/*.{html,js,css,wasm,svg,woff2}'],
      globIgnores: ['host-example.*', 'qkv-embed-host.js', 'qkv-lesson.js'],
      // Hashed assets are versioned by their names (serve.mjs's hashedAsset pattern).
      dontCacheBustURLsMatching: /^assets\/[^/]+-[\w-]{8}\.[a-z0-9]+$/,
      // A classic worker script, one file (sw.js, with no-cache): Workbox is bundled in, no import statements.
      rollupFormat: 'iife',
      sourcemap: false,
    },
    // The worker's own Vite build says only what goes wrong, as `vite build --logLevel warn` does for the site.
    integration: { configureCustomSWViteBuild: (config) => void (config.logLevel = 'warn') },
  }).map((plugin) => {
    const apply = plugin.apply;
    return {
      ...plugin,
      apply: (config, env) => env.command === 'build' && buildsPages(config) && (typeof apply === 'function' ? apply(config, env) : apply === undefined || apply === env.command),
    };
  });
}
