// Issue 37, item 7, the rest: a damaged script, style sheet or font never sticks either. The lesson's files as npm
// start's server sends them, under the harness's strict CSP with Trusted Types required, except that the first
// `damaged` responses for one hashed file are cut in half: a 200 with the immutable cache header and no
// Content-Length, the connection closed after half the bytes (the browser cannot tell it from a whole file, and
// caches it for a year). The built pages name their scripts and style sheet with an integrity
// (web/page-integrity.ts) and web/public/mend-damaged-files.js asks past the cache and reloads once; the fonts
// are asked for again past the cache by web/src/lesson/fonts.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertNoProblems, csp, dist, eventually, launchBrowser, openPage, serveCutShort, waitReady } from './harness.mjs';

const strictCsp = `${csp}; require-trusted-types-for 'script'`;
const entryScript = /\/assets\/index-[\w-]{8}\.js$/;
const mainFont = /\/assets\/KaTeX_Main-Regular-[\w-]{8}\.woff2$/;

let browser;
test.before(async () => (browser = await launchBrowser()));
test.after(() => browser?.close());

const serveDamaging = (pattern, contentType, damaged) => serveCutShort(pattern, contentType, damaged, { policy: strictCsp });

// Serves dist/ with the files matching `pattern` cut in half their first `damaged` times (serveDamaging's
// arguments), opens a page, runs `body` with both, and closes both whatever it threw.
async function withDamagedHost(serving, body) {
  const host = await serveDamaging(...serving);
  const { close, ...opened } = await openPage(browser);
  try {
    await body({ host, ...opened });
  } finally {
    await close();
    await host.close();
  }
}

// Waits for the page's `count`th load event (the page's own reloads included), counted from now.
function loadEvents(page) {
  let seen = 0;
  page.on('load', () => seen++);
  return (count) => eventually(() => seen >= count, { message: `load event ${count} (${seen} seen)` });
}

// The problems the damaged file causes on purpose (the browser refuses it, a font it cannot decode).
const otherProblems = (problems, words) => problems.filter((problem) => !words.test(problem));
// The page's own reload leaves requests behind (its .wasm preload, a module preload, the favicon): the harness counts
// those aborts as the document's it left, as for a test's own navigations.
const integrityWords = /integrity|index-[\w-]{8}\.js/;
const fontWords = /KaTeX_Main-Regular|decode downloaded font|OTS parsing error/;

test('the entry script cut in half once: the page asks the server past its cache and reloads once; the lesson starts', async () => {
  await withDamagedHost([entryScript, 'text/javascript', 1], async ({ host, page, problems }) => {
    const loads = loadEvents(page);
    const built = readFileSync(join(dist, 'index.html'), 'utf8');
    assert.match(built, /<script type="module" crossorigin integrity="sha384-[\w+/=]+" src="\.\/assets\/index-/, 'the built page names its entry with an integrity');
    await page.goto(host.url);
    await loads(2);
    await waitReady(page);
    assert.deepEqual(host.state.requests, [false, true], 'the damaged copy, then one request past the cache; the reload took the good copy from the cache');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('qkv-lesson-mended-damaged-files')), null, 'the flag is cleared once the lesson came up');
    assert.equal(await page.locator('.damaged-files').count(), 0, 'nothing said');
    assertNoProblems(otherProblems(problems, integrityWords), 'the entry cut in half once');
  });
});

// The prerendered opening's style sheet is linked inside <qkv-lesson>'s declarative shadow root, where document
// queries do not look; mend-damaged-files.js asks past the cache for it too, so its damaged copy is not kept.
test('the entry script and the prerender’s style sheet cut in half once: both are asked for past the cache before the reload', async () => {
  const prerenderSheet = /\/assets\/qkv-lesson-[\w-]{8}\.css$/;
  const both = new RegExp(`${entryScript.source}|${prerenderSheet.source}`);
  await withDamagedHost([both, (path) => (path.endsWith('.css') ? 'text/css' : 'text/javascript'), 2], async ({ host, page, problems }) => {
    const loads = loadEvents(page);
    await page.goto(host.url);
    await loads(2);
    await waitReady(page);
    assert.equal(host.state.paths.slice(0, 2).filter((path) => prerenderSheet.test(path)).length, 1, 'the two damaged copies were one of each');
    const sheetRequests = host.state.requests.filter((_, index) => prerenderSheet.test(host.state.paths[index]));
    assert.deepEqual(sheetRequests, [false, true], 'the prerender’s damaged style sheet, then one request past the cache; the reload took the good copy');
    assert.equal(await page.locator('.damaged-files').count(), 0, 'nothing said');
    assertNoProblems(otherProblems(problems, new RegExp(`${integrityWords.source}|qkv-lesson-[\\w-]{8}\\.css`)), 'the entry and the prerender’s sheet cut in half once');
  });
});

