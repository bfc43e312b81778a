#!/usr/bin/env node
// How small and how quick to start a module for the opening alone could be (docs/performance.md, open44): the
// gzip -9 bytes of each module's .wasm and glue, and in fresh Node processes (the runs alternate between the
// modules) the instantiation and the first fixture() and first evaluate(fixture's state), medians (both: of each
// run's sum).
//   cmake --build build/wasm-simd --target qkv_wasm_opening qkv_wasm_opening_check qkv_wasm_opening_start
//   node bench/opening-module.mjs [--runs 10]
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { median, round } from './stats.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const modules = {
  page: `${root}web/src/wasm/qkv-simd`,
  opening: `${root}build/wasm-simd/qkv-opening-simd`,
  opening_check: `${root}build/wasm-simd/qkv-opening-check-simd`,
  opening_start: `${root}build/wasm-simd/qkv-opening-start-simd`,
};

// One child: instantiate one module, time its first two calls, print the times as JSON.
async function child(base) {
  const { default: create } = await import(`${base}.mjs`);
  const wasmBinary = await readFile(`${base}.wasm`);
  let t = performance.now();
  const core = await create({ wasmBinary });
  const times = { instantiate: performance.now() - t };
  t = performance.now();
  const fixture = core.fixture();
  times.fixture = performance.now() - t;
  t = performance.now();
  const evaluated = core.evaluate({ state: fixture.state });
  times.evaluate = performance.now() - t;
  if (!fixture.ok || !evaluated.ok) throw new Error(`${base}: a call was refused`);
  times.both = times.fixture + times.evaluate;
  process.stdout.write(JSON.stringify(times));
}

const gzipped = (file) => execFileSync('gzip', ['-9', '-c', file]).length;

function main(runs) {
  console.log(`load average before: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const samples = Object.fromEntries(Object.keys(modules).map((name) => [name, []]));
  for (let run = 0; run < runs; run++) {
    for (const [name, base] of Object.entries(modules)) {
      const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', base]);
      samples[name].push(JSON.parse(out));
    }
  }
  console.log(`load average after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log('| module | .wasm gzip -9 | glue gzip -9 | instantiate | first fixture | first evaluate | both |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const [name, base] of Object.entries(modules)) {
    const ms = (key) => `${round(median(samples[name].map((s) => s[key])), 1)} ms`;
    const row = [name, gzipped(`${base}.wasm`), gzipped(`${base}.mjs`), ms('instantiate'), ms('fixture'), ms('evaluate'), ms('both')];
    console.log(`| ${row.join(' | ')} |`);
  }
}

const args = process.argv.slice(2);
if (args[0] === '--child') await child(args[1]);
else main(Number(args[args.indexOf('--runs') + 1] || 10));
