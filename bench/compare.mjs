// Compares two builds of the site in alternating cold loads (a fresh browser context each), so that the
// machine's drift falls on both alike: navigation → ready and the first frame after ready, as
// bench/budgets.mjs measures them (requestAnimationFrame, then a task: the frame has been painted).
// A benchmark, not a test.
//   node bench/compare.mjs DIST_A DIST_B [LOADS]      e.g. a worktree's dist/ against this one's
import { serve } from '../scripts/serve.mjs';
import { csp, launchBrowser, waitReady } from '../tests/browser/harness.mjs';
import { median } from './stats.mjs';

const [first, second, loadsText = '15'] = process.argv.slice(2);
if (!first || !second) {
  console.error('usage: node bench/compare.mjs DIST_A DIST_B [LOADS]');
  process.exit(2);
}
const loads = Number.parseInt(loadsText, 10);
const builds = [first, second];
const servers = [];
for (const root of builds) {
  const server = await serve({ root, port: 0, csp });
  servers.push({ server, url: `http://127.0.0.1:${server.address().port}/` });
}
const browser = await launchBrowser();
const samples = builds.map(() => []);
for (let load = 0; load < loads; load++) {
  for (const which of load % 2 ? [0, 1] : [1, 0]) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.addInitScript(() => {
      document.addEventListener('qkv-lesson-ready', () => {
        window.__ready = performance.now();
        requestAnimationFrame(() => setTimeout(() => (window.__frame = performance.now()), 0));
      });
    });
    await page.goto(servers[which].url);
    await waitReady(page);
    await page.waitForFunction(() => window.__frame !== undefined);
    samples[which].push(await page.evaluate(() => [window.__ready, window.__frame]));
    await context.close();
  }
}
builds.forEach((root, which) => {
  const ready = median(samples[which].map(([r]) => r));
  const frame = median(samples[which].map(([, f]) => f));
  console.log(`${root}: ready ${ready.toFixed(1)} ms, first frame after ready ${frame.toFixed(1)} ms (medians of ${loads} cold loads)`);
});
await browser.close();
for (const { server } of servers) server.close();
