// Compares two builds on the slow phone of `npm run bench:phone` (bench/phone-profile.mjs) in alternating cold
// loads, so that the machine's drift falls on both alike: the lesson's own text's first frame, the opening
// question's, and ready (its first frame), each by the page's own clock and from outside (phone-profile.mjs's
// watchFromOutside) with their ratio; the page's first contentful paint; the long animation frames after
// ready (each one's time after ready, when over 50 ms), the blocking time after ready (those times over 50 ms,
// summed), the long tasks after ready (the longtask entries over 50 ms) and when data-laid-out came; and the load
// average at the end of the loads. A benchmark, not a test.
//   node bench/compare-phone.mjs DIST_A DIST_B [LOADS]      e.g. a worktree's dist/ against this one's
import { loadavg } from 'node:os';
import { alternateBuilds, bothMeasures, bothMeasuresLines } from './phone-profile.mjs';
import { median } from './stats.mjs';

const [first, second, loadsText = '6'] = process.argv.slice(2);
if (!first || !second) {
  console.error('usage: node bench/compare-phone.mjs DIST_A DIST_B [LOADS]');
  process.exit(2);
}
const loads = Number.parseInt(loadsText, 10);
const startLoad = loadavg().map((x) => x.toFixed(2)).join(' ');
const builds = [first, second];
const samples = await alternateBuilds(builds, loads);

const ms = (value) => `${Math.round(value)}`;
console.log(`${loads} alternating cold loads each; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')} at the end, ${startLoad} at the start`);
for (const [which, root] of builds.entries()) {
  const runs = samples[which];
  console.log(bothMeasuresLines(root, bothMeasures(runs)).join('\n'));
  const longest = Math.max(0, ...runs.flatMap((run) => run.longFramesAfterReady.map((frame) => frame.after)));
  const blocking = (run) => run.longFramesAfterReady.reduce((sum, frame) => sum + frame.after - 50, 0);
  console.log(`  data-laid-out median ${ms(median(runs.map((run) => run.laidOut)))} ms after ready`);
  console.log(`  long tasks after ready: in ${runs.filter((run) => run.longTasksAfterReady.length > 0).length} of ${runs.length} loads ${runs.map((run) => `[${run.longTasksAfterReady.map((task) => ms(task.duration)).join(', ')}]`).join(' ')}`);
  console.log(`  long frames after ready: in ${runs.filter((run) => run.longFramesAfterReady.length > 0).length} of ${runs.length} loads ${runs.map((run) => `[${run.longFramesAfterReady.map((frame) => ms(frame.after)).join(', ')}]`).join(' ')}; longest ${ms(longest)} ms; blocking after ready median ${ms(median(runs.map(blocking)))} ms`);
}
