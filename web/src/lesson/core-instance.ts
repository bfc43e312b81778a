// An instance of the WebAssembly core from a module compiled elsewhere: the page compiles the .wasm it
// downloaded (core.ts), and the self-score worker is given that module in its first message (worker-runner.ts),
// so it imports only the Emscripten script and never downloads the .wasm. Every call goes through the
// boundary of core-boundary.ts (well-formed strings, traps stopped there).
import type { QkvCore } from './core-api';
import { guardCore } from './core-boundary';
import { importMended, scriptNamedBy } from './failed-scripts';

type ModuleFactory = (options?: EmscriptenModuleOptions) => Promise<unknown>;

// A compiled core module and which build it is (SIMD or not), so that the matching Emscripten script is used.
export interface CoreEngine {
  module: WebAssembly.Module;
  simd: boolean;
}

// A core that could not load, in words that name the file and the reason (shown by core-load-error.ts).
// `scriptRefused`: the engine's script (the Emscripten glue) did not load (the built pages' mend-damaged-files.js then
// asks for it past the cache and reloads, once per tab). After a failure on the network (a 503, a dropped connection)
// Retry imports it again in this document: Chromium and WebKitGTK ask the server again for the same URL; Firefox ESR
// keeps the failed module for the document's life, so Retry imports the URL the failure named under a query
// (importAgain; tests/engines/glue-retry.test.mjs).
// `reloadNeeded`: the script arrived and does not parse, so this page cannot load it again (Retry would meet the
// same failed module); the learner is offered a reload, which asks for it past the cache (importGlue).
export class CoreLoadError extends Error {
  constructor(
    message: string,
    readonly scriptRefused = false,
    readonly reloadNeeded = false,
  ) {
    super(message);
  }
}

export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

let importing: Promise<ModuleFactory> | undefined;

// The Emscripten factory of the chosen build. Each import is its own chunk, so the other variant's script is
// never fetched.
export function importCoreModule(simd: boolean): Promise<ModuleFactory> {
  importing ??= importGlue(simd).then(
    (imported) => imported.default,
    (error: unknown) => {
      importing = undefined; // Retry imports it again
      const damaged = error instanceof SyntaxError;
      if (!damaged) failedGlue = scriptNamedBy(error) ?? failedGlue;
      const said = damaged ? ' It arrived damaged (the download was cut short or changed on the way): reload the page to fetch it again.' : '';
      throw new CoreLoadError(`Could not load the lesson’s engine script: ${messageOf(error)}.${said}`, true, damaged);
    },
  );
  return importing;
}

// On a course page's own HTML no integrity guards the glue and no mend script runs (the built pages have both:
// docs/downloads.md), so a copy cut short on the way, which the HTTP cache keeps for a year, would fail on every
// load. One that does not parse (a SyntaxError) is noted for this tab, and the next load asks for it past the cache
// before importing it (failed-scripts.ts: importMended). On the built pages the glue is preloaded before `since`: not noted here.
const importGlue = (simd: boolean) =>
  importMended(() => (failedGlue ? importAgain(failedGlue) : simd ? import('../wasm/qkv-simd.mjs') : import('../wasm/qkv.mjs')));

// The glue's URL as an import() that failed on the network named it (scriptNamedBy), for Retry. Firefox ESR keeps
// that failure in the document's module map and answers an import() of the same URL with it, asking nothing (Chromium
// and WebKitGTK ask the server again: docs/downloads.md), so Retry imports the same file under a query this document
// has not imported: the server, the service worker's precache and the CSP's 'self' all take it as the same file.
let failedGlue: URL | undefined;
let retries = 0;

function importAgain(failed: URL): Promise<{ default: ModuleFactory }> {
  const again = new URL(failed);
  again.search = `retry=${++retries}`;
  // The URL of the built chunk, read at run time: no bundler is to resolve it (a course's webpack would warn).
  return import(/* @vite-ignore */ /* webpackIgnore: true */ again.href) as Promise<{ default: ModuleFactory }>;
}

// A new instance from `engine` (a promise: the page's download may still be under way).
export function createCore(engine: Promise<CoreEngine>, simd: boolean): Promise<QkvCore> {
  engine.catch(() => undefined); // its failure is reported below, or the script's is, not as an unhandled rejection
  return new Promise<QkvCore>((resolve, reject) => {
    importCoreModule(simd)
      .then((create) =>
        create({
          instantiateWasm(imports, receive) {
            engine
              .then(({ module }) => WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module)))
              .catch((error: unknown) => reject(error instanceof CoreLoadError ? error : new CoreLoadError(`The lesson’s engine could not start: ${messageOf(error)}`)));
            return {}; // instantiated asynchronously
          },
        }),
      )
      .then((instance) => resolve(guardCore(instance as QkvCore)), reject);
  });
}
