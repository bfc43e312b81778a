// The evidence limit's largest accepted requests of the batch family (docs/cli.md, Limits), timed in WebAssembly:
// the tests' module with SIMD, in Node, three runs each after one warm-up. Run after scripts/build.sh:
//   node bench/evidence_limits.mjs
// (The native figures: time build/native/qkv-lesson evidence --input r.json with the same requests.)
import { evidenceRequest, loadTestCore } from '../tests/node/load.mjs';

const core = await loadTestCore('-simd');
// Cells cycle through -1.5 … 1.5: the cost depends on the shapes only.
const cells = (count) => Array.from({ length: count }, (_, i) => ((i % 7) - 3) / 2);
const request = (b, t, d, h) => evidenceRequest([b, t, d, h], (shape) => ({ shape, values: cells(shape.reduce((a, n) => a * n, 1)) }));
for (const [b, t, d, h] of [[36132, 1, 1, 1], [23437, 1, 4, 4], [26366, 4, 1, 1]]) {
  const asked = request(b, t, d, h);
  if (!core.evidence(asked).ok) throw new Error(`[${b},${t},${d}]→${h} was refused`);
  const seconds = [];
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    core.evidence(asked);
    seconds.push(((performance.now() - start) / 1000).toFixed(2));
  }
  console.log(`X [${b}, ${t}, ${d}] → ${h}: ${seconds.join(', ')} s`);
}