// The copy past the cache is damaged too: its integrity is checked (mend-damaged-files.js), so the page says so at
// once instead of reloading onto a copy that would be refused again.
test('the entry script cut in half twice: the learner reads that the lesson’s files arrived damaged, with no reload; Try again, with the host healthy, starts it', async () => {
  await withDamagedHost([entryScript, 'text/javascript', 2], async ({ host, page, problems }) => {
    const loads = loadEvents(page);
    await page.goto(host.url);
    await page.evaluate(() => (window.firstLoad = true));
    const note = page.locator('p.damaged-files[role="alert"]');
    await note.waitFor();
    assert.match(await note.innerText(), /^The lesson’s files arrived damaged or did not arrive \(the download was cut short or changed on the way\), so the lesson cannot start\. Try again$/);
    assert.equal(await page.evaluate(() => window.firstLoad), true, 'said on the first load: the damaged copy past the cache was not reloaded onto');
    assert.deepEqual(host.state.requests, [false, true], 'one request past the cache, no reload, no loop');
    await note.getByRole('button', { name: 'Try again' }).click();
    await loads(2);
    await waitReady(page);
    assert.deepEqual(host.state.requests, [false, true, true], 'Try again asked the server past the damaged copy');
    assert.equal(await page.locator('.damaged-files').count(), 0);
    assertNoProblems(otherProblems(problems, integrityWords), 'the entry cut in half twice');
  });
});

// The core's Emscripten glue (web/preload-wasm.ts preloads it with its integrity). The browser keeps a module that
// failed for the page's life, so the element's Retry cannot mend it, and the damaged copy would stay in the HTTP cache
// for a year: the element says data-core-script-refused, and mend-damaged-files.js asks past the cache and reloads.
const coreGlue = /\/assets\/qkv-simd-[\w-]{8}\.js$/;
const glueWords = new RegExp(`${integrityWords.source}|qkv-simd-[\\w-]{8}\\.js|engine script`);

test('the core’s script cut in half once: the page asks the server past its cache and reloads once; the lesson starts', async () => {
  await withDamagedHost([coreGlue, 'text/javascript', 1], async ({ host, page, problems }) => {
    const loads = loadEvents(page);
    const built = readFileSync(join(dist, 'index.html'), 'utf8');
    assert.match(built, /<link rel="modulepreload" crossorigin integrity="sha384-[\w+/=]+" href="\.\/assets\/qkv-simd-/, 'the built page preloads the glue with an integrity');
    await page.goto(host.url);
    await loads(2);
    await waitReady(page);
    assert.deepEqual(host.state.requests, [false, true], 'the damaged copy, then one request past the cache; the reload took the good copy from the cache');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('qkv-lesson-mended-damaged-files')), null, 'the flag is cleared once the lesson came up');
    assert.equal(await page.locator('qkv-lesson').getAttribute('data-core-script-refused'), null);
    assert.equal(await page.locator('.damaged-files').count(), 0, 'nothing said');
    assertNoProblems(otherProblems(problems, glueWords), 'the glue cut in half once');
  });
});

test('the core’s script cut in half twice: the learner reads that the lesson’s files arrived damaged, with no reload', async () => {
  await withDamagedHost([coreGlue, 'text/javascript', 2], async ({ host, page, problems }) => {
    await page.goto(host.url);
    await page.evaluate(() => (window.firstLoad = true));
    const note = page.locator('p.damaged-files[role="alert"]');
    await note.waitFor();
    assert.equal(await page.evaluate(() => window.firstLoad), true, 'said on the first load');
    assert.deepEqual(host.state.requests, [false, true], 'one request past the cache, no reload, no loop');
    assert.equal(await page.locator('qkv-lesson').getAttribute('data-state'), 'error', 'the lesson says its engine’s script did not load');
    assertNoProblems(otherProblems(problems, glueWords), 'the glue cut in half twice');
  });
});

