// bench:core: the Q/K/V layer's forward and backward (18·B·T·D·H flops: X·W, U·Wᵀ and Xᵀ·U for each of Q,
// K and V) timed in four implementations on the same shapes: the native tool (`qkv-lesson bench`, AVX-512F
// or AVX2 where the CPU has it), the tests' WebAssembly module in Node without SIMD and with SIMD (bench/core-wasm.mjs),
// and numpy on single-threaded OpenBLAS (bench/core_numpy.py). A benchmark, not a test (not in `npm test`):
// it prints a table, writes bench/core-results.json and exits 0 unless something could not be measured.
//   npm run bench:core [-- --rounds N] [-- --no-pin] [-- --cpu 1] [-- --build build/speed] [-- --sizes 1x8x3x2,1x128x64x16]
//                      [-- --only native,WASM]
// The results record the machine (qkv-machine: CPU vendor, family, model, stepping, name, AVX2/AVX-512F/FMA,
// L1d/L2/L3 sizes) and the matmul kernel's plan: the path and blocking the native children ran with. The
// kernel's environment (QKV_GEMM_PATH=portable|avx2|avx512f, QKV_GEMM_L1D, QKV_GEMM_L2, QKV_GEMM_BLOCKING)
// reaches the children and qkv-machine alike.
// Each measurement is its own child process (one process tree); for each size the implementations take
// turns, round after round (the first of each round rotates), so slow drifts of the machine's load fall
// on all of them alike. Each child reports the median of its runs; the table shows the median over rounds.
// Children are pinned to CPU 0 (`taskset -c 0`, or --cpu N) unless --no-pin: one core for every implementation.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './stats.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const rounds = Number.parseInt(option('--rounds', '5'), 10);
const pin = !args.includes('--no-pin');
const cpu = option('--cpu', '0');
const build = resolve(root, option('--build', 'build/native'));
const defaultSizes = '1x8x3x2,1x128x64x16,1x512x256x64,1x1024x768x64,4x1024x768x64,1x1024x768x768';
const sizes = option('--sizes', defaultSizes).split(',').map((text) => text.split('x').map((n) => Number.parseInt(n, 10)));

// Runs inside one measurement: more for small shapes, one for the largest (they take seconds in WASM).
const flopsOf = ([b, t, d, h]) => 18 * b * t * d * h;
const repeatFor = (size) => (flopsOf(size) >= 5e9 ? 1 : flopsOf(size) >= 5e8 ? 3 : 9);

const allImplementations = [
  { name: 'native', command: (s, r) => [`${build}/qkv-lesson`, 'bench', '--batch', s[0], '--tokens', s[1], '--model-width', s[2], '--head-width', s[3], '--repeat', r] },
  { name: 'WASM', command: (s, r) => [process.execPath, `${root}/bench/core-wasm.mjs`, '', ...s, r] },
  { name: 'WASM SIMD', command: (s, r) => [process.execPath, `${root}/bench/core-wasm.mjs`, '-simd', ...s, r] },
  { name: 'numpy+OpenBLAS', command: (s, r) => ['/usr/bin/python3', `${root}/bench/core_numpy.py`, ...s, r] },
];

// The last line of a child's output, as JSON (pinned to one CPU unless --no-pin).
function runJson(program, rest) {
  const [file, argv] = pin ? ['taskset', ['-c', cpu, program, ...rest]] : [program, rest];
  const text = execFileSync(file, argv, { encoding: 'utf8', env: { ...process.env, OPENBLAS_NUM_THREADS: '1' }, maxBuffer: 1 << 20 });
  return JSON.parse(text.trim().split('\n').pop());
}

// --only native,numpy+OpenBLAS: a subset (numpy always runs: every ratio is to it).
const only = option('--only', '').split(',').filter(Boolean);
const implementations = allImplementations.filter((i) => only.length === 0 || only.includes(i.name) || i.name === 'numpy+OpenBLAS');

function measure(implementation, size) {
  const [program, ...rest] = implementation.command(size, repeatFor(size)).map(String);
  return runJson(program, rest);
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

const numpyInfo = measure(allImplementations[3], [1, 8, 3, 2]);
// The CPU as the C++ core reads it (cpuid, sysconf, /sys) and the kernel's plan, from the same build and
// environment as the native children: the path and blocking they ran.
const identity = runJson(`${build}/qkv-machine`, []);
const machine = {
  cpu: identity.cpu_model_name,
  vendor: identity.cpu_vendor,
  family: identity.cpu_family,
  model: identity.cpu_model,
  stepping: identity.cpu_stepping,
  avx2: identity.cpu_avx2,
  avx512f: identity.cpu_avx512f,
  fma: identity.cpu_fma,
  caches: { l1d_bytes: identity.l1d_bytes, l2_bytes: identity.l2_bytes, l3_bytes: identity.l3_bytes },
  gemm: {
    path: identity.gemm_path,
    reason: identity.gemm_path_reason,
    tile: identity.gemm_tile,
    blocked_for_l1d_l2: identity.gemm_blocked_for_l1d_l2,
    depth: identity.gemm_depth,
    block_rows: identity.gemm_block_rows,
    block_cols: identity.gemm_block_cols,
    environment: Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('QKV_GEMM_'))),
  },
  cores: cpus().length,
  load_average_before: loadBefore,
  load_average_after: loadavg(),
  pinned: pin ? `taskset -c ${cpu} (every child on CPU ${cpu})` : 'not pinned',
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
const { gemm, caches } = machine;
console.log(`\n${machine.cpu} (${machine.vendor} family ${machine.family} model ${machine.model} stepping ${machine.stepping}; avx2 ${machine.avx2}, avx512f ${machine.avx512f}, fma ${machine.fma}; L1d ${caches.l1d_bytes >> 10} KiB, L2 ${caches.l2_bytes >> 10} KiB, L3 ${caches.l3_bytes >> 10} KiB)`);
console.log(`kernel: ${gemm.path} (${gemm.reason}); tile ${gemm.tile}, depth ${gemm.depth}, blocks ${gemm.block_rows} rows x ${gemm.block_cols} columns`);
console.log(`${machine.cores} cores, load average ${loadBefore.map((x) => x.toFixed(2)).join(' ')} before, ${machine.load_average_after.map((x) => x.toFixed(2)).join(' ')} after; ${machine.pinned}; ${rounds} rounds`);
console.log(`${machine.versions.node}, ${machine.versions.gxx}, ${machine.versions.emscripten}, numpy ${machine.versions.numpy} on ${machine.versions.blas}`);
console.log(`${numpyPeak}. Written to bench/core-results.json.`);
