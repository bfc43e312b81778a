// The npm package's build (`npm run build:lib` -> dist-lib/): <qkv-lesson> as ES modules for a course site's
// own bundler. Not Vite's library mode: that always inlines assets as data: URLs, which a strict CSP refuses.
// This is an ordinary build with the element as its one entry, relative URLs, and every asset (WebAssembly,
// KaTeX fonts) a file of its own that the code names as new URL('./assets/…', import.meta.url): the form Vite
// and webpack 5 copy into the site's build. The two workers are entries too, started as
// new Worker(new URL('./….js', import.meta.url), { type: 'module' }), the form those bundlers build as workers
// (their imports and .wasm included); the site's build names every file again. Every file sits at the folder's
// top and every asset in assets/, so each URL is './…' from whichever file names it: a bundler that leaves
// these URLs alone (esbuild, Rollup) works once the folder is copied beside its output, at any sub-path
// (docs/npm.md; tests/browser/bundlers.test.mjs builds a site with each bundler).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig, mergeConfig, type Plugin } from 'vite';
import { katexFontSubsets } from './katex-font-subsets.ts';
import site from './vite.config.ts';

const lesson = resolve(import.meta.dirname, 'src/lesson');
// The worker entries, by the name their file gets in dist-lib/.
const workers = { 'self-score-worker': resolve(lesson, 'self-score-worker.ts'), 'scale-worker': resolve(lesson, 'scale-worker.ts') };

