// Navigation → ready in Chromium, Firefox ESR and WebKitGTK side by side (issue 19, item 4), and an edit's time on
// the page's thread in each. A benchmark, not a test: it prints figures and asserts nothing.
//   QKV_DIST=/tmp/dist-x [QKV_ENGINES=webkit] [LOADS=5] [EDITS=30] [PACE=150] node bench/engines-ready.mjs
// Each load is a fresh page (no cache: the engines' test server sends no-store). The element marks
// `qkv-lesson-ready` (navigation → ready), measures `qkv-lesson-start` (core loaded → ready), each warm-up slice
// (`qkv-lesson-warm-up`) and each edit (`qkv-lesson-edit`: the input event to the new numbers on screen). After
// the last load's warm-up, one X cell is edited EDITS times, one edit per task right after the other (the page may
// still be drawing the last one), then EDITS times more at a fast typist's pace, PACE ms apart (150: 400 characters a
// minute), as a learner's edits come. Then a fixed JavaScript loop EDITS times, back to back: the spread any work has here.
import { engineNames, launchEngine, startEngineServer } from '../tests/engines/engines.mjs';

const loads = Number(process.env.LOADS ?? 5);
const edits = Number(process.env.EDITS ?? 30);
const pace = Number(process.env.PACE ?? 150);
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
};
const ms = (value) => (value === undefined || value === null ? '-' : `${value.toFixed(0)} ms`);

// In the page: the lesson's marks once it is ready and warmed up (null until then).
const readTimes = () => {
  const doc = window.__engines.doc();
  const lesson = doc.querySelector('qkv-lesson');
  if (!lesson || lesson.dataset.state !== 'ready' || lesson.dataset.warmed === undefined) return null;
  const perf = doc.defaultView.performance;
  const [ready] = perf.getEntriesByName('qkv-lesson-ready');
  const [start] = perf.getEntriesByName('qkv-lesson-start');
  const warm = perf.getEntriesByName('qkv-lesson-warm-up').map((entry) => entry.duration);
  return { ready: ready?.startTime, start: start?.duration, warmMax: warm.length ? Math.max(...warm) : 0, warmSlices: warm.length };
};

// In the page: one edit of X's first cell (a value of its own each time), as typing does.
const editOnce = (i) => {
  const doc = window.__engines.doc();
  const input = doc.querySelector('qkv-lesson').shadowRoot.querySelector('input[data-field="input"][data-index="0"]');
  input.value = ['0.5', '-0.25', '1.5', '0.125'][i % 4];
  input.dispatchEvent(new Event('input', { bubbles: true }));
  return true;
};
// In the page: a fixed loop of plain JavaScript, timed as an edit is, so that the spread of the edits' times can be
// read against the spread this machine gives any work of that size in the same engine (WebKit's clock reads whole ms).
const fixedLoop = () => {
  const start = performance.now();
  const values = new Float64Array(4096);
  let total = 0;
  for (let round = 0; round < 60; round++) {
    for (let i = 0; i < values.length; i++) {
      values[i] = values[i] * 0.5 + i * round;
      total += values[i];
    }
  }
  return performance.now() - start + (total === -1 ? 1 : 0); // total is read, so the loop is not dropped
};
// The edits measured so far, and none after: each series reads its own.
const editTimes = () => {
  const perf = window.__engines.doc().defaultView.performance;
  const times = perf.getEntriesByName('qkv-lesson-edit').map((entry) => entry.duration);
  perf.clearMeasures('qkv-lesson-edit');
  return times;
};

const server = await startEngineServer();
const rows = [];
try {
  for (const name of engineNames) {
    const engine = await launchEngine(name);
    try {
      const times = [];
      let editDurations = [];
      let pacedDurations = [];
      const loopDurations = [];
      for (let load = 0; load < loads; load++) {
        const page = await engine.newPage({ width: 1280, height: 900 });
        await page.goto(server.url);
        times.push(await page.waitFor(readTimes, undefined, { timeout: 60000, message: 'the lesson ready and warmed up' }));
        if (load === loads - 1) {
          for (let i = 0; i < edits; i++) await page.evaluate(editOnce, i);
          editDurations = await page.evaluate(editTimes);
          for (let i = 0; i < edits; i++) {
            await new Promise((resolve) => setTimeout(resolve, pace));
            await page.evaluate(editOnce, i);
          }
          pacedDurations = await page.evaluate(editTimes);
          for (let i = 0; i < edits; i++) loopDurations.push(await page.evaluate(fixedLoop));
        }
        await page.close();
      }
      const ready = times.map((t) => t.ready);
      rows.push({
        engine: `${name} (${engine.version})`,
        ready: median(ready),
        readyAll: ready.map((value) => value.toFixed(0)).join(' '),
        start: median(times.map((t) => t.start)),
        warmMax: Math.max(...times.map((t) => t.warmMax)),
        editMedian: median(editDurations),
        editP95: quantile(editDurations, 0.95),
        edits: editDurations.length,
        pacedMedian: median(pacedDurations),
        pacedP95: quantile(pacedDurations, 0.95),
        loopMedian: median(loopDurations),
        loopP95: quantile(loopDurations, 0.95),
      });
    } finally {
      await engine.close();
    }
  }
} finally {
  await server.close();
}

console.log(`navigation → ready, median of ${loads} fresh loads; edits: ${edits} of X[0,0,0] after the warm-up, one per task back to back, then ${edits} ${pace} ms apart`);
for (const row of rows) {
  console.log(
    `${row.engine.padEnd(34)} ready ${ms(row.ready).padStart(7)} (${row.readyAll})  core loaded → ready ${ms(row.start)}  ` +
      `longest warm-up slice ${ms(row.warmMax)}  edit median ${row.editMedian.toFixed(1)} ms, p95 ${row.editP95.toFixed(1)} ms (${row.edits}); ` +
      `${pace} ms apart: median ${row.pacedMedian.toFixed(1)} ms, p95 ${row.pacedP95.toFixed(1)} ms; ` +
      `a fixed JS loop back to back: median ${row.loopMedian.toFixed(1)} ms, p95 ${row.loopP95.toFixed(1)} ms`,
  );
}
const chromium = rows.find((row) => row.engine.startsWith('chromium'));
const webkit = rows.find((row) => row.engine.startsWith('webkit'));
if (chromium && webkit) console.log(`WebKit / Chromium ready: ${(webkit.ready / chromium.ready).toFixed(2)}×`);
