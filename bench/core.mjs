// bench:core: the Q/K/V layer's forward and backward (18·B·T·D·H flops: X·W, U·Wᵀ and Xᵀ·U for each of Q,
// K and V) timed in four implementations on the same shapes: the native tool (`qkv-lesson bench`, AVX-512F
// or AVX2 where the CPU has it), the tests' WebAssembly module in Node without SIMD and with SIMD (bench/core-wasm.mjs),
// and numpy on single-threaded OpenBLAS (bench/core_numpy.py). A benchmark, not a test (not in `npm test`):
// it prints a table, writes bench/core-results.json and exits 0 unless something could not be measured.
//   npm run bench:core [-- --rounds N] [-- --no-pin] [-- --sizes 1x8x3x2,1x128x64x16]
// Each measurement is its own child process (one process tree); for each size the implementations take
// turns, round after round (the first of each round rotates), so slow drifts of the machine's load fall
// on all of them alike. Each child reports the median of its runs; the table shows the median over rounds.
// Children are pinned to CPU 0 (`taskset -c 0`) unless --no-pin: one core for every implementation.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './stats.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const rounds = Number.parseInt(option('--rounds', '5'), 10);
const pin = !args.includes('--no-pin');
const defaultSizes = '1x8x3x2,1x128x64x16,1x512x256x64,1x1024x768x64,4x1024x768x64,1x1024x768x768';
const sizes = option('--sizes', defaultSizes).split(',').map((text) => text.split('x').map((n) => Number.parseInt(n, 10)));

// Runs inside one measurement: more for small shapes, one for the largest (they take seconds in WASM).
const flopsOf = ([b, t, d, h]) => 18 * b * t * d * h;
const repeatFor = (size) => (flopsOf(size) >= 5e9 ? 1 : flopsOf(size) >= 5e8 ? 3 : 9);

const implementations = [
  { name: 'native', command: (s, r) => [`${root}/build/native/qkv-lesson`, 'bench', '--batch', s[0], '--tokens', s[1], '--model-width', s[2], '--head-width', s[3], '--repeat', r] },
  { name: 'WASM', command: (s, r) => [process.execPath, `${root}/bench/core-wasm.mjs`, '', ...s, r] },
  { name: 'WASM SIMD', command: (s, r) => [process.execPath, `${root}/bench/core-wasm.mjs`, '-simd', ...s, r] },
  { name: 'numpy+OpenBLAS', command: (s, r) => ['/usr/bin/python3', `${root}/bench/core_numpy.py`, ...s, r] },
];

function measure(implementation, size) {
  const [program, ...rest] = implementation.command(size, repeatFor(size)).map(String);
  const [file, argv] = pin ? ['taskset', ['-c', '0', program, ...rest]] : [program, rest];
  const text = execFileSync(file, argv, { encoding: 'utf8', env: { ...process.env, OPENBLAS_NUM_THREADS: '1' }, maxBuffer: 1 << 20 });
  return JSON.parse(text.trim().split('\n').pop());
}

const firstLine = (file, argv) => {
  try {
    return execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).split('\n')[0].trim();
  } catch {
    return 'unknown';
  }
};

const loadBefore = loadavg();
const started = Date.now();
const results = [];
for (const size of sizes) {
  const samples = Object.fromEntries(implementations.map((i) => [i.name, []]));
  const last = {};
  for (let round = 0; round < rounds; round++) {
    for (let turn = 0; turn < implementations.length; turn++) {
      const implementation = implementations[(round + turn) % implementations.length];
      const result = measure(implementation, size);
      samples[implementation.name].push(result.median_seconds);
      last[implementation.name] = result;
    }
  }
  const row = { shape: size, flops: flopsOf(size), repeat_per_round: repeatFor(size), rounds, implementations: {} };
  for (const { name } of implementations) {
    const seconds = median(samples[name]);
    row.implementations[name] = { median_seconds: seconds, gflops: flopsOf(size) / seconds / 1e9, peak_bytes: last[name].peak_bytes, seconds_per_round: samples[name] };
  }
  for (const { name } of implementations) row.implementations[name].ratio_to_numpy = row.implementations[name].gflops / row.implementations['numpy+OpenBLAS'].gflops;
  results.push(row);
  process.stderr.write(`measured [${size}] (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
}

const numpyInfo = measure(implementations[3], [1, 8, 3, 2]);
const machine = {
  cpu: readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? 'unknown',
  cores: cpus().length,
  avx2: /\bavx2\b/.test(readFileSync('/proc/cpuinfo', 'utf8')),
  avx512f: /\bavx512f\b/.test(readFileSync('/proc/cpuinfo', 'utf8')),
  load_average_before: loadBefore,
  load_average_after: loadavg(),
  pinned: pin ? 'taskset -c 0 (every child on CPU 0)' : 'not pinned',
  versions: {
    node: process.version,
    gxx: firstLine('g++', ['--version']),
    emscripten: firstLine('em++', ['--version']),
    python: firstLine('/usr/bin/python3', ['--version']),
    numpy: numpyInfo.numpy,
    blas: numpyInfo.blas,
  },
};
const numpyPeak = 'numpy peak: tracemalloc peak over one forward + backward, plus the bytes of X, W and U that exist before it';
writeFileSync(`${root}/bench/core-results.json`, `${JSON.stringify({ date: new Date().toISOString(), machine, note: numpyPeak, results }, null, 2)}\n`);

// The table: GFLOP/s (× numpy+OpenBLAS) and peak MB per implementation.
const mb = (bytes) => (bytes / 1e6).toFixed(bytes < 1e5 ? 3 : 1);
const header = ['shape [B,T,D]→H', 'GFLOP', ...implementations.map((i) => `${i.name} GFLOP/s (× numpy)`), ...implementations.map((i) => `${i.name} peak MB`)];
const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
for (const row of results) {
  const [b, t, d, h] = row.shape;
  const cells = [`[${b},${t},${d}]→${h}`, (row.flops / 1e9).toPrecision(3)];
  for (const { name } of implementations) {
    const x = row.implementations[name];
    cells.push(`${x.gflops.toPrecision(3)} (${x.ratio_to_numpy.toFixed(2)}×)`);
  }
  for (const { name } of implementations) cells.push(mb(row.implementations[name].peak_bytes));
  lines.push(`| ${cells.join(' | ')} |`);
}
console.log(lines.join('\n'));
console.log(`\n${machine.cpu}, ${machine.cores} cores, load average ${loadBefore.map((x) => x.toFixed(2)).join(' ')} before, ${machine.load_average_after.map((x) => x.toFixed(2)).join(' ')} after; ${machine.pinned}; ${rounds} rounds`);
console.log(`${machine.versions.node}, ${machine.versions.gxx}, ${machine.versions.emscripten}, numpy ${machine.versions.numpy} on ${machine.versions.blas}`);
console.log(`${numpyPeak}. Written to bench/core-results.json.`);
