// Performance budgets of the built lesson (dist/), measured in headless Chromium on loopback.
// A benchmark, not a test: it prints a table, writes bench/results.json and says which goals are met;
// it exits 0 either way (non-zero only if it cannot measure at all). Timings depend on the machine's load,
// which is printed with them.
//   npm run bench            (after scripts/build.sh)
//
// (a) bytes: every response a learner's browser requests during a cold load of dist/index.html (the page's and
//     its workers'), each body gzipped here with zlib level 9 (what a server with gzip -9 would send); fonts
//     counted separately. A file asked for twice is counted once, and the .wasm requests are counted too
//     (one: the self-score worker gets the page's compiled module).
//     Goal ≤ 150 kB (1 kB = 1000 bytes) without the fonts.
// (b) load: navigation start → the first frame after data-state="ready" (the lesson painted: that frame's
//     style, layout and paint of its header; laid-out.ts), median of 10 cold loads (a fresh context each:
//     no cache; Chromium as tests/browser/harness.mjs launches it), with the phases: scripts, .wasm fetch,
//     compile, the element's start(core) (its C++ calls timed apart from the JS building the DOM), ready, and
//     data-laid-out (the rest of the lesson, laid out top down after that). Goal ≤ 200 ms.
// (c) edit: set X[0] and dispatch 'input' → the synchronous qkv-lesson-rendered event, 100 edits on the
//     standalone page (sync-url on); median and p95, the first 10 separately (WebAssembly and JS tier up).
//     Then, on warm code, 100 edits alternating with and without sync-url (its history.replaceState), the
//     C++ core.evaluate timed alone, and each edit plus the style/layout it causes. Goal p95 ≤ 8 ms.
// The phase timings use benchmark-only hooks installed in the page (WebAssembly.instantiate*, the element's
// start method, history.replaceState); the page itself is unchanged.
import { writeFile } from 'node:fs/promises';
import { loadavg, cpus } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { countCoreCalls, launchBrowser, startServer, waitReady } from '../tests/browser/harness.mjs';
import { watchDownloads } from './cold-load.mjs';
import { median, quantile, round } from './stats.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const goals = { bytes: 150_000, paintedMs: 200, editP95Ms: 8 };
const loads = 10;
const edits = 100;

const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;
const isFont = (url) => /\.(woff2?|ttf|otf)(\?|$)/.test(url);

