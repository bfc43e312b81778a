// The lesson on a slow phone over a slow line (issue 19): a benchmark, not a test. It prints a table,
// writes bench/phone-results.json and exits 0 whatever the figures (non-zero only if it cannot measure).
//   npm run bench:phone            (after scripts/build.sh; serves dist/ with scripts/serve.mjs, which compresses)
//
// The profile, Lighthouse's "mobile" one applied for real (not simulated) in headless Chromium through the
// DevTools protocol: the CPU slowed 4×, 1.6 Mbps down, 750 kbps up, 150 ms round trip, no cache, a 412×823
// viewport. For each of `loads` cold loads (a fresh context: nothing cached, no service worker yet):
//   ready        navigation start → data-state="ready" (the diagram's evidence computed and rendered)
//   first frame  navigation start → the first animation frame after ready (the lesson painted)
//   opening      navigation start → the first animation frame with the opening question on screen (the lesson's
//                own text: prerendered in the HTML, or the element's at ready); and the page's first contentful paint
//   long tasks   tasks over 50 ms from ready until the network is idle and 2 s more (PerformanceObserver)
//   long frames  the same for animation frames (long-animation-frame): a frame's scripts and its rendering (style,
//                layout, paint), which the longtask entries leave out when no script task runs before it, as when
//                the rest of the lesson is laid out; a frame that spans ready counts from ready
//   downloads    every response: bytes on the wire (as sent by the server, compressed), how many .wasm
//                files, and whether the .wasm request started before the main script's response ended
// Then Lighthouse 12 (mobile preset, its own simulated throttling) on the same server, `audits` runs:
// performance and accessibility scores, LCP, TBT, CLS. And navigation → ready in Chromium, Firefox ESR and
// WebKitGTK side by side on this machine, without throttling (bench/engines-ready.mjs), if that script exists.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { launchBrowser, startServer, waitReady } from '../tests/browser/harness.mjs';
import { watchDownloads } from './cold-load.mjs';
import { openPhonePage, profile, readLongWork, watchLongWork } from './phone-profile.mjs';
import { median, round } from './stats.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const loads = 5;
const audits = 3;
const goals = { openingMs: 600, readyMs: 1000, longTasksAfterReady: 0, wasmDownloads: 1, performance: 95, accessibility: 100 };

