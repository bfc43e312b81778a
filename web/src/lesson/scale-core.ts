// The scale section's WebAssembly module (qkv-scale.mjs: the core, the benchmark's pass and the scale call,
// nothing else), kept apart from the page's module so that a cold load of the lesson never downloads it. It
// is imported on first use: by the section's worker when a learner first runs a preset, or on the page's
// thread where workers are refused. With SIMD where the engine has it, as the page's module (simd.ts).
// A load that fails says what failed in words (EngineUnavailable), never Emscripten's "Aborted(…)": the
// .wasm is fetched, checked and compiled here, as core.ts does for the page's module.
import { simdSupported } from './simd';
import type { ScaleCore } from './scale-api';
import { EngineUnavailable, messageOf } from './worker-runner';
import { CheckedDownload, DownloadFailure } from './download-check';
import { askAgainPastTheCache, scriptsLoadedSince } from './failed-scripts';
import scaleSimdWasmUrl from '../wasm/qkv-scale-simd.wasm?url';
import scalePlainWasmUrl from '../wasm/qkv-scale.wasm?url';
import scaleSimdWasmExpected from '../wasm/qkv-scale-simd.wasm?integrity';
import scalePlainWasmExpected from '../wasm/qkv-scale.wasm?integrity';

type ModuleFactory = (options?: EmscriptenModuleOptions) => Promise<unknown>;

const simd = simdSupported();
// A module script that failed to import stays failed for the life of this document (or worker): the browser
// keeps the failure per URL, so only a reload (or a fresh worker) imports it again. The .wasm is fetched anew
// on each attempt.
let importing: Promise<ModuleFactory> | undefined;
let loading: Promise<ScaleCore> | undefined;

const fileName = (url: string) => url.slice(url.lastIndexOf('/') + 1);

const scaleWasmUrl = simd ? scaleSimdWasmUrl : scalePlainWasmUrl;
// Checked against the build's length and SHA-256, and asked for past the HTTP cache after a failure (download-check.ts).
const scaleWasm = new CheckedDownload(scaleWasmUrl, simd ? scaleSimdWasmExpected : scalePlainWasmExpected);

async function compileScaleWasm(): Promise<WebAssembly.Module> {
  const file = fileName(scaleWasmUrl);
  let bytes: ArrayBuffer;
  try {
    bytes = await scaleWasm.bytes();
  } catch (error) {
    const kind = error instanceof DownloadFailure ? error.kind : 'network';
    if (kind === 'damaged') throw new EngineUnavailable(`its .wasm (${file}) arrived damaged (${messageOf(error)}): the download was cut short or changed on the way`);
    throw new EngineUnavailable(`its .wasm (${file}) could not be downloaded: ${messageOf(error)}`, false, kind === 'network');
  }
  try {
    return await WebAssembly.compile(bytes);
  } catch (error) {
    throw new EngineUnavailable(`its .wasm (${file}) is not a WebAssembly module this browser can compile: ${messageOf(error)}`);
  }
}

async function instantiate(): Promise<ScaleCore> {
  // One import expression per variant: each is its own chunk, so the other variant's script is never fetched.
  const since = performance.now();
  importing ??= (simd ? import('../wasm/qkv-scale-simd.mjs') : import('../wasm/qkv-scale.mjs')).then((imported) => imported.default);
  const [create, compiled] = await Promise.all([
    importing.catch(async (error: unknown) => {
      if (error instanceof SyntaxError) {
        // A copy cut short on the way, kept a year by the HTTP cache: asked for again past it before the learner
        // reads this, so that Try again (a fresh worker) imports the whole script (failed-scripts.ts says why not later).
        await askAgainPastTheCache(scriptsLoadedSince(since));
        throw new EngineUnavailable(`its script arrived damaged (${messageOf(error)}): the download was cut short or changed on the way`, true);
      }
      throw new EngineUnavailable(`its script could not load: ${messageOf(error)}`, true, true);
    }),
    compileScaleWasm(),
  ]);
  // Emscripten's factory never settles when instantiateWasm does not deliver, so a failure rejects here.
  return new Promise<ScaleCore>((resolve, reject) => {
    create({
      instantiateWasm(imports, receive) {
        WebAssembly.instantiate(compiled, imports).then(
          (instance) => receive(instance, compiled),
          (error: unknown) => reject(new EngineUnavailable(`its .wasm could not be instantiated: ${messageOf(error)}`)),
        );
        return {};
      },
    }).then((module) => resolve(module as ScaleCore), (error: unknown) => reject(new EngineUnavailable(messageOf(error))));
  });
}

export function loadScaleCore(): Promise<ScaleCore> {
  loading ??= instantiate().catch((error: unknown) => {
    loading = undefined; // a later attempt (Retry) fetches the .wasm again
    throw error;
  });
  return loading;
}