async function newPage(browser) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console.${message.type()}: ${message.text()}`);
  });
  return { context, page, problems };
}

// (a) What a cold load downloads.
async function measureBytes(browser, url) {
  const { context, page, problems } = await newPage(browser);
  const downloads = watchDownloads(context);
  await page.goto(url);
  await waitReady(page);
  await page.evaluate(() => document.fonts.ready.then(() => undefined));
  await page.waitForLoadState('networkidle');
  const files = [];
  const seen = new Set();
  for (const response of downloads.responses) {
    // Chromium asks for the favicon twice; a file is downloaded once.
    if (seen.has(response.url())) continue;
    seen.add(response.url());
    const body = await response.body().catch(() => null);
    if (!body) continue;
    const path = new URL(response.url()).pathname;
    files.push({ path, name: basename(path) || 'index.html', font: isFont(path), raw: body.length, gzip: gzipSync(body, { level: 9 }).length, status: response.status() });
  }
  await context.close();
  const sum = (list, key) => list.reduce((total, file) => total + file[key], 0);
  const code = files.filter((file) => !file.font);
  const fonts = files.filter((file) => file.font);
  return {
    files: files.sort((a, b) => b.gzip - a.gzip),
    requests: files.length,
    codeRaw: sum(code, 'raw'),
    codeGzip: sum(code, 'gzip'),
    fontCount: fonts.length,
    fontRaw: sum(fonts, 'raw'),
    fontGzip: sum(fonts, 'gzip'),
    wasmGzip: sum(code.filter((file) => file.path.endsWith('.wasm')), 'gzip'),
    wasmRequests: downloads.wasmDownloads().length,
    jsGzip: sum(code.filter((file) => file.path.endsWith('.js')), 'gzip'),
    problems,
  };
}

// (b) Navigation start → ready, with where the time went.
async function measureLoad(browser, url) {
  const { context, page, problems } = await newPage(browser);
  await page.addInitScript(() => {
    // performance.now() counts from the navigation start. Benchmark-only hooks: when the WASM compile
    // starts and ends, when the first diagram is rendered, when the element is ready.
    window.__marks = {};
    const mark = (name) => {
      window.__marks[name] ??= performance.now();
    };
    for (const name of ['instantiateStreaming', 'instantiate']) {
      const original = WebAssembly[name];
      WebAssembly[name] = function (...args) {
        mark('compileStart');
        return original.apply(this, args).then((result) => {
          mark('compileEnd');
          return result;
        });
      };
    }
    document.addEventListener('qkv-lesson-rendered', () => mark('firstRender'));
    document.addEventListener('qkv-lesson-ready', (event) => {
      mark('ready');
      // The first frame after ready: the style and layout of what the viewport shows before it can be
      // painted (the header alone). After it, the element lays out the rest top down, a few stretches a frame,
      // and then sets data-laid-out.
      requestAnimationFrame(() => setTimeout(() => mark('frameAfterReady'), 0));
      const lesson = event.target;
      new MutationObserver((_, observer) => {
        if (lesson.dataset.laidOut === undefined) return;
        observer.disconnect();
        requestAnimationFrame(() => setTimeout(() => mark('laidOut'), 0));
      }).observe(lesson, { attributes: true, attributeFilter: ['data-laid-out'] });
    });
  });
  // The element's startOn and the core calls made inside it, timed; without that method they stay unset and the
  // run stops (below) rather than print NaN.
  await page.addInitScript(countCoreCalls);
  const started = Date.now();
  await page.goto(url);
  await waitReady(page);
  const wall = Date.now() - started;
  const timing = await page.evaluate(() => {
    const navigation = performance.getEntriesByType('navigation')[0];
    const resources = performance.getEntriesByType('resource');
    const find = (suffix) => resources.filter((entry) => entry.name.split('?')[0].endsWith(suffix));
    const max = (entries, key) => Math.max(0, ...entries.map((entry) => entry[key]));
    const marks = window.__marks;
    return {
      ready: marks.ready,
      domContentLoaded: navigation.domContentLoadedEventEnd,
      scriptsLoaded: max(find('.js'), 'responseEnd'),
      wasmRequested: max(find('.wasm'), 'startTime'),
      wasmLoaded: max(find('.wasm'), 'responseEnd'),
      compileStart: marks.compileStart,
      compileEnd: marks.compileEnd,
      firstRender: marks.firstRender,
      startBegin: window.__coreCalls?.startBegin,
      startEnd: window.__coreCalls?.startEnd,
      coreInStart: Object.values(window.__coreCalls?.start ?? {}).reduce((sum, { ms }) => sum + ms, 0),
      coreCalls: Object.fromEntries(Object.entries(window.__coreCalls?.start ?? {}).map(([name, { ms }]) => [name, ms])),
    };
  });
  if (timing.startBegin === undefined || timing.startEnd === undefined) throw new Error('the element\'s startOn(core, …) was not timed: it has been renamed (harness countCoreCalls hooks it by name)');
  await page.waitForFunction(() => window.__marks.frameAfterReady !== undefined && window.__marks.laidOut !== undefined);
  Object.assign(timing, await page.evaluate(() => ({ frameAfterReady: window.__marks.frameAfterReady, laidOut: window.__marks.laidOut })));
  await context.close();
  return { ...timing, wall, problems };
}

// (c) Edit → re-rendered diagram, and the C++ evaluation alone.
async function measureEdits(browser, url) {
  const { context, page, problems } = await newPage(browser);
  await page.goto(url);
  await waitReady(page);
  // A learner reads before the first edit; the element uses that idle time to warm the WebAssembly up
  // (data-warmed). The edits start once it has.
  const warmStart = Date.now();
  await page.waitForFunction(() => document.querySelector('qkv-lesson')?.dataset.warmed !== undefined, undefined, { timeout: 10000 });
  const warmUpMs = Date.now() - warmStart;
  const result = await page.evaluate((count) => {
    const lesson = document.querySelector('qkv-lesson');
    const root = lesson.shadowRoot;
    const article = root.querySelector('article');
    let renderedAt = 0;
    lesson.addEventListener('qkv-lesson-rendered', () => {
      renderedAt = performance.now();
    });
    // Benchmark-only: how long the URL update (history.replaceState, with sync-url) takes in each edit.
    let urlTime = 0;
    const replaceState = history.replaceState;
    history.replaceState = function (...args) {
      const start = performance.now();
      replaceState.apply(this, args);
      urlTime += performance.now() - start;
    };
    const pass = (syncUrl) => {
      const toRender = [];
      const toLayout = [];
      const url = [];
      const synced = [];
      for (let i = 0; i < count; i++) {
        const sync = syncUrl(i);
        lesson.toggleAttribute('sync-url', sync);
        synced.push(sync);
        // Look the cell up each time (an edit that changed the shape would replace it; this one never does).
        const cell = root.querySelector('table[data-tensor="input"] input[data-index="0"]');
        // Never the value already there (the fixture's X[0] is 1): an edit to the same number renders nothing.
        cell.value = String(((i + 1) % 9) + 1) + (i % 2 ? '.5' : '');
        renderedAt = 0;
        urlTime = 0;
        const start = performance.now();
        cell.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
        if (!renderedAt) throw new Error(`edit ${i} did not render synchronously (data-error=${lesson.dataset.error ?? ''})`);
        toRender.push(renderedAt - start);
        url.push(urlTime);
        void article.offsetHeight; // style and layout of the new diagram, which the browser would do before painting
        toLayout.push(performance.now() - start);
      }
      return { toRender, toLayout, url, synced };
    };
    // The standalone page as it is (sync-url on), from the first edit.
    const standalone = pass(() => true);
    // Then, on warm code, every other edit without sync-url (as on a course page, the URL left alone), so
    // that the two kinds of edit see the same JIT tier, garbage collector and machine load.
    const alternating = pass((i) => i % 2 === 1);
    const pick = (list, sync) => list.filter((_, i) => alternating.synced[i] === sync);
    const embedded = { toRender: pick(alternating.toRender, false), toLayout: pick(alternating.toLayout, false) };
    const warmSynced = { toRender: pick(alternating.toRender, true), toLayout: pick(alternating.toLayout, true) };
    lesson.setAttribute('sync-url', '');
    history.replaceState = replaceState;
    // The C++ evaluation alone, on the same kind of state: the element's controller is private in
    // TypeScript but an ordinary property at run time (read here only, by the benchmark).
    const core = lesson.controller?.core;
    const state = lesson.controller?.state;
    const evaluate = [];
    if (core && state) {
      for (let i = 0; i < count; i++) {
        const cells = [...state.input.cells];
        cells[0] = String((i % 9) + 1) + (i % 2 ? '.5' : '');
        const edited = { ...state, input: { ...state.input, cells } };
        const start = performance.now();
        const evaluation = core.evaluate({ state: edited });
        evaluate.push(performance.now() - start);
        if (!evaluation.ok) throw new Error(`evaluate failed: ${evaluation.error.message}`);
      }
    }
    return { ...standalone, embedded, warmSynced, evaluate, tableCount: root.querySelectorAll('table').length, elementCount: root.querySelectorAll('*').length };
  }, edits);
  await context.close();
  return { ...result, warmUpMs, problems };
}

function summary(samples) {
  const rest = samples.slice(10);
  return {
    median: round(median(samples), 3),
    p95: round(quantile(samples, 0.95), 3),
    max: round(Math.max(...samples), 3),
    first10Median: round(median(samples.slice(0, 10)), 3),
    first10Max: round(Math.max(...samples.slice(0, 10)), 3),
    restMedian: round(median(rest), 3),
    restP95: round(quantile(rest, 0.95), 3),
  };
}

function table(rows) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => String(row[c]).length)));
  return rows.map((row, r) => {
    const line = row.map((value, c) => String(value).padEnd(widths[c])).join(' | ');
    return r === 0 ? `${line}\n${widths.map((w) => '-'.repeat(w)).join('-|-')}` : line;
  }).join('\n');
}

const server = await startServer();
const browser = await launchBrowser();
try {
  const load1 = loadavg()[0];
  const bytes = await measureBytes(browser, server.url);
  const runs = [];
  for (let i = 0; i < loads; i++) runs.push(await measureLoad(browser, server.url));
  const edit = await measureEdits(browser, server.url);
  const problems = [...bytes.problems, ...runs.flatMap((run) => run.problems), ...edit.problems];

  const ready = runs.map((run) => run.ready);
  const readyMedian = round(median(ready), 1);
  const painted = runs.map((run) => run.frameAfterReady);
  const paintedMedian = round(median(painted), 1);
  const renderStats = summary(edit.toRender);
  const layoutStats = summary(edit.toLayout);
  const evaluateStats = edit.evaluate.length ? summary(edit.evaluate) : null;
  const urlStats = summary(edit.url);
  const embeddedStats = summary(edit.embedded.toRender);
  const embeddedLayoutStats = summary(edit.embedded.toLayout);
  const warmSyncedStats = summary(edit.warmSynced.toRender);
  const warmSyncedLayoutStats = summary(edit.warmSynced.toLayout);
  const at = (key) => round(median(runs.map((run) => run[key])), 1);
  const met = {
    bytes: bytes.codeGzip <= goals.bytes,
    painted: paintedMedian <= goals.paintedMs,
    edit: renderStats.p95 <= goals.editP95Ms,
  };

  console.log(`\nqkv-lesson budgets — headless Chromium on loopback, ${cpus().length} cores, load average ${load1.toFixed(2)} at start\n`);
  console.log(
    table([
      ['measure', 'result', 'goal', 'met'],
      [`(a) download, gzip -9, without fonts (${bytes.requests - bytes.fontCount} files)`, `${bytes.codeGzip} B = ${kB(bytes.codeGzip)}`, `≤ ${kB(goals.bytes)}`, met.bytes ? 'yes' : 'NO'],
      ['    of which .wasm / .js', `${kB(bytes.wasmGzip)} / ${kB(bytes.jsGzip)}`, '', ''],
      ['    .wasm requests (page and workers)', `${bytes.wasmRequests}`, '1', bytes.wasmRequests === 1 ? 'yes' : 'NO'],
      [`    fonts (${bytes.fontCount} files), counted separately`, `${bytes.fontGzip} B = ${kB(bytes.fontGzip)}`, '', ''],
      ['    everything, uncompressed', `${kB(bytes.codeRaw + bytes.fontRaw)}`, '', ''],
      [`(b) navigation → first frame after ready, median of ${loads} cold loads`, `${paintedMedian} ms`, `≤ ${goals.paintedMs} ms`, met.painted ? 'yes' : 'NO'],
      ['    min / max', `${round(Math.min(...painted), 1)} / ${round(Math.max(...painted), 1)} ms`, '', ''],
      ['    median: scripts received / DOMContentLoaded', `${at('scriptsLoaded')} / ${at('domContentLoaded')} ms`, '', ''],
      ['    median: .wasm requested / received', `${at('wasmRequested')} / ${at('wasmLoaded')} ms`, '', ''],
      ['    median: WASM compile start / end', `${at('compileStart')} / ${at('compileEnd')} ms`, '', ''],
      ['    median: element start(core) begins / ends', `${at('startBegin')} / ${at('startEnd')} ms`, '', ''],
      ['    median: in start(): C++ calls / JS building the DOM', `${at('coreInStart')} / ${round(median(runs.map((r) => r.startEnd - r.startBegin - r.coreInStart)), 1)} ms`, '', ''],
      ['    median: ready / next frame (style+layout before paint)', `${at('ready')} / ${at('frameAfterReady')} ms`, '', ''],
      ['    median: the rest laid out (data-laid-out, then a frame)', `${at('laidOut')} ms`, '', ''],
      [`(c) edit → rendered, ${edits} edits of X[0] after the idle warm-up: p95`, `${renderStats.p95} ms`, `≤ ${goals.editP95Ms} ms`, met.edit ? 'yes' : 'NO'],
      ['    idle warm-up after ready (data-warmed)', `${edit.warmUpMs} ms`, '', ''],
      ['    median / max', `${renderStats.median} / ${renderStats.max} ms`, '', ''],
      ['    first 10: median / max', `${renderStats.first10Median} / ${renderStats.first10Max} ms`, '', ''],
      ['    edits 11–100: median / p95', `${renderStats.restMedian} / ${renderStats.restP95} ms`, '', ''],
      ['    of which the URL update (history.replaceState): median / p95', `${urlStats.median} / ${urlStats.p95} ms`, '', ''],
      ['    warm, alternating: with sync-url median / p95', `${warmSyncedStats.median} / ${warmSyncedStats.p95} ms`, '', ''],
      ['    warm, alternating: without sync-url (course page) median / p95', `${embeddedStats.median} / ${embeddedStats.p95} ms`, '', ''],
      ['    C++ evaluate alone: median / p95', evaluateStats ? `${evaluateStats.median} / ${evaluateStats.p95} ms` : 'unreachable', '', ''],
      ['    DOM building (median without sync-url − median C++)', evaluateStats ? `${round(embeddedStats.median - evaluateStats.median, 3)} ms` : '?', '', ''],
      ['    edit → rendered + style/layout: median / p95', `${layoutStats.median} / ${layoutStats.p95} ms`, '', ''],
      ['    warm, alternating, + style/layout: with / without sync-url, medians', `${warmSyncedLayoutStats.median} / ${embeddedLayoutStats.median} ms`, '', ''],
    ]),
  );
  const calls = {};
  for (const run of runs) for (const [name, ms] of Object.entries(run.coreCalls ?? {})) (calls[name] ??= []).push(ms);
  console.log(`\nC++ calls inside start(), median ms: ${Object.entries(calls).map(([name, list]) => `${name} ${round(median(list), 1)}`).join(', ')}`);
  console.log(`Shadow DOM: ${edit.elementCount} elements, ${edit.tableCount} tables.`);
  console.log('\nLargest files (gzip -9):');
  console.log(table([['file', 'raw', 'gzip -9', 'share of non-font gzip'], ...bytes.files.slice(0, 8).map((file) => [file.name, file.raw, file.gzip, file.font ? 'font' : `${((100 * file.gzip) / bytes.codeGzip).toFixed(1)} %`])]));
  console.log(`\nGoals met: ${Object.values(met).filter(Boolean).length} of 3 (bytes ${met.bytes ? 'yes' : 'no'}, painted ${met.painted ? 'yes' : 'no'}, edit p95 ${met.edit ? 'yes' : 'no'}). 1 kB = 1000 bytes.`);
  if (problems.length) console.log(`\nPage problems seen while measuring:\n  ${[...new Set(problems)].join('\n  ')}`);

  const results = {
    date: new Date().toISOString(),
    machine: { cores: cpus().length, loadAverage1m: round(load1) },
    goals,
    met,
    bytes: {
      nonFontGzip: bytes.codeGzip,
      nonFontRaw: bytes.codeRaw,
      wasmGzip: bytes.wasmGzip,
      wasmRequests: bytes.wasmRequests,
      jsGzip: bytes.jsGzip,
      fontGzip: bytes.fontGzip,
      fontRaw: bytes.fontRaw,
      fontCount: bytes.fontCount,
      files: bytes.files.map(({ path, raw, gzip, font }) => ({ path, raw, gzip, font })),
    },
    paintedMs: { median: paintedMedian, samples: painted.map((x) => round(x, 1)) },
    readyMs: { median: readyMedian, samples: ready.map((x) => round(x, 1)), runs: runs.map(({ problems: _, ...run }) => run) },
    editMs: {
      render: renderStats,
      renderPlusLayout: layoutStats,
      evaluateLessonOnly: evaluateStats,
      urlUpdate: urlStats,
      withoutSyncUrl: embeddedStats,
      withoutSyncUrlPlusLayout: embeddedLayoutStats,
      warmWithSyncUrl: warmSyncedStats,
      warmWithSyncUrlPlusLayout: warmSyncedLayoutStats,
      samples: edit.toRender.map((x) => round(x, 3)),
      evaluateSamples: edit.evaluate.map((x) => round(x, 3)),
      withoutSyncUrlSamples: edit.embedded.toRender.map((x) => round(x, 3)),
      shadowElements: edit.elementCount,
      tables: edit.tableCount,
    },
    problems: [...new Set(problems)],
  };
  await writeFile(resolve(here, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nWrote ${resolve(here, 'results.json')}`);
} finally {
  await browser.close();
  await server.close();
}
