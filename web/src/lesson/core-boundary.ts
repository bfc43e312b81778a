// Where the page's values cross into the WebAssembly core: every call of the page, the self-score worker and the
// tests' wrapped modules goes through guardCalls. Two things are made sure of there (docs/threat-model.md says
// what is not: the element trusts the page it is on, built-ins included).
// - Strings are well-formed. Emscripten 3.1.6's stringToUTF8 pairs a lone high surrogate with whatever code
//   unit follows ('\ud800' + '5' reached C++ as one unrelated character, the '5' swallowed). Each lone surrogate
//   becomes U+FFFD, as TextEncoder and URLSearchParams do, so the core reads "\uFFFD5" and refuses it in its own words.
// - A WebAssembly trap (WebKitGTK 2.50 once stopped the core's first call with "Out of bounds memory access", on
//   numbers that run in every other start) leaves the instance's stack and memory as they were mid-call. The
//   call that met it answers with a typed error in the engine's words, and so does every later call, without
//   entering that instance again (stoppedBy tells the element, which starts a fresh instance if it was starting).
//   A trap in a call made from inside another (a progress callback) unwinds the outer call as well. (A C++
//   exception never gets this far: the bindings turn it into a typed error, cpp/wasm/bindings.hpp's guarded.)
import type { ErrorView, QkvCore } from './core-api';

// Read once: a page without WebAssembly has no RuntimeError.
const trapClass = typeof WebAssembly === 'object' ? WebAssembly.RuntimeError : undefined;
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

// A string with every lone surrogate replaced by U+FFFD (String.prototype.toWellFormed, where the engine has it).
export function wellFormed(text: string): string {
  const native = (text as { toWellFormed?: () => string }).toWellFormed;
  return native ? native.call(text) : text.replace(loneSurrogate, '\uFFFD');
}

// A call's argument with every string in it well-formed (in arrays and plain objects too); anything else,
// a progress callback included, is passed as it is.
function wellFormedDeep(value: unknown): unknown {
  if (typeof value === 'string') return wellFormed(value);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(wellFormedDeep);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, wellFormedDeep(item)]));
}

function stoppedError(trap: Error): { ok: false; error: ErrorView } {
  return {
    ok: false,
    error: {
      kind: 'internal',
      message: `the lesson’s engine stopped (${trap.message}); reload the page to go on`,
      field: '',
      index: -1,
      sentence: 'The lesson’s computation engine stopped unexpectedly; reload the page to go on. The numbers on screen are the last it computed.',
    },
  };
}

const stopped = new WeakMap<object, Error>();

// The trap that stopped a guarded module, if one did.
export function stoppedBy(module: object): Error | undefined {
  return stopped.get(module);
}

// A module's calls, each through the boundary above (every string in a call's arguments well-formed). Each
// method is looked up at its call, as the module's own wrappers are installed once its runtime starts. The
// scale section's module can go through it too: guardCalls(module, ['scale']).
export function guardCalls<T extends object>(module: T, names: readonly (keyof T & string)[]): T {
  const out = {} as Record<string, unknown>;
  let entered = 0; // this module's calls now on the stack: a progress callback may call in again
  for (const name of names)
    out[name] = (...args: unknown[]) => {
      const before = stopped.get(out);
      if (before) return stoppedError(before);
      const call = module[name] as (...args: unknown[]) => unknown;
      entered++;
      try {
        const result = call.apply(module, args.map(wellFormedDeep));
        // A call from inside this one trapped: whatever the outer call returns came from a stopped instance.
        const trap = stopped.get(out);
        return trap ? stoppedError(trap) : result;
      } catch (error) {
        if (!trapClass || !(error instanceof trapClass)) throw error;
        stopped.set(out, error);
        // An outer call's frames are still on the instance's stack: unwind them too, not only this call.
        if (entered > 1) throw error;
        return stoppedError(error);
      } finally {
        entered--;
      }
    };
  return out as T;
}

const coreCalls = ['fixture', 'evaluate', 'numericalChecksStep', 'exercises', 'exercisesFor', 'variant', 'example', 'checkAnswer', 'lessonOutcome', 'practiceStreak', 'selfScoreSummary', 'findSeedWithProgress', 'provenance'] as const satisfies readonly (keyof QkvCore)[];
// Every call of QkvCore goes through the boundary: a call missing from the list fails to compile, naming it.
const everyCallGuarded: Exclude<keyof QkvCore, (typeof coreCalls)[number]> extends never ? true : Exclude<keyof QkvCore, (typeof coreCalls)[number]> = true;
void everyCallGuarded;

// The page's core (core.ts) and the self-score worker's, every call through the boundary.
export function guardCore(module: QkvCore): QkvCore {
  return guardCalls(module, coreCalls);
}
