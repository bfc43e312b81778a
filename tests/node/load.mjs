// Loads the WebAssembly modules into Node: the page's (web/src/wasm) and the tests' (build/wasm), each in
// two variants built by scripts/build.sh from the same sources: without SIMD (for engines that lack it)
// and with -msimd128 (build/wasm-simd). All of them must give the native build's bits.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));

// The two variants, by the suffix of their file names.
export const variants = [
  { name: 'WASM', suffix: '', testDir: 'build/wasm' },
  { name: 'WASM SIMD', suffix: '-simd', testDir: 'build/wasm-simd' },
];

// The page's module (the variant without SIMD unless `suffix` is '-simd').
export async function loadCore(suffix = '') {
  const { default: create } = await import(`${root}web/src/wasm/qkv${suffix}.mjs`);
  // The module is built for the web; in Node it gets its bytes directly.
  return create({ wasmBinary: await readFile(`${root}web/src/wasm/qkv${suffix}.wasm`) });
}

// A core's numericalChecksStep asked until it is done, as the page asks it over idle moments: the last step's
// response, after `steps` calls.
export function numericalChecks(core, state) {
  for (let steps = 1; ; steps++) {
    const step = core.numericalChecksStep(state);
    if (!step.ok || step.done) return { ...step, steps };
  }
}

// The scale section's module (web/src/wasm/qkv-scale*.mjs): the core, the benchmark's pass and `scale` only.
export async function loadScaleCore(suffix = '') {
  const { default: create } = await import(`${root}web/src/wasm/qkv-scale${suffix}.mjs`);
  return create({ wasmBinary: await readFile(`${root}web/src/wasm/qkv-scale${suffix}.wasm`) });
}

// The tests' module: the page's calls plus numpy's generator, the chapter's report and trace, evidence for
// any request and the core benchmark (the page's module leaves these out).
export async function loadTestCore(suffix = '') {
  const dir = suffix === '-simd' ? 'build/wasm-simd' : 'build/wasm';
  const { default: create } = await import(`${root}${dir}/qkv-test${suffix}.mjs`);
  return create({ wasmBinary: await readFile(`${root}${dir}/qkv-test${suffix}.wasm`) });
}

// An evidence request (the tests' module's `evidence`, the CLI's --input) for X [b, t, d] and head width h,
// every tensor made by `tensor(shape)`: the one place that names the request's tensors and their shapes.
export function evidenceRequest([b, t, d, h], tensor) {
  return {
    input: tensor([b, t, d]),
    query_weight: tensor([d, h]),
    key_weight: tensor([d, h]),
    value_weight: tensor([d, h]),
    upstream: { query: tensor([b, t, h]), key: tensor([b, t, h]), value: tensor([b, t, h]) },
  };
}

export async function readJson(path) {
  return JSON.parse(await readFile(`${root}${path}`, 'utf8'));
}

// The IEEE-754 bit pattern of a double, as 16 hex digits.
export function bits(value) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  return view.getBigUint64(0).toString(16).padStart(16, '0');
}
