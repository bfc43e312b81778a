// Compares two builds on the slow phone of `npm run bench:phone` (bench/phone-profile.mjs) in alternating cold
// loads, so that the machine's drift falls on both alike: navigation → the opening question's first frame and the
// first contentful paint, navigation → ready, the long animation frames after
// ready (each one's time after ready, when over 50 ms), the blocking time after ready (those times over 50 ms,
// summed), the long tasks after ready (the longtask entries over 50 ms) and when data-laid-out came. A benchmark, not a test.
//   node bench/compare-phone.mjs DIST_A DIST_B [LOADS]      e.g. a worktree's dist/ against this one's
import { loadavg } from 'node:os';
import { serve } from '../scripts/serve.mjs';
import { launchBrowser, waitReady } from '../tests/browser/harness.mjs';
import { openPhonePage, readLongWork, watchLongWork } from './phone-profile.mjs';
import { median } from './stats.mjs';

const [first, second, loadsText = '6'] = process.argv.slice(2);
if (!first || !second) {
  console.error('usage: node bench/compare-phone.mjs DIST_A DIST_B [LOADS]');
  process.exit(2);
}
const loads = Number.parseInt(loadsText, 10);
const startLoad = loadavg().map((x) => x.toFixed(2)).join(' ');
const builds = [first, second];
const servers = [];
for (const root of builds) {
  const server = await serve({ root, port: 0 }); // compresses, as npm start's server does
  servers.push({ server, url: `http://127.0.0.1:${server.address().port}/` });
}
const browser = await launchBrowser();
const samples = builds.map(() => []);
for (let load = 0; load < loads; load++) {
  for (const which of load % 2 ? [0, 1] : [1, 0]) {
    const { context, page } = await openPhonePage(browser);
    await watchLongWork(page);
    await page.goto(servers[which].url);
    await waitReady(page, 60000);
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(2000);
    const { ready, opening, firstContentfulPaint, laidOut, longTasksAfterReady, longFramesAfterReady } = await readLongWork(page);
    const longTasks = longTasksAfterReady.map((task) => task.duration);
    const longFrames = longFramesAfterReady.map((frame) => frame.after);
    samples[which].push({ ready, opening, firstContentfulPaint, laidOut, longFrames, longTasks, blocking: longFrames.reduce((sum, after) => sum + after - 50, 0) });
    await context.close();
  }
}
await browser.close();
for (const { server } of servers) server.close();

const ms = (value) => `${Math.round(value)}`;
const spread = (values) => `median ${ms(median(values))} ms (${ms(Math.min(...values))}–${ms(Math.max(...values))})`;
console.log(`${loads} alternating cold loads each; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')} at the end, ${startLoad} at the start`);
for (const [which, root] of builds.entries()) {
  const runs = samples[which];
  const ready = runs.map((run) => run.ready);
  console.log(`${root}: the opening question's first frame ${spread(runs.map((run) => run.opening))}; first contentful paint ${spread(runs.map((run) => run.firstContentfulPaint))}`);
  const longest = Math.max(0, ...runs.flatMap((run) => run.longFrames));
  console.log(`${root}: ready median ${ms(median(ready))} ms (${ms(Math.min(...ready))}–${ms(Math.max(...ready))}); data-laid-out median ${ms(median(runs.map((run) => run.laidOut)))} ms after ready`);
  console.log(`  long tasks after ready: in ${runs.filter((run) => run.longTasks.length > 0).length} of ${runs.length} loads ${runs.map((run) => `[${run.longTasks.map(ms).join(', ')}]`).join(' ')}`);
  console.log(`  long frames after ready: in ${runs.filter((run) => run.longFrames.length > 0).length} of ${runs.length} loads ${runs.map((run) => `[${run.longFrames.map(ms).join(', ')}]`).join(' ')}; longest ${ms(longest)} ms; blocking after ready median ${ms(median(runs.map((run) => run.blocking)))} ms`);
}
