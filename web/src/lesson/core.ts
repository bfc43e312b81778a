// Loads the WebAssembly core once per page, however many <qkv-lesson> elements there are. Two builds of the
// same C++ exist, with the same bits: one with 128-bit SIMD (faster matmuls) and one without, for engines
// that lack SIMD. The engine is asked which it can compile, and only that module is downloaded, once: the
// self-score worker gets the page's compiled module (compiledCore) and never fetches it. A load that fails
// says what failed (CoreLoadError), and a later loadCore() (the element's Retry) tries again, past the HTTP cache.
import type { QkvCore } from './core-api';
import { CoreLoadError, createCore, importCoreModule, messageOf, type CoreEngine } from './core-instance';
import { simdSupported } from './simd';
import { CheckedDownload, DownloadFailure } from './download-check';
import simdWasmUrl from '../wasm/qkv-simd.wasm?url';
import plainWasmUrl from '../wasm/qkv.wasm?url';
import simdWasmExpected from '../wasm/qkv-simd.wasm?integrity';
import plainWasmExpected from '../wasm/qkv.wasm?integrity';

export { CoreLoadError, type CoreEngine } from './core-instance';

const simd = simdSupported();
const fileName = (url: string) => url.slice(url.lastIndexOf('/') + 1);

let compiling: Promise<CoreEngine> | undefined;
let compiled: CoreEngine | undefined;

// Settles once the built page's preload of `url` (web/preload-wasm.ts) has ended, at once if there is none or it
// has. Chromium and Firefox would hand an in-flight preload to fetch(), but WebKit does not: its fetch() made a
// second download beside the preload's. After the preload, every engine's fetch() gets it without a download
// (Chromium and Firefox from the preload, WebKit from the HTTP cache of a host that lets it cache).
function preloadEnded(url: string): Promise<void> {
  const link = [...document.querySelectorAll<HTMLLinkElement>('link[rel="preload"][as="fetch"]')].find((candidate) => candidate.href === url);
  if (!link || performance.getEntriesByName(url).length > 0) return Promise.resolve(); // none, or it has arrived
  return new Promise((ended) => {
    link.addEventListener('load', () => ended(), { once: true });
    link.addEventListener('error', () => ended(), { once: true });
  });
}

const wasmUrl = simd ? simdWasmUrl : plainWasmUrl;
// Checked against the build's length and SHA-256, and asked for past the HTTP cache after a failure
// (download-check.ts). Its first request is the one the built page preloads (web/preload-wasm.ts: the same URL,
// mode 'cors' and credentials 'same-origin', fetch's defaults), made once that preload has ended, so the browser
// hands over the preloaded response: the download runs in parallel with the script.
const wasmDownload = new CheckedDownload(wasmUrl, simd ? simdWasmExpected : plainWasmExpected);

// The chosen .wasm, downloaded, checked and compiled (a few milliseconds for this module).
async function fetchAndCompile(): Promise<CoreEngine> {
  if (typeof WebAssembly !== 'object') throw new CoreLoadError('This browser does not run WebAssembly, which the lesson needs to compute anything.');
  let bytes: ArrayBuffer;
  try {
    bytes = await wasmDownload.bytes(() => preloadEnded(wasmUrl));
  } catch (error) {
    if (error instanceof DownloadFailure && error.kind === 'damaged') {
      throw new CoreLoadError(`The lesson’s engine (${fileName(wasmUrl)}) arrived damaged (${error.message}): the download was cut short or changed on the way.`);
    }
    throw new CoreLoadError(`Could not download the lesson’s engine (${fileName(wasmUrl)}): ${messageOf(error)}.`);
  }
  return { module: await compile(wasmUrl, bytes), simd };
}

async function compile(url: string, bytes: ArrayBuffer): Promise<WebAssembly.Module> {
  try {
    return await WebAssembly.compile(bytes);
  } catch (error) {
    throw new CoreLoadError(`The lesson’s engine (${fileName(url)}) is not a WebAssembly module this browser can compile: ${messageOf(error)}`);
  }
}

function compileCoreWasm(): Promise<CoreEngine> {
  compiling ??= fetchAndCompile().then(
    (engine) => (compiled = engine),
    (error: unknown) => {
      compiling = undefined; // Retry fetches it again
      throw error;
    },
  );
  return compiling;
}

// The page's compiled module once loadCore() has succeeded: what the self-score worker is given.
export const compiledCore = (): CoreEngine | undefined => compiled;

let loading: Promise<QkvCore> | undefined;

// The page's core. After a failure the next call (the element's Retry) tries again.
export function loadCore(): Promise<QkvCore> {
  loading ??= createCore(compileCoreWasm(), simd).catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

// A fresh instance of the compiled module, for a start that trapped (element.ts): a WebAssembly trap leaves an
// instance's stack and memory as they were mid-call, so nothing more is asked of it. Nothing is downloaded again.
export function restartCore(): Promise<QkvCore> {
  loading = undefined;
  return loadCore();
}

// Both downloads (the Emscripten script and the .wasm) start when the element is defined (define.ts), not when the
// first element connects: a course page that loads the element's script gets them in parallel with its own work.
// A second copy of the element on the page defines nothing and so downloads nothing. (A failure reaches
// loadCore's caller.)
export function startCoreDownloads(): void {
  importCoreModule(simd).catch(() => undefined);
  loadCore().catch(() => undefined);
  // The built page preloads the SIMD file (web/preload-wasm.ts). An engine without SIMD cannot use it, but
  // reads it anyway, so that no engine warns of a preload left unused: those engines (older Safari) pay one
  // download for nothing, every other gets its .wasm in parallel with the script.
  if (!simd && document.querySelector(`link[rel="preload"][href$="/${fileName(simdWasmUrl)}"]`)) {
    preloadEnded(simdWasmUrl).then(() => fetch(simdWasmUrl)).then((response) => response.arrayBuffer()).catch(() => undefined);
  }
}
