// Under Trusted Types (a course page's `require-trusted-types-for 'script'`), assigning a string to
// innerHTML or passing one to `new Worker()` throws. The lesson has exactly two such sinks: the KaTeX markup
// typeset at build time (dom.ts) and its own workers' scripts. Both go through one policy, "qkv-lesson",
// which passes only those: the markup is checked against the build's own formulas, the script URL against
// the page's origin (browsers start a worker from no other). Without Trusted Types the strings pass as they are.
import math from 'virtual:math';
import { recordWorkerScript } from './failed-scripts';

interface Policy {
  createHTML(html: string): string;
  createScriptURL(url: string): string;
}
interface TrustedTypesFactory {
  createPolicy(name: string, rules: { createHTML: (html: string) => string; createScriptURL: (url: string) => string }): Policy;
}

const formulas = new Set<string>(Object.values(math));

function onlyBuildMath(html: string): string {
  if (!formulas.has(html)) throw new TypeError('qkv-lesson: only the build’s own typeset formulas may be inserted as HTML');
  return html;
}

function onlyOwnScripts(url: string): string {
  const resolved = new URL(url, document.baseURI);
  // The page's origin, not import.meta.url's: webpack replaces that with the source file's file: URL.
  if (resolved.origin !== location.origin) throw new TypeError(`qkv-lesson: a worker script must come from the page's own origin, not ${resolved.origin}`);
  return url;
}

let policy: Policy | null | undefined;

// The policy, made once; null when the browser has no Trusted Types. A host whose `trusted-types`
// directive lists policy names must list "qkv-lesson" (docs/element.md): otherwise createPolicy throws, and the
// lesson shows that as its error state.
function lessonPolicy(): Policy | null {
  if (policy === undefined) {
    const factory = (globalThis as { trustedTypes?: TrustedTypesFactory }).trustedTypes;
    policy = factory ? factory.createPolicy('qkv-lesson', { createHTML: onlyBuildMath, createScriptURL: onlyOwnScripts }) : null;
  }
  return policy;
}

// What innerHTML takes for one of the build's formulas (a TrustedHTML where the browser has them).
export function trustedMath(html: string): string {
  return lessonPolicy()?.createHTML(html) ?? onlyBuildMath(html);
}

// What `new Worker()` takes for one of the lesson's own worker scripts. A script of another origin than the page's
// (the lesson's script loaded from its own host by a course page) throws here, before the browser is asked, in
// every browser: the worker runner then computes on the page's thread (worker-runner.ts).
export function trustedWorkerScript(url: string): string {
  return lessonPolicy()?.createScriptURL(url) ?? onlyOwnScripts(url);
}

// Starts one of the lesson's workers from a call written at the caller as
//   startWorkerViaPolicy(() => new Worker(new URL('./x-worker.ts', import.meta.url), { type: 'module' }))
// the form Vite, webpack 5 and Parcel build as a worker (its imports and .wasm included), rewriting only the URL.
// The policy cannot wrap that URL at the call without hiding the form from them, so for that one synchronous call
// `Worker` is a constructor that passes whatever URL the bundler wrote through trustedWorkerScript (and records it,
// for failed-scripts.ts to note if the worker's script cannot load).
export function startWorkerViaPolicy(start: () => Worker): Worker {
  const global = globalThis as { Worker: typeof Worker };
  const Native = global.Worker;
  global.Worker = function Worker(url: string | URL, options?: WorkerOptions) {
    const worker = new Native(trustedWorkerScript(String(url)), options);
    recordWorkerScript(worker, new URL(String(url), document.baseURI).href);
    return worker;
  } as unknown as typeof Worker;
  try {
    return start();
  } finally {
    global.Worker = Native;
  }
}
