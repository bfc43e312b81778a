// Where the page's values cross into the WebAssembly core: every call of the page, the self-score worker and the
// tests' wrapped modules goes through guardCore. Four things are made sure of there.
// - Strings are well-formed. Emscripten 3.1.6's stringToUTF8 pairs a lone high surrogate with whatever code
//   unit follows ('\ud800' + '5' reached C++ as one unrelated character, the '5' swallowed). Each lone surrogate
//   becomes U+FFFD, as TextEncoder and URLSearchParams do, so the core reads "\uFFFD5" and refuses it in its own words.
// - Requests are fresh: dense arrays and plain objects built here, so the core reads no getter, hole or Proxy.
// - The built-ins the glue and the bindings use during a call are the ones this module found at load. They run
//   through the page's realm on every call: the emval handle list and the destructor list are pushed and
//   popped, every returned array is filled index by index ([[Set]], which an accessor at Array.prototype[0]
//   intercepts), doubles come out through globalThis.Array.from, strings through String.fromCharCode and a
//   TextDecoder, and the core reads decimals with globalThis.Number (cpp/text/format.cpp). A page that changes
//   one of those after load (a library, an attack) would change the returned numbers or break the module. For
//   the length of one synchronous call, each such change is lifted and then put back exactly: none of the
//   page's code runs in between. A change that cannot be lifted (made non-configurable) refuses the call in
//   words. Changes made before this module loaded cannot be told apart from the built-ins and are not undone.
// - A WebAssembly trap (WebKitGTK 2.50 once stopped the core's first call with "Out of bounds memory access", on
//   numbers that run in every other start) leaves the instance's stack and memory as they were mid-call. The
//   call that met it answers with a typed error in the engine's words, and so does every later call, without
//   entering that instance again (stoppedBy tells the element, which starts a fresh instance if it was starting).
//   A trap in a call made from inside another (a progress callback) unwinds the outer call as well.
import type { ErrorView, QkvCore } from './core-api';

const { apply, defineProperty, deleteProperty, getOwnPropertyDescriptor, getPrototypeOf, ownKeys } = Reflect;
const { create, is, hasOwn } = Object;
const isArray = Array.isArray;
const stringKeys = Object.keys;
const toWellFormed = (String.prototype as { toWellFormed?: (this: string) => string }).toWellFormed;
const stringReplace = String.prototype.replace;
const stringOf = String;
// Read once: a page without WebAssembly has no RuntimeError.
const trapClass = typeof WebAssembly === 'object' ? WebAssembly.RuntimeError : undefined;
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

// A string with every lone surrogate replaced by U+FFFD (String.prototype.toWellFormed, where the engine has it).
export function wellFormed(text: string): string {
  return toWellFormed ? apply(toWellFormed, text, []) : apply(stringReplace, text, [loneSurrogate, '\uFFFD']);
}

type Descriptors = Record<PropertyKey, PropertyDescriptor>;

// A descriptor with no prototype: defineProperty reads `get` and `value` through the prototype chain, which
// the page may have changed too.
function bare(descriptor: PropertyDescriptor): PropertyDescriptor {
  const out = create(null) as PropertyDescriptor;
  const fields = ['value', 'writable', 'get', 'set', 'enumerable', 'configurable'] as const;
  for (let i = 0; i < fields.length; i++) if (hasOwn(descriptor, fields[i])) (out as Record<string, unknown>)[fields[i]] = descriptor[fields[i]];
  return out;
}

interface Watched {
  target: object;
  label: string;
  keys: PropertyKey[]; // the keys watched: at load, every own key (or the names given)
  every: boolean; // keys added since load are lifted too
  saved: Descriptors;
}

const watched: Watched[] = [];

function watch(target: object | null | undefined, label: string, names?: string[]): void {
  if (!target) return;
  const keys = names ?? ownKeys(target);
  const saved = create(null) as Descriptors;
  const present: PropertyKey[] = [];
  for (let i = 0; i < keys.length; i++) {
    const descriptor = getOwnPropertyDescriptor(target, keys[i]);
    if (descriptor) {
      saved[keys[i] as string] = bare(descriptor);
      present[present.length] = keys[i];
    }
  }
  watched[watched.length] = { target, label, keys: present, every: !names, saved };
}