// A course page of the host's own: the element's one tag (docs/course-authors.md), no integrity, no mend script.
const coursePage = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A course page</title><link rel="icon" href="/favicon.svg">' +
  '<script type="module" src="/qkv-lesson.js"></script></head><body><qkv-lesson></qkv-lesson></body></html>';

test('the core’s script cut in half once on a course page’s own HTML: the element says so and to reload; the reload asks past the cache and the lesson starts', async () => {
  const host = await serveCutShort(coreGlue, 'text/javascript', 1, { policy: strictCsp, pages: { '/course.html': coursePage } });
  const { close, page, problems, goto } = await openPage(browser);
  try {
    await goto(`${host.url}course.html`);
    const lesson = page.locator('qkv-lesson');
    await eventually(async () => (await lesson.getAttribute('data-state')) === 'error', { message: 'the element says its engine did not load' });
    assert.equal(await lesson.getAttribute('data-core-script-refused'), '');
    assert.match(await lesson.locator('[role="alert"]').innerText(), /Could not load the lesson’s engine script: .+\. It arrived damaged \(the download was cut short or changed on the way\): reload the page to fetch it again\./);
    assert.deepEqual(host.state.requests, [false], 'the damaged copy only: nothing asked for on this load');
    const loads = loadEvents(page);
    await lesson.getByRole('button', { name: 'Reload the page' }).click(); // Retry would meet the same failed module
    await loads(1);
    await waitReady(page);
    assert.deepEqual(host.state.requests, [false, true], 'the reload asked for the glue past the cache, once, and imported that copy');
    assertNoProblems(otherProblems(problems, glueWords), 'the glue cut in half once on a course page');
  } finally {
    await close();
    await host.close();
  }
});

// The statuses of the Main face's regular faces in the document's font set (the formulas' text is drawn in it).
const mainFaceStatuses = (page) =>
  page.evaluate(() => [...document.fonts].filter((face) => face.family === 'QkvLesson_Main' && face.weight === 'normal' && face.style === 'normal').map((face) => face.status));

test('the math font cut in half once: asked for again past the cache, the formulas are drawn in it; twice: the fallback font, the lesson works', async () => {
  for (const [damaged, expected] of [
    [1, ['loaded']], // the damaged face replaced by the one made from the server's bytes
    [2, ['error']], // nothing to replace it with: the fallback font, as while a face loads
  ]) {
    await withDamagedHost([mainFont, 'font/woff2', damaged], async ({ host, page, problems }) => {
      await page.goto(host.url);
      await waitReady(page);
      await eventually(() => host.state.requests.length >= 2, { message: `${damaged} damaged: a second request for the font` });
      // The face is replaced once the bytes past the cache have arrived and loaded: eventually fails with the last statuses.
      await eventually(async () => {
        const statuses = await mainFaceStatuses(page);
        if (JSON.stringify(statuses) !== JSON.stringify(expected)) throw new Error(`the Main face: ${JSON.stringify(statuses)}`);
        return true;
      }, { message: `${damaged} damaged: the Main face ${JSON.stringify(expected)}` });
      assert.deepEqual(host.state.requests, [false, true], `${damaged} damaged: the damaged copy, then one request past the cache`);
      assert.equal(await page.locator('.damaged-files').count(), 0, 'nothing said about fonts');
      assertNoProblems(otherProblems(problems, fontWords), `the font cut in half ${damaged}×`);
    });
  }
});

// The self-score experiment's results once computed (their data-ran-in says where: 'worker' or 'page').
const selfScoreResults = (page) => page.locator('qkv-lesson section.self-score:not([data-busy]) .self-score-results[data-shown="1 5 8"]');

