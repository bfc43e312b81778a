// The lesson on a slow phone over a slow line (issues 19 and 42): a benchmark, not a test. It prints a table,
// writes bench/phone-results.json and exits 0 whatever the figures (non-zero only if it cannot measure).
//   npm run bench:phone [-- --against OLD/dist] [--loads N] [--only-loads]
// (after scripts/build.sh; serves dist/, and OLD/dist with --against, with scripts/serve.mjs, which compresses).
//
// The profile (bench/phone-profile.mjs), Lighthouse's "mobile" one applied for real (not simulated) in headless
// Chromium through the DevTools protocol: the CPU slowed 4×, 1.6 Mbps down, 750 kbps up, 150 ms round trip, no
// cache, a 412×823 mobile viewport, every file gzipped at level 9. For each of `loads` cold loads (a fresh
// context: nothing cached, no service worker yet), with --against alternating with the old build's:
//   lesson text  navigation → the first animation frame with the lesson's own text (its heading) laid out:
//                prerendered in the HTML, or the element's at ready; the page's first contentful paint may be the
//                page's own header, so it is reported apart
//   opening      navigation → the first animation frame with the opening question laid out
//   ready        navigation → the first animation frame after data-state="ready" (the lesson painted)
//                Each of these three twice, by two methods in the same load: the page's own clock (performance.now()
//                in a check once a frame), and from outside (Node's clock from page.goto, read when Playwright's
//                waitForFunction sees it), with outside ÷ page; and the load average at each load's end
//   long tasks   tasks over 50 ms from ready until the network is idle and 2 s more (PerformanceObserver)
//   long frames  the same for animation frames (long-animation-frame): a frame's scripts and its rendering (style,
//                layout, paint), which the longtask entries leave out when no script task runs before it, as when
//                the rest of the lesson is laid out; a frame that spans ready counts from ready
//   downloads    every response: bytes on the wire (as sent by the server, gzipped), how many .wasm
//                files, and whether the .wasm request started before the main script's response ended
// Then (unless --only-loads) Lighthouse 12 (mobile preset, its own simulated throttling) on dist/ served the same way,
// `audits` runs: performance and accessibility scores, LCP, TBT, CLS. And navigation → ready in Chromium, Firefox
// ESR and WebKitGTK side by side on this machine, without throttling (bench/engines-ready.mjs), if that script exists.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { dist, startServer } from '../tests/browser/harness.mjs';
import { watchDownloads } from './cold-load.mjs';
import { alternateBuilds, bothMeasures, bothMeasuresLines, measureLoad, profile } from './phone-profile.mjs';
import { median, round } from './stats.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { values: options } = parseArgs({ options: { against: { type: 'string' }, loads: { type: 'string', default: '5' }, 'only-loads': { type: 'boolean', default: false } } });
const loads = Number.parseInt(options.loads, 10);
const audits = 3;
const goals = { lessonText: 600, opening: 600, ready: 1000, longTasksAfterReady: 0, wasmDownloads: 1, performance: 95, accessibility: 100 };

