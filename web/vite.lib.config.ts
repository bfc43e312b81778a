// The npm package's build (`npm run build:lib` -> dist-lib/): <qkv-lesson> as ES modules for a course site's
// own bundler. Not Vite's library mode: that always inlines assets as data: URLs, which a strict CSP refuses.
// This is an ordinary build with the element as its one entry, relative URLs, and every asset (WebAssembly,
// KaTeX fonts) a file of its own that the code names as new URL('./assets/…', import.meta.url): the form Vite
// and webpack 5 copy into the site's build. The two workers are entries too, started as the source starts them,
// new Worker(new URL('./….js', import.meta.url), { type: 'module' }), the form those bundlers build as workers
// (their imports and .wasm included); the site's build names every file again. Every file sits at the folder's
// top and every asset in assets/, so each URL is './…' from whichever file names it: a bundler that leaves
// these URLs alone (esbuild, Rollup) works once the folder is copied beside its output, at any sub-path
// (docs/npm.md; tests/browser/bundlers.test.mjs builds a site with each bundler). No code is rewritten as text:
// the workers' URLs become file references before Vite reads them, and Vite's preload helper is loaded as a stub.
import { readFileSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import { defineConfig, mergeConfig, type Plugin } from 'vite';
import { katexFontSubsets } from './katex-font-subsets.ts';
import { serverOpening, type OpeningPluginsApi } from './prerender/server-opening.ts';
import site from './vite.config.ts';

const lesson = resolve(import.meta.dirname, 'src/lesson');

// An ESTree node, as Rolldown's parser gives it: its type, its place in the code and its fields.
type AstNode = { type: string; start: number; end: number; [field: string]: unknown };

function* astNodes(value: unknown): Generator<AstNode> {
  if (Array.isArray(value)) for (const item of value) yield* astNodes(item);
  else if (value && typeof value === 'object') {
    if ('type' in value) yield value as AstNode;
    for (const field of Object.values(value)) if (field && typeof field === 'object') yield* astNodes(field);
  }
}

const isName = (node: unknown, name: string) => (node as AstNode | undefined)?.type === 'Identifier' && (node as { name?: string }).name === name;

// The string literal of `new Worker(new URL('<literal>', import.meta.url), …)`, or undefined for any other form.
function workerUrlLiteral(call: AstNode): AstNode | undefined {
  const [url] = call.arguments as AstNode[];
  if (url?.type !== 'NewExpression' || !isName(url.callee, 'URL')) return undefined;
  const [literal, base] = url.arguments as AstNode[];
  const meta = base?.type === 'MemberExpression' ? (base.object as AstNode) : undefined;
  const isImportMetaUrl = meta?.type === 'MetaProperty' && isName(meta.meta, 'import') && isName(meta.property, 'meta') && isName(base.property, 'url');
  return literal?.type === 'Literal' && typeof literal.value === 'string' && isImportMetaUrl ? literal : undefined;
}

// The sources start each worker as `new Worker(new URL('./….ts', import.meta.url), { type: 'module' })`
// (trusted-types.ts), the form a site's bundler (Vite, webpack 5, Parcel) builds as a worker with its imports and
// .wasm. The package keeps that form, naming the worker's entry in dist-lib/ ('./self-score-worker.js'). Vite's own
// build of it would bundle the worker apart and write `new URL(/* @vite-ignore */ "…", '' + import.meta.url)`,
// which no bundler reads as a worker again. So here, before Vite's worker transform, the literal becomes a
// Rolldown file reference to the worker, emitted as an entry of this build (its chunks shared with the element's);
// Vite's transform no longer matches it, and resolveFileUrl writes the entry's path back as a literal.
function workersAsEntries(): Plugin {
  const references = new Map<string, string>(); // a worker's module -> its file reference
  return {
    name: 'qkv-workers-as-entries',
    transform: {
      filter: { code: { include: ['new Worker('] } },
      async handler(code, id) {
        const calls = [...astNodes(this.parse(code))].filter((node) => node.type === 'NewExpression' && isName(node.callee, 'Worker'));
        let out = code;
        // From the last call back, so that each one's place in the code is still where the parser found it.
        for (const call of calls.reverse()) {
          const literal = workerUrlLiteral(call);
          if (!literal) this.error(`${id}: a worker started otherwise than new Worker(new URL('./….ts', import.meta.url), …) (vite.lib.config.ts)`);
          const worker = await this.resolve(literal.value as string, id);
          if (!worker) this.error(`${id}: the worker ${String(literal.value)} was not found`);
          const referenceId = references.get(worker.id) ?? this.emitFile({ type: 'chunk', id: worker.id, fileName: `${basename(worker.id, extname(worker.id))}.js` });
          references.set(worker.id, referenceId);
          out = `${out.slice(0, literal.start)}import.meta.ROLLDOWN_FILE_URL_${referenceId}${out.slice(literal.end)}`;
        }
        return { code: out, map: null };
      },
    },
    // Before Vite's own, which would write the path as an expression (renderBuiltUrl).
    resolveFileUrl: {
      order: 'pre',
      handler: ({ referenceId, relativePath }) => ([...references.values()].includes(referenceId) ? JSON.stringify(`./${relativePath}`) : undefined),
    },
  };
}

// Vite wraps each dynamic import() of a module in its preload helper, whose code names a computed URL
// (new URL(dep, import.meta.url): a "Critical dependency" in webpack) and which preloads nothing here (no
// modulepreload lists, below). The helper's module is loaded as one line that calls the import, its binding
// named otherwise than __vitePreload: a site's Vite declares that name in each module with a dynamic import.
const preloadHelperId = '\0vite/preload-helper.js';
function preloadHelperWithoutUrls(): Plugin {
  return {
    name: 'qkv-preload-helper-without-urls',
    enforce: 'pre',
    load: (id) => (id === preloadHelperId ? 'const importWithoutPreload = (importModule) => importModule();\nexport { importWithoutPreload as __vitePreload };' : undefined),
  };
}

// The package's own files beside its entry: its server entry (web/lib/server.js, package.json's "node" export) and
// qkv-lesson/server, the prerendered opening for a server render (server-opening.js, its types and the files
// prerender/server-opening.ts writes). The element's types, dist-lib/qkv-lesson.d.ts, are emitted from the source
// after this build (scripts/build-lib-types.mjs).
function packageFiles(): Plugin {
  return {
    name: 'qkv-package-files',
    generateBundle() {
      for (const fileName of ['server.js', 'server-opening.js', 'server-opening.d.ts'])
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
// The page build's prerender writes the opening into its HTML pages, which the package has none of; the package's
// takes its place, rendered by the same code with the same plugins: the opening for a server render.
const sitePlugins = (site.plugins ?? []).map((plugin) => {
  if (!plugin || !('name' in plugin)) return plugin;
  if (plugin.name === 'qkv-katex-font-subsets') return katexFontSubsets({ minimumBytes: viteInlineLimit });
  if (plugin.name === 'qkv-prerendered-opening') return serverOpening((plugin as Plugin<OpeningPluginsApi>).api!.openingPlugins);
  return plugin;
});
if (!sitePlugins.some((plugin) => plugin && 'name' in plugin && plugin.name === 'qkv-server-opening')) throw new Error('vite.lib.config.ts: the site build has no qkv-prerendered-opening plugin for the package to render its opening with');

const config = mergeConfig({ ...site, plugins: sitePlugins }, defineConfig({
  plugins: [workersAsEntries(), preloadHelperWithoutUrls(), packageFiles()],
  publicDir: false, // the site's favicon and host example are not the package's
  build: {
    outDir: resolve(import.meta.dirname, '../dist-lib'),
    // The site's bundler minifies; readable modules here make a consumer's stack traces and audits easier.
    minify: false,
    // No modulepreload lists: the site's bundler renames the chunks they would name.
    modulePreload: false,
    rollupOptions: {
      // The bundler's note that a plugin took seconds (the prerender runs the core) is about the build machine, not
      // the lesson; on a busy machine it filled `npm start`'s output with a warning a newcomer cannot act on.
      checks: { bundlerTimings: false },
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
// Not merged with the site's inputs (its pages): the element only (its workers are emitted by workersAsEntries).
config.build.rollupOptions.input = { 'qkv-lesson': resolve(lesson, 'define.ts') };
export default config;