// The scripts the lesson loads later (workers' scripts, the scale section's chunk), which no integrity covers: one
// that failed is noted for the tab, and the next load asks for it past the cache before the worker or import starts
// (web/src/lesson/failed-scripts.ts). Nothing is asked for on the load that failed.
test('the self-score worker’s script cut in half once: the section computes on the page’s thread; after a reload, in its worker with the whole script', async () => {
  const workerScript = /\/assets\/self-score-worker-[\w-]{8}\.js$/;
  await withDamagedHost([workerScript, 'text/javascript', 1], async ({ host, page, problems, reload }) => {
    await page.goto(host.url);
    await waitReady(page);
    const results = selfScoreResults(page);
    await results.waitFor();
    assert.equal(await results.getAttribute('data-ran-in'), 'page', 'the experiment ran on the page’s thread');
    assert.deepEqual(host.state.requests, [false], 'the damaged copy only: nothing asked for on this load');
    await reload();
    await waitReady(page);
    await results.waitFor();
    assert.deepEqual(host.state.requests, [false, true], 'the reload asked the server for the script past the cache, once');
    assert.equal(await results.getAttribute('data-ran-in'), 'worker', 'after the reload the experiment ran in its worker');
    assertNoProblems(otherProblems(problems, /self-score-worker/), 'the self-score worker’s script cut in half once');
  });
});

// A script that keeps failing costs one request per load, never a loop: cut in half twice, the reload's request past
// the cache gets the damaged copy too (the section stays on the page's thread); the next reload's gets it whole.
test('the self-score worker’s script cut in half twice: one request past the cache per load, and the second reload runs it in its worker', async () => {
  const workerScript = /\/assets\/self-score-worker-[\w-]{8}\.js$/;
  await withDamagedHost([workerScript, 'text/javascript', 2], async ({ host, page, problems, reload }) => {
    const results = selfScoreResults(page);
    const ranIn = [];
    await page.goto(host.url);
    for (const load of [1, 2, 3]) {
      if (load > 1) await reload();
      await waitReady(page);
      await results.waitFor();
      ranIn.push(await results.getAttribute('data-ran-in'));
    }
    assert.deepEqual(ranIn, ['page', 'page', 'worker'], 'on the page’s thread while the copy was damaged, then in its worker');
    assert.deepEqual(host.state.requests, [false, true, true], 'the damaged copy, then one request past the cache on each reload');
    assertNoProblems(otherProblems(problems, /self-score-worker/), 'the self-score worker’s script cut in half twice');
  });
});

// A note a page of another build left in the tab (a reload onto a new deploy) names a file this build does not have:
// it is dropped, and nothing is asked for.
test('a failed script noted by another build is dropped unasked', async () => {
  const stale = '/assets/self-score-worker-0ld8uild.js';
  await withDamagedHost([/\/assets\/self-score-worker-/, 'text/javascript', 0], async ({ host, page, context, problems }) => {
    await context.addInitScript((url) => {
      if (!sessionStorage.getItem('qkv-lesson-failed-scripts')) sessionStorage.setItem('qkv-lesson-failed-scripts', JSON.stringify([{ url: new URL(url, location.href).href, build: 'https://elsewhere.example/assets/define-0ld8uild.js' }]));
    }, stale);
    await page.goto(host.url);
    await waitReady(page);
    const results = selfScoreResults(page);
    await results.waitFor();
    assert.equal(await results.getAttribute('data-ran-in'), 'worker');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('qkv-lesson-failed-scripts')), null, 'the note is gone');
    assert.ok(!host.state.paths.includes(stale), `the old build's file was not asked for (${host.state.paths})`);
    assert.deepEqual(host.state.requests, [false], 'this build’s worker script, asked for once (not past the cache)');
    assertNoProblems(problems, 'a note of another build');
  });
});

const scaleSection = 'qkv-lesson section.scale';
// Runs the lesson's preset and returns where it ran, once its results are on screen.
async function runLessonPreset(page) {
  await page.locator(`${scaleSection} button[data-preset="lesson"]`).click();
  const results = page.locator(`${scaleSection}:not([data-busy]) .scale-results[data-shown="lesson"]`);
  await results.waitFor();
  return results.getAttribute('data-ran-in');
}

