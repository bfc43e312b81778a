// bench:core's WebAssembly runner (one process per measurement, started by bench/core.mjs): the tests'
// module, without SIMD or with it, runs `bench` as `qkv-lesson bench` does and prints its JSON line.
//   node bench/core-wasm.mjs SUFFIX B T D H REPEAT     (SUFFIX: "" or "-simd")
import { loadTestCore } from '../tests/node/load.mjs';

const [suffix, ...sizes] = process.argv.slice(2);
const [batch, tokens, model_width, head_width, repeat] = sizes.map((text) => Number.parseInt(text, 10));
const core = await loadTestCore(suffix);
// V8 compiles WebAssembly in a baseline tier first and optimises hot functions while they run: one small
// run first, so that the timed runs measure the optimised code (as a page does after its warm-up).
core.bench({ batch: 1, tokens: 128, model_width: 64, head_width: 16, repeat: 3 });
const result = core.bench({ batch, tokens, model_width, head_width, repeat });
if (!result.ok) {
  console.error(JSON.stringify(result.error));
  process.exit(2);
}
const { median_seconds, gflops, peak_bytes } = result;
console.log(JSON.stringify({ median_seconds, gflops, peak_bytes }));