// One cold load (bench/phone-profile.mjs measureLoad) with the downloads and console problems besides.
function coldLoad(browser, url) {
  return measureLoad(browser, url, ({ context, page, cdp }) => {
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
    return async () => {
      const figures = await page.evaluate(() => {
        const resources = performance.getEntriesByType('resource');
        const script = resources.find((entry) => entry.initiatorType === 'script' || /\/assets\/[^/]*\.js$/.test(entry.name));
        const wasm = resources.find((entry) => entry.name.endsWith('.wasm'));
        return { wasmStart: wasm?.startTime, scriptEnd: script?.responseEnd };
      });
      const downloads = [...wire].map(([id, bytes]) => ({ url: urls.get(id) ?? id, bytes }));
      return { ...figures, wasmDownloads: downloaded.wasmDownloads().length, downloads, problems };
    };
  });
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

const builds = [{ name: 'dist', root: dist }, ...(options.against ? [{ name: options.against, root: options.against }] : [])];
const samplesPerBuild = await alternateBuilds(
  builds.map(({ root }) => root),
  loads,
  coldLoad,
);
let audited = [];
if (!options['only-loads']) {
  const server = await startServer();
  try {
    audited = await lighthouseRuns(server.url);
  } finally {
    await server.close();
  }
}
const engines = options['only-loads'] ? [] : enginesReady();

// One build's loads, as phone-results.json keeps them.
function buildResult(samples) {
  const pick = (key) => samples.map((sample) => sample[key]);
  const first = samples[0];
  return {
    ...bothMeasures(samples),
    readyEventMs: round(median(pick('ready')), 0), // the qkv-lesson-ready event, before its frame
    longTasksAfterReady: samples.map((sample) => sample.longTasksAfterReady.map((task) => round(task.duration, 0))),
    longTasksBeforeReady: samples.map((sample) => sample.longTasksBeforeReady.map((task) => round(task.duration, 0))),
    longFramesAfterReady: samples.map((sample) => sample.longFramesAfterReady.map((frame) => round(frame.after, 0))),
    // Each such frame's start after ready and what it ran (a long task lies within one).
    longFramesRan: samples.map((sample) => sample.longFramesAfterReady.map((frame) => `+${Math.round(frame.start)} ms, ${Math.round(frame.duration)} ms: ${frame.ran}`)),
    wasmDownloads: pick('wasmDownloads'),
    wasmStartedBeforeScriptEnded: samples.map((sample) => sample.wasmStart !== undefined && sample.scriptEnd !== undefined && sample.wasmStart < sample.scriptEnd),
    downloads: first.downloads.map(({ url, bytes }) => ({ path: new URL(url).pathname, bytes })),
    downloadedBytes: first.downloads.reduce((total, file) => total + file.bytes, 0),
    problems: samples.flatMap((sample) => sample.problems),
  };
}

const result = {
  date: new Date().toISOString(),
  machine: { cpu: cpus()[0]?.model, cores: cpus().length, loadavg: loadavg().map((x) => round(x)) },
  profile,
  goals,
  loads,
  builds: Object.fromEntries(builds.map(({ name }, which) => [name, buildResult(samplesPerBuild[which])])),
  lighthouse: audited.length
    ? {
        runs: audited,
        performance: median(audited.map((run) => run.performance)),
        accessibility: median(audited.map((run) => run.accessibility)),
        lcpMs: round(median(audited.map((run) => run.lcpMs)), 0),
        tbtMs: round(median(audited.map((run) => run.tbtMs)), 0),
        cls: round(median(audited.map((run) => run.cls)), 3),
      }
    : null,
  engines,
};
await writeFile(resolve(here, 'phone-results.json'), `${JSON.stringify(result, null, 2)}\n`);

const met = (ok) => (ok ? 'met' : 'NOT met');
const buildLines = (name, build) => [
  ...bothMeasuresLines(name, build, goals),
  `  tasks > 50 ms after ready              ${build.longTasksAfterReady.map((list) => `[${list.join(', ')}]`).join(' ')}`,
  `  frames > 50 ms after ready             ${build.longFramesAfterReady.map((list) => `[${list.join(', ')}]`).join(' ')}   goal none (tasks and frames): ${met([...build.longTasksAfterReady, ...build.longFramesAfterReady].every((list) => list.length === 0))}`,
  ...build.longFramesRan.flatMap((frames, load) => frames.map((frame) => `      load ${load + 1}, ${frame}`)),
  `  tasks > 50 ms before ready             ${build.longTasksBeforeReady.map((list) => `[${list.join(', ')}]`).join(' ')}`,
  `  .wasm downloads per load               ${build.wasmDownloads.join(' ')}   goal 1: ${met(build.wasmDownloads.every((count) => count === goals.wasmDownloads))}`,
  `  .wasm requested before script arrived  ${build.wasmStartedBeforeScriptEnded.join(' ')}`,
  `  bytes on the wire (first load, gzip)   ${build.downloadedBytes} in ${build.downloads.length} responses`,
  ...build.downloads.map((file) => `      ${String(file.bytes).padStart(8)}  ${file.path}`),
  build.problems.length ? `  console problems: ${build.problems.join(' | ')}` : '  no console errors or warnings',
];
const { lighthouse: audit } = result;
const lines = [
  `Slow phone: CPU ÷${profile.cpuSlowdown}, ${profile.downKbps / 1000} Mbps, ${profile.rttMs} ms RTT, ${profile.viewport.width}×${profile.viewport.height} mobile, no cache, ${profile.encoding} -9; ${loads} cold load${loads === 1 ? '' : 's'}${options.against ? ' each, alternating' : ''}; ${result.machine.cpu}, load ${result.machine.loadavg.join(' ')} at the end`,
  ...Object.entries(result.builds).flatMap(([name, build]) => buildLines(name, build)),
  audit
    ? `Lighthouse 12 mobile, ${audits} runs: performance ${audited.map((run) => run.performance).join(' ')} (goal ≥ ${goals.performance}: ${met(audit.performance >= goals.performance)}), accessibility ${audited.map((run) => run.accessibility).join(' ')}, LCP ${audit.lcpMs} ms, TBT ${audit.tbtMs} ms, CLS ${audit.cls}`
    : 'Lighthouse: not run (--only-loads)',
  ...(engines === null ? ['Engines side by side: bench/engines-ready.mjs not found'] : engines.length ? ['Engines side by side, without throttling (bench/engines-ready.mjs):', ...engines.map((line) => `  ${line}`)] : []),
];
console.log(lines.join('\n'));