test('the scale worker’s script cut in half once: the preset runs on the page’s thread; after a reload, in its worker with the whole script', async () => {
  const workerScript = /\/assets\/scale-worker-[\w-]{8}\.js$/;
  await withDamagedHost([workerScript, 'text/javascript', 1], async ({ host, page, problems, reload }) => {
    await page.goto(host.url);
    await waitReady(page);
    assert.equal(await runLessonPreset(page), 'page', 'the preset ran on the page’s thread');
    assert.deepEqual(host.state.requests, [false], 'the damaged copy only: nothing asked for on this load');
    await reload();
    await waitReady(page);
    assert.equal(await runLessonPreset(page), 'worker', 'after the reload the preset ran in its worker');
    assert.deepEqual(host.state.requests, [false, true], 'the reload asked the server for the script past the cache, once');
    assertNoProblems(otherProblems(problems, /scale-worker/), 'the scale worker’s script cut in half once');
  });
});

// The scale engine's script, imported inside the scale worker, cut in half: the worker asks for it again past the
// cache before it reports, so the learner's Try again (a fresh worker) imports the whole copy on the same load.
test('the scale engine’s script cut in half once: the section says it arrived damaged; Try again runs the preset in its worker', async () => {
  const engineScript = /\/assets\/qkv-scale(-simd)?-[\w-]{8}\.js$/;
  await withDamagedHost([engineScript, 'text/javascript', 1], async ({ host, page, problems }) => {
    await page.goto(host.url);
    await waitReady(page);
    await page.locator(`${scaleSection} button[data-preset="lesson"]`).click();
    const failure = page.locator(`${scaleSection}:not([data-busy]) .scale-failure:not([hidden])`);
    await failure.waitFor();
    assert.match(await failure.innerText(), /^Reason: its script arrived damaged \(.+\): the download was cut short or changed on the way\n+Try again starts a fresh worker/);
    assert.deepEqual(host.state.requests, [false, true], 'asked for again past the cache before the section said so');
    await page.locator(`${scaleSection} button.scale-retry`).click();
    const results = page.locator(`${scaleSection}:not([data-busy]) .scale-results[data-shown="lesson"]`);
    await results.waitFor();
    assert.equal(await results.getAttribute('data-ran-in'), 'worker', 'Try again ran the preset in a fresh worker');
    assert.deepEqual(host.state.requests, [false, true], 'the fresh worker imported the copy the cache now holds');
    assertNoProblems(otherProblems(problems, /qkv-scale|SyntaxError|Unexpected end/), 'the scale engine’s script cut in half once');
  });
});

// A module that did not parse stays failed in its document (the browser keeps the error for that URL), so the
// section asks for a reload, and the reload asks for the chunk past the cache before importing it.
test('the scale section’s chunk cut in half once: the section says its code arrived damaged and to reload; the reload runs the preset', async () => {
  const chunk = /\/assets\/scale-run-[\w-]{8}\.js$/;
  await withDamagedHost([chunk, 'text/javascript', 1], async ({ host, page, problems, reload }) => {
    await page.goto(host.url);
    await waitReady(page);
    await page.locator(`${scaleSection} button[data-preset="lesson"]`).click();
    const failure = page.locator(`${scaleSection}:not([data-busy]) .scale-failure:not([hidden])`);
    await failure.waitFor();
    assert.equal(await page.locator(`${scaleSection} p[role="status"]`).innerText(), 'This section’s code arrived damaged (the download was cut short or changed on the way), so nothing was computed.');
    assert.match(await failure.innerText(), /^Reason: .+\n+This page cannot load it again: reload the page to try again\.$/);
    assert.equal(await page.locator(`${scaleSection} .scale-results`).innerText(), '', 'nothing computed');
    await page.locator(`${scaleSection} button[data-preset="small"]`).click();
    await page.locator(`${scaleSection}:not([data-busy]) .scale-failure:not([hidden])`).waitFor();
    assert.match(await page.locator(`${scaleSection} p[role="status"]`).innerText(), /^This section’s code arrived damaged/, 'another choice: said again');
    assert.deepEqual(host.state.requests, [false], 'the damaged copy only: nothing asked for on this load');
    await reload();
    await waitReady(page);
    assert.equal(await runLessonPreset(page), 'worker', 'after the reload the preset ran (in its worker)');
    assert.deepEqual(host.state.requests, [false, true], 'the reload asked the server for the chunk past the cache, once, and imported that copy');
    assert.equal(await page.locator(`${scaleSection} .scale-failure`).isHidden(), true, 'nothing said');
    assertNoProblems(otherProblems(problems, /scale-run/), 'the scale section’s chunk cut in half once');
  });
});
