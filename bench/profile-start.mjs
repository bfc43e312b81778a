// Where the start goes (core loaded → ready, the `qkv-lesson-start` measure) on the slow phone: a benchmark, not a
// test. Build the page unminified first, so that function names survive:
//   npx vite build web --logLevel warn --minify false --outDir /tmp/unminified
//   node bench/profile-start.mjs [--dist /tmp/unminified] [--against OLD/dist] [--loads 3] [--top 30]
// With --against, the loads alternate with an old build's (the order reversed each round), and the start measure and
// the core calls are printed for both. Each cold load runs under the phone profile (bench/phone-profile.mjs) with the DevTools protocol's sampling
// profiler at 200 µs. Printed: the start measure's median, how many times the start called each core function
// (and its ms), and the functions the samples inside the element's startOn fell in, by total and by self time
// (medians over the loads). Numbers from a minified build name its mangled functions.
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { serve } from '../scripts/serve.mjs';
import { countCoreCalls, csp, dist, launchBrowser, waitReady } from '../tests/browser/harness.mjs';
import { openPhonePage } from './phone-profile.mjs';
import { median, round } from './stats.mjs';

const { values: options } = parseArgs({ options: { dist: { type: 'string', default: dist }, against: { type: 'string' }, loads: { type: 'string', default: '3' }, top: { type: 'string', default: '30' } } });
const samplingMicroseconds = 200;

// Time per function among the samples under startOn: total (the function on the stack) and self (at its top).
function startProfile(profile) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const label = ({ callFrame: { functionName, url, lineNumber } }) => `${functionName || '(anonymous)'} ${url.split('/').pop()}:${lineNumber + 1}`;
  const total = new Map();
  const self = new Map();
  profile.samples.forEach((id, at) => {
    const ms = (profile.timeDeltas[at + 1] ?? samplingMicroseconds) / 1000;
    const path = [];
    let inStart = false;
    for (let node = id; node !== undefined; node = parent.get(node)) {
      if (nodes.get(node).callFrame.functionName === 'startOn') inStart = true;
      path.push(label(nodes.get(node)));
    }
    if (!inStart) return;
    const below = path.slice(0, path.findIndex((name) => name.startsWith('startOn ')));
    self.set(path[0], (self.get(path[0]) ?? 0) + ms);
    for (const name of new Set(below)) total.set(name, (total.get(name) ?? 0) + ms);
  });
  return { total, self };
}

async function profileLoad(browser, url) {
  const { context, page, cdp } = await openPhonePage(browser);
  try {
    await page.addInitScript(countCoreCalls);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: samplingMicroseconds });
    await cdp.send('Profiler.start');
    await page.goto(url, { waitUntil: 'commit' });
    await waitReady(page, 60000);
    const { profile } = await cdp.send('Profiler.stop');
    const { start, calls } = await page.evaluate(() => ({ start: performance.getEntriesByName('qkv-lesson-start')[0]?.duration, calls: window.__coreCalls?.start }));
    return { start, calls, ...startProfile(profile), loadAverage: loadavg()[0] };
  } finally {
    await context.close();
  }
}

const loads = Number.parseInt(options.loads, 10);
const top = Number.parseInt(options.top, 10);
const roots = [options.dist, ...(options.against ? [options.against] : [])].map((root) => resolve(root));
const servers = await Promise.all(roots.map((root) => serve({ root, port: 0, csp })));
const browser = await launchBrowser();
const samplesPerBuild = roots.map(() => []);
try {
  for (let load = 0; load < loads; load++) {
    const order = roots.map((_, which) => which);
    for (const which of load % 2 ? order : order.reverse()) samplesPerBuild[which].push(await profileLoad(browser, `http://127.0.0.1:${servers[which].address().port}/`));
  }
} finally {
  await browser.close();
  await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
}

// The start measure and the core calls of one build's loads.
const startLines = (root, samples) => {
  const callNames = [...new Set(samples.flatMap((sample) => Object.keys(sample.calls ?? {})))];
  return [
    `${root}: ${samples.length} cold loads at CPU ÷4 (the phone profile), load average ${samples.map((sample) => round(sample.loadAverage)).join(' ')}`,
    `  the start (qkv-lesson-start): median ${round(median(samples.map((sample) => sample.start)), 1)} ms (${samples.map((sample) => round(sample.start, 0)).join(', ')})`,
    '  core calls during the start (count, ms; median):',
    ...callNames.map((name) => `    ${name.padEnd(28)} ${String(median(samples.map((sample) => sample.calls[name]?.count ?? 0))).padStart(4)}  ${round(median(samples.map((sample) => sample.calls[name]?.ms ?? 0)), 1)} ms`),
  ];
};
const samples = samplesPerBuild[0];
const ranked = (key) => {
  const names = new Set(samples.flatMap((sample) => [...sample[key].keys()]));
  return [...names].map((name) => [name, median(samples.map((sample) => sample[key].get(name) ?? 0))]).sort((a, b) => b[1] - a[1]).slice(0, top);
};
console.log(
  [
    ...roots.flatMap((root, which) => startLines(root, samplesPerBuild[which])),
    `${roots[0]}, under startOn, by total ms (median of the loads; ${samplingMicroseconds} µs samples):`,
    ...ranked('total').map(([name, ms]) => `  ${round(ms, 1).toString().padStart(7)}  ${name}`),
    'by self ms:',
    ...ranked('self').map(([name, ms]) => `  ${round(ms, 1).toString().padStart(7)}  ${name}`),
  ].join('\n'),
);
