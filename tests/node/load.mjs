// Loads the WebAssembly module the page uses (web/src/wasm, built by scripts/build.sh) into Node.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));

export async function loadCore() {
  const { default: create } = await import(`${root}web/src/wasm/qkv.mjs`);
  // The module is built for the web; in Node it gets its bytes directly.
  return create({ wasmBinary: await readFile(`${root}web/src/wasm/qkv.wasm`) });
}

// The tests' module: the page's calls plus numpy's generator and the chapter's report and trace
// (build/wasm, built by scripts/build.sh; the page's module leaves these out).
export async function loadTestCore() {
  const { default: create } = await import(`${root}build/wasm/qkv-test.mjs`);
  return create({ wasmBinary: await readFile(`${root}build/wasm/qkv-test.wasm`) });
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