const typedArrays = ['Int8Array', 'Uint8Array', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array'];
const global = globalThis as unknown as Record<string, { prototype?: object } | undefined>;
watch(globalThis, 'globalThis', ['Array', 'Object', 'String', 'Number', 'Function', 'Reflect', 'Math', 'RegExp', 'ArrayBuffer', 'TextDecoder', 'WebAssembly', 'Error', 'TypeError', ...typedArrays]);
for (const name of ['Array', 'Object', 'String', 'Function', 'RegExp', 'ArrayBuffer', 'TextDecoder']) {
  watch(global[name], name);
  watch(global[name]?.prototype, `${name}.prototype`);
}
watch(Math, 'Math');
watch(Reflect, 'Reflect');
const typedArray = getPrototypeOf(Uint8Array) as { prototype: object };
watch(typedArray, 'TypedArray');
watch(typedArray.prototype, 'TypedArray.prototype');
for (const name of typedArrays) watch(global[name]?.prototype, `${name}.prototype`);
watch(getPrototypeOf([][Symbol.iterator]()), 'ArrayIteratorPrototype');

// Same property: the same value or accessors (attributes may differ: a page that freezes the built-ins
// changed nothing the core reads).
function same(now: PropertyDescriptor | undefined, was: PropertyDescriptor | undefined): boolean {
  if (!now || !was) return now === was;
  return is(now.value, was.value) && is(now.get, was.get) && is(now.set, was.set);
}

// What a call changed back, to put back after it: a prototype-less list (an index written into an array could
// meet the very accessor being lifted).
interface Change {
  target: object;
  key: PropertyKey;
  was: PropertyDescriptor | undefined; // the page's property, or undefined when the page added it
}
type Undo = { [index: number]: Change; length: number };

function putBack(undo: Undo): void {
  for (let i = undo.length - 1; i >= 0; i--) {
    const change = undo[i];
    if (change.was) defineProperty(change.target, change.key, change.was);
    else deleteProperty(change.target, change.key);
  }
}

function setBack(target: object, key: PropertyKey, descriptor: PropertyDescriptor | undefined): boolean {
  try {
    return descriptor ? defineProperty(target, key, descriptor) : deleteProperty(target, key);
  } catch {
    return false; // an exotic object that throws instead of answering false
  }
}

// Sets every watched property back to its value at load. Returns what to put back afterwards, or the name of
// a property that could not be set back (then nothing is left changed).
function lift(): Undo | string {
  const undo = create(null) as Undo;
  undo.length = 0;
  for (let w = 0; w < watched.length; w++) {
    const { target, label, keys, every, saved } = watched[w];
    // Added keys first: setting Array.prototype.length back would delete an added index unrecorded.
    const current = every ? ownKeys(target) : [];
    for (let i = 0; i < current.length; i++) {
      const key = current[i];
      if (hasOwn(saved, key)) continue;
      const now = getOwnPropertyDescriptor(target, key);
      if (!setBack(target, key, undefined)) {
        putBack(undo);
        return `${label}[${stringOf(key)}]`;
      }
      undo[undo.length++] = { target, key, was: now && bare(now) };
    }
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const now = getOwnPropertyDescriptor(target, key);
      if (same(now, saved[key as string])) continue;
      if (!setBack(target, key, saved[key as string])) {
        putBack(undo);
        return `${label}.${stringOf(key)}`;
      }
      undo[undo.length++] = { target, key, was: now && bare(now) };
    }
  }
  return undo;
}

let depth = 0; // a call made from inside a call (a progress callback) finds the built-ins already set back

function refusal(property: string): { ok: false; error: ErrorView } {
  return {
    ok: false,
    error: {
      kind: 'internal',
      message: `this page changed JavaScript's built-in ${property} so that it cannot be set back for the lesson's calls`,
      field: '',
      index: -1,
      sentence: 'The page this lesson is on changed a JavaScript built-in the lesson needs; the lesson cannot compute here.',
    },
  };
}

// Runs one call with the built-ins as they were at load.
function shielded<T>(call: () => T): T | { ok: false; error: ErrorView } {
  if (depth > 0) return call();
  const undo = lift();
  if (typeof undo === 'string') return refusal(undo);
  depth++;
  try {
    return call();
  } finally {
    depth--;
    putBack(undo);
  }
}

// A fresh copy of a request: strings well-formed, arrays dense, objects plain (own enumerable string keys);
// functions (a progress callback) are passed as they are. Runs inside shielded.
function fresh(value: unknown): unknown {
  if (typeof value === 'string') return wellFormed(value);
  if (typeof value !== 'object' || value === null) return value;
  if (isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) out[i] = fresh(value[i]);
    return out;
  }
  const out: Record<string, unknown> = {};
  const keys = stringKeys(value);
  for (let i = 0; i < keys.length; i++) out[keys[i]] = fresh((value as Record<string, unknown>)[keys[i]]);
  return out;
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

// A module's calls, each through the boundary above (a call's arguments copied by `fresh`, functions passed as
// they are). Each method is looked up at its call, as the module's own wrappers are installed once its runtime
// starts. The scale section's module can go through it too: guardCalls(module, ['scale']).
export function guardCalls<T extends object>(module: T, names: readonly (keyof T & string)[]): T {
  const out = {} as Record<string, unknown>;
  let entered = 0; // this module's calls now on the stack: a progress callback may call in again
  for (const name of names)
    out[name] = (...args: unknown[]) => {
      const before = stopped.get(out);
      if (before) return stoppedError(before);
      return shielded(() => {
        const copied: unknown[] = [];
        for (let i = 0; i < args.length; i++) copied[i] = fresh(args[i]);
        entered++;
        try {
          const result = apply(module[name] as (...args: unknown[]) => unknown, module, copied);
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
      });
    };
  return out as T;
}

const coreCalls = ['fixture', 'evaluate', 'numericalChecksStep', 'exercises', 'checkAnswer', 'lessonOutcome', 'selfScoreSummary', 'findSeedWithProgress', 'provenance'] as const satisfies readonly (keyof QkvCore)[];

// The page's core (core.ts) and the self-score worker's, every call through the boundary.
export function guardCore(module: QkvCore): QkvCore {
  return guardCalls(module, coreCalls);
}