async function coldLoad(browser, url) {
  const { context, page, cdp } = await openPhonePage(browser);
  // Wire sizes per request, from the protocol (Playwright's sizes() reports decoded bodies for some).
  const wire = new Map();
  cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => wire.set(requestId, encodedDataLength));
  const urls = new Map();
  cdp.on('Network.requestWillBeSent', ({ requestId, request }) => urls.set(requestId, request.url));
  const problems = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console.${message.type()}: ${message.text()}`);
  });
  const downloaded = watchDownloads(context);
  await watchLongWork(page);
  await page.goto(url);
  await waitReady(page, 60000);
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(2000);
  const figures = await page.evaluate(() => {
    const resources = performance.getEntriesByType('resource');
    const script = resources.find((entry) => entry.initiatorType === 'script' || /\/assets\/[^/]*\.js$/.test(entry.name));
    const wasm = resources.find((entry) => entry.name.endsWith('.wasm'));
    return {
      wasmStart: wasm?.startTime,
      scriptEnd: script?.responseEnd,
    };
  });
  const longWork = await readLongWork(page);
  const downloads = [...wire].map(([id, bytes]) => ({ url: urls.get(id) ?? id, bytes }));
  await context.close();
  return { ...figures, ...longWork, wasmDownloads: downloaded.wasmDownloads().length, downloads, problems };
}

async function lighthouseRuns(url) {
  const runs = [];
  for (let run = 0; run < audits; run += 1) {
    const chrome = await chromeLauncher.launch({
      chromePath: '/usr/bin/chromium',
      chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    try {
      const result = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance', 'accessibility'] });
      const { categories, audits: found } = result.lhr;
      runs.push({
        performance: round(categories.performance.score * 100, 0),
        accessibility: round(categories.accessibility.score * 100, 0),
        lcpMs: found['largest-contentful-paint'].numericValue,
        tbtMs: found['total-blocking-time'].numericValue,
        cls: found['cumulative-layout-shift'].numericValue,
        fcpMs: found['first-contentful-paint'].numericValue,
      });
    } finally {
      await chrome.kill();
    }
  }
  return runs;
}

// bench/engines-ready.mjs's table (its printed lines), run as a child process.
function enginesReady() {
  const script = resolve(here, 'engines-ready.mjs');
  if (!existsSync(script)) return null;
  const run = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 900000 });
  const lines = (run.stdout || '').trim().split('\n').filter(Boolean);
  return run.status === 0 ? lines : [`engines-ready.mjs failed: ${(run.stderr || '').trim().split('\n').slice(-2).join(' ')}`];
}

const server = await startServer();
const browser = await launchBrowser();
const samples = [];
try {
  for (let load = 0; load < loads; load += 1) samples.push(await coldLoad(browser, server.url));
} finally {
  await browser.close();
}
let audited;
try {
  audited = await lighthouseRuns(server.url);
} finally {
  await server.close();
}
const engines = enginesReady();

const pick = (key) => samples.map((sample) => sample[key]);
const first = samples[0];
const result = {
  date: new Date().toISOString(),
  machine: { cpu: cpus()[0]?.model, cores: cpus().length, loadavg: loadavg().map((x) => round(x)) },
  profile,
  goals,
  loads,
  readyMs: round(median(pick('ready')), 0),
  readyRangeMs: [round(Math.min(...pick('ready')), 0), round(Math.max(...pick('ready')), 0)],
  firstFrameMs: round(median(pick('firstFrame')), 0),
  openingMs: round(median(pick('opening')), 0),
  firstContentfulPaintMs: round(median(pick('firstContentfulPaint')), 0),
  longTasksAfterReady: samples.map((sample) => sample.longTasksAfterReady.map((task) => round(task.duration, 0))),
  longTasksBeforeReady: samples.map((sample) => sample.longTasksBeforeReady.map((task) => round(task.duration, 0))),
  longFramesAfterReady: samples.map((sample) => sample.longFramesAfterReady.map((frame) => round(frame.after, 0))),
  // Each such frame's start after ready and what it ran (a long task lies within one).
  longFramesRan: samples.map((sample) => sample.longFramesAfterReady.map((frame) => `+${Math.round(frame.start)} ms, ${Math.round(frame.duration)} ms: ${frame.ran}`)),
  wasmDownloads: pick('wasmDownloads'),
  wasmStartedBeforeScriptEnded: samples.map((sample) => sample.wasmStart !== undefined && sample.scriptEnd !== undefined && sample.wasmStart < sample.scriptEnd),
  downloads: first.downloads.map(({ url, bytes }) => ({ path: new URL(url).pathname, bytes })),
  downloadedBytes: first.downloads.reduce((total, file) => total + file.bytes, 0),
  lighthouse: {
    runs: audited,
    performance: median(audited.map((run) => run.performance)),
    accessibility: median(audited.map((run) => run.accessibility)),
    lcpMs: round(median(audited.map((run) => run.lcpMs)), 0),
    tbtMs: round(median(audited.map((run) => run.tbtMs)), 0),
    cls: round(median(audited.map((run) => run.cls)), 3),
  },
  engines,
  problems: samples.flatMap((sample) => sample.problems),
};
await writeFile(resolve(here, 'phone-results.json'), `${JSON.stringify(result, null, 2)}\n`);

const met = (ok) => (ok ? 'met' : 'NOT met');
const lines = [
  `Slow phone: CPU ÷${profile.cpuSlowdown}, ${profile.downKbps / 1000} Mbps, ${profile.rttMs} ms RTT, no cache; ${loads} cold loads; ${result.machine.cpu}, load ${result.machine.loadavg.join(' ')}`,
  `  ready (navigation → data-state=ready)   median ${result.readyMs} ms (${result.readyRangeMs.join('–')})   goal ≤ ${goals.readyMs}: ${met(result.readyMs <= goals.readyMs)}`,
  `  first frame after ready                median ${result.firstFrameMs} ms`,
  `  the opening question's first frame     median ${result.openingMs} ms   goal ≤ ${goals.openingMs}: ${met(result.openingMs <= goals.openingMs)}`,
  `  first contentful paint (the page's)    median ${result.firstContentfulPaintMs} ms`,
  `  tasks > 50 ms after ready              ${result.longTasksAfterReady.map((list) => `[${list.join(', ')}]`).join(' ')}`,
  `  frames > 50 ms after ready             ${result.longFramesAfterReady.map((list) => `[${list.join(', ')}]`).join(' ')}   goal none (tasks and frames): ${met([...result.longTasksAfterReady, ...result.longFramesAfterReady].every((list) => list.length === 0))}`,
  ...result.longFramesRan.flatMap((frames, load) => frames.map((frame) => `      load ${load + 1}, ${frame}`)),
  `  tasks > 50 ms before ready             ${result.longTasksBeforeReady.map((list) => `[${list.join(', ')}]`).join(' ')}`,
  `  .wasm downloads per load               ${result.wasmDownloads.join(' ')}   goal 1: ${met(result.wasmDownloads.every((count) => count === goals.wasmDownloads))}`,
  `  .wasm requested before script arrived  ${result.wasmStartedBeforeScriptEnded.join(' ')}`,
  `  bytes on the wire (first load)         ${result.downloadedBytes} in ${result.downloads.length} responses`,
  ...result.downloads.map((file) => `      ${String(file.bytes).padStart(8)}  ${file.path}`),
  `Lighthouse 12 mobile, ${audits} runs: performance ${audited.map((run) => run.performance).join(' ')} (goal ≥ ${goals.performance}: ${met(result.lighthouse.performance >= goals.performance)}), accessibility ${audited.map((run) => run.accessibility).join(' ')}, LCP ${result.lighthouse.lcpMs} ms, TBT ${result.lighthouse.tbtMs} ms, CLS ${result.lighthouse.cls}`,
  ...(engines === null ? ['Engines side by side: bench/engines-ready.mjs not found'] : ['Engines side by side, without throttling (bench/engines-ready.mjs):', ...engines.map((line) => `  ${line}`)]),
  result.problems.length ? `Console problems: ${result.problems.join(' | ')}` : 'No console errors or warnings.',
];
console.log(lines.join('\n'));
