// What V8's lazy compilation of the page's WebAssembly costs the start on the slow phone: a benchmark, not a test.
//   node bench/eager-wasm.mjs [--loads 10]   (after `npm run build`; serves dist/)
// Two Chromiums, one as shipped and one with `--js-flags=--no-wasm-lazy-compilation` (the whole module compiled when
// it is, off the page's thread), load the built page in alternation under the phone profile (bench/phone-profile.mjs).
// Printed per browser: the start (core loaded → ready, `qkv-lesson-start`) and the core calls it makes (ms, medians).
// No shipping page can choose eager compilation (Chromium's compilation hints are behind a flag): this is the ceiling
// of what compiling the start's code before it runs could give.
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { serve } from '../scripts/serve.mjs';
import { countCoreCalls, csp, dist, launchBrowser, waitReady } from '../tests/browser/harness.mjs';
import { openPhonePage } from './phone-profile.mjs';
import { median, round } from './stats.mjs';

const { values: options } = parseArgs({ options: { loads: { type: 'string', default: '10' } } });
const browsers = { lazy: await launchBrowser(), eager: await launchBrowser({ extraArgs: ['--js-flags=--no-wasm-lazy-compilation'] }) };
const server = await serve({ root: dist, port: 0, csp });
const url = `http://127.0.0.1:${server.address().port}/`;
const samples = { lazy: [], eager: [] };
try {
  for (let load = 0; load < Number(options.loads); load++) {
    for (const name of load % 2 ? ['lazy', 'eager'] : ['eager', 'lazy']) {
      const { context, page } = await openPhonePage(browsers[name]);
      try {
        await page.addInitScript(countCoreCalls);
        await page.goto(url, { waitUntil: 'commit' });
        await waitReady(page, 60000);
        samples[name].push(await page.evaluate(() => ({ start: performance.getEntriesByName('qkv-lesson-start')[0]?.duration, calls: window.__coreCalls?.start })));
      } finally {
        await context.close();
      }
    }
  }
} finally {
  await Promise.all(Object.values(browsers).map((browser) => browser.close()));
  server.close();
}
for (const [name, runs] of Object.entries(samples)) {
  console.log(`${name}: the start, median ${round(median(runs.map((run) => run.start)), 1)} ms (${runs.map((run) => round(run.start, 0)).join(', ')})`);
  for (const call of Object.keys(runs[0].calls ?? {})) console.log(`  ${call.padEnd(16)} ${round(median(runs.map((run) => run.calls[call]?.ms ?? 0)), 1)} ms`);
}
console.log(`load average at the end: ${round(loadavg()[0])}`);