// The site's build bundles each `?worker&url` import into a file whose URL the page passes through the
// Trusted Types policy (trusted-types.ts). A site's bundler would copy such a file as it is, and its own
// imports and .wasm URLs would then name files the site's build renamed. Here each such import gives a
// marker, and each `new Worker(trustedWorkerScript(<that import>), …)` becomes the literal worker form,
// pointing at the worker's entry in dist-lib/. A source that starts its worker otherwise stops the build.
// Bundlers rewrite only the URL in that form, so the policy can no longer wrap it: the form runs inside
// viaPolicy(), which for that one synchronous call gives `Worker` a constructor that passes the URL the
// bundler wrote through trustedWorkerScript: the lesson's policy (a page requiring Trusted Types refuses a plain
// URL) and its check that the script is of the page's origin.
const helperId = 'virtual:qkv-worker-via-policy';
const preloadHelperId = '\0vite/preload-helper.js';
const helper = `import { trustedWorkerScript } from ${JSON.stringify(resolve(lesson, 'trusted-types.ts'))};
export function viaPolicy(start) {
  const Native = globalThis.Worker;
  globalThis.Worker = function Worker(url, options) { return new Native(trustedWorkerScript(String(url)), options); };
  try {
    return start();
  } finally {
    globalThis.Worker = Native;
  }
}
`;
function workersForBundlers(): Plugin {
  const importRE = /^import (\w+) from '\.\/([\w-]+)\.ts\?worker&url';$/gm;
  return {
    name: 'qkv-workers-for-bundlers',
    enforce: 'pre',
    resolveId: (source) => (source === helperId ? `\0${helperId}` : undefined),
    // Vite wraps each dynamic import in its preload helper, which preloads nothing here and whose code names a
    // computed URL (`new URL(dep, import.meta.url)`: a "Critical dependency" in webpack). The helper is one line
    // here, and the calls come off it in generateBundle.
    load(id) {
      if (id === `\0${helperId}`) return helper;
      if (id === preloadHelperId) return 'export const __vitePreload = (load) => load();';
      return undefined;
    },
    transform(code, id) {
      if (!id.startsWith(lesson) || !code.includes('?worker&url')) return undefined;
      let out = `import { viaPolicy } from '${helperId}';\n${code}`;
      for (const [line, name, file] of code.matchAll(importRE)) {
        if (!(file in workers)) this.error(`${file}.ts is not one of the package's worker entries (vite.lib.config.ts)`);
        const call = `new Worker(trustedWorkerScript(${name}), { type: 'module' })`;
        if (!out.includes(call)) this.error(`expected ${call} in ${id}`);
        out = out
          .replace(line, '')
          .replaceAll(call, `viaPolicy(() => new Worker(new URL(/* @vite-ignore */ '__QKV_WORKER__${file}', import.meta.url), { type: 'module' }))`);
      }
      if (out.includes('?worker&url')) this.error(`a ?worker&url import in ${id} is not in the form vite.lib.config.ts rewrites`);
      return { code: out, map: null };
    },
    // After Vite has written every URL (the vite-ignore comment keeps its worker and asset transforms off the
    // marker: they would bundle the worker here): the marker becomes the worker entry's path, without the comment
    // (a site's Vite would skip the URL). The preload wrapper comes off the dynamic imports, and the helper's name
    // goes (a site's Vite adds its own of the same name to the module).
    generateBundle: {
      order: 'post',
      handler(_, bundle) {
        for (const chunk of Object.values(bundle)) {
          if (chunk.type !== 'chunk') continue;
          chunk.code = chunk.code
            .replace(/__vitePreload\(\(\) => (import\("[^"]+"\)), \[\], import\.meta\.url\)/g, '$1')
            .replace(/\b__vitePreload\b/g, 'unusedPreloadHelper')
            .replace(/new URL\(\s*(?:\/\*[^*]*\*\/\s*)?(['"`])__QKV_WORKER__([\w-]+)\1/g, (_match, _quote, file) => `new URL("./${file}.js"`);
          if (chunk.code.includes('__QKV_WORKER__')) this.error(`a worker marker in ${chunk.fileName} was not replaced`);
          if (chunk.code.includes('unusedPreloadHelper(')) this.error(`a preload call in ${chunk.fileName} was not unwrapped`);
        }
      },
    },
  };
}

// The package's own file beside its entry: its server entry (web/lib/server.js, package.json's "node" export).
// Its types, dist-lib/qkv-lesson.d.ts, are emitted from the source after this build (scripts/build-lib-types.mjs).
function packageFiles(): Plugin {
  return {
    name: 'qkv-package-files',
    generateBundle() {
      for (const fileName of ['server.js'])
        this.emitFile({ type: 'asset', fileName, source: readFileSync(resolve(import.meta.dirname, 'lib', fileName), 'utf8') });
    },
  };
}

// Vite inlines an asset under its assetsInlineLimit (4,096 bytes by default) as a data: URL, which a strict CSP
// refuses; the lesson's smallest font subsets are under it. A site's bundler sees these same files, so each font
// is made at least that long here (katex-font-subsets.ts pads it in WOFF2's private data block) rather than
// asking every course site to change its bundler's settings, or marking the URLs with a query that other
// bundlers keep in the file's name.
const viteInlineLimit = 4096;
const sitePlugins = (site.plugins ?? []).map((plugin) =>
  plugin && 'name' in plugin && plugin.name === 'qkv-katex-font-subsets' ? katexFontSubsets({ minimumBytes: viteInlineLimit }) : plugin,
);

const config = mergeConfig({ ...site, plugins: sitePlugins }, defineConfig({
  plugins: [workersForBundlers(), packageFiles()],
  publicDir: false, // the site's favicon and host example are not the package's
  build: {
    outDir: resolve(import.meta.dirname, '../dist-lib'),
    // The site's bundler minifies; readable modules here make a consumer's stack traces and audits easier.
    minify: false,
    // No modulepreload lists: the site's bundler renames the chunks they would name.
    modulePreload: false,
    rollupOptions: {
      output: {
        entryFileNames: '[name].js',
        chunkFileNames: '[name]-[hash].js', // at the top, beside the entries: every URL is './…'
      },
    },
  },
  experimental: {
    // Each asset as './assets/…' relative to the file naming it, the form every bundler reads (Vite's own
    // 'assets/…' is a bare module name to webpack).
    renderBuiltUrl: (fileName, { hostType }) => (hostType === 'js' ? { runtime: `new URL(${JSON.stringify(`./${fileName}`)}, import.meta.url).href` } : { relative: true }),
  },
}));
// Not merged with the site's inputs (its pages): the element and its workers only.
config.build.rollupOptions.input = { 'qkv-lesson': resolve(lesson, 'define.ts'), ...workers };
export default config;
