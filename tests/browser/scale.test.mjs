// The scale section in Chromium: nothing runs, and the section's own WebAssembly module is not downloaded,
// until a preset is chosen; the lesson's size and a small model's come back from the worker with the core's
// shapes, parameter counts and multiply-adds (exact text the core formats), a time, the sentence on linear
// cost and the summaries; the module is fetched once, its SIMD variant; no console problems.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertNoProblems, openLesson, useServerAndBrowser } from './harness.mjs';

const run = useServerAndBrowser();
const section = 'qkv-lesson section.scale';

async function choose(page, preset) {
  await page.locator(`${section} button[data-preset="${preset}"]`).click();
  await page.locator(`${section}:not([data-busy]) .scale-results[data-shown="${preset}"]`).waitFor({ timeout: 60000 });
  const rows = await page.locator(`${section} table.scale-table`).first().locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => cell.textContent)));
  const text = await page.locator(`${section} .scale-results`).innerText();
  const summaries = await page.locator(`${section} table.scale-table`).nth(1).locator('tbody tr').count();
  return { rows, text, summaries };
}

test('the scale section runs the chosen sizes in a worker and shows the core’s numbers', async () => {
  const { page, requests, problems, close } = await openLesson(run.browser, run.server.url);
  try {
    assert.equal(await page.locator(`${section} .scale-results`).innerText(), '', 'nothing computed before a choice');
    // The words on the buttons (scale-presets.json's `buttons`), in the file's order, before the module is here.
    assert.deepEqual(await page.locator(`${section} .scale-presets button`).evaluateAll((buttons) => buttons.map((b) => [b.dataset.preset, b.textContent])), [
      ['lesson', 'The lesson'], ['small', 'A small model'], ['gpt2-head', 'GPT-2 small, one head'], ['gpt2-heads', 'GPT-2 small, all 12 heads'],
    ]);
    assert.ok(!requests.some((url) => url.includes('scale-worker')), 'the worker starts only on a choice');
    assert.deepEqual(requests.filter((url) => url.includes('qkv-scale')), [], 'the scale module is not part of a cold load');

    const lesson = await choose(page, 'lesson');
    assert.deepEqual(lesson.rows.map((row) => [row[0], row[1]]), [['[1, 2, 3] → 2', '108'], ['[1, 1, 3] → 2', '54']]);
    assert.match(lesson.text, /18 parameters in all/);
    assert.match(lesson.text, /T = 2 has 2× the multiply-adds of T = 1/);
    assert.equal(lesson.summaries, 7, 'Q, K, V, dL/dX and three weight gradients');
    for (const row of lesson.rows) assert.match(row[2], /^[\d.]+(e-?\d+)? (s|ms|µs)$/, 'a time with its unit');

    const small = await choose(page, 'small');
    assert.deepEqual(small.rows.map((row) => [row[0], row[1]]), [['[1, 128, 64] → 16', '1.2e6'], ['[1, 64, 64] → 16', '589824']]);
    assert.match(small.text, /3072 parameters in all/);
    assert.ok(requests.some((url) => url.includes('scale-worker')), 'computed in the worker');
    const scaleWasm = requests.filter((url) => /\/qkv-scale[\w-]*\.wasm$/.test(url)).map((url) => new URL(url).pathname.split('/').pop());
    assert.equal(scaleWasm.length, 1, `the scale module fetched once for two presets: ${scaleWasm.join(', ')}`);
    assert.match(scaleWasm[0], /^qkv-scale-simd-[\w-]+\.wasm$/, 'Chromium has SIMD');
    assertNoProblems(problems, 'scale section');
  } finally {
    await close();
  }
});

// A truncated scale module (issue 18): the section says in words that its engine could not load, gives the
// reason (the file, and that it arrived damaged) rather than Emscripten's "Aborted(CompileError …)",
// and offers Try again, which starts a fresh worker that fetches the module anew: with the file served whole
// again, the preset runs.
test('a truncated scale .wasm: the section says its engine could not load, and Try again loads it anew', async () => {
  const { page, context, requests, problems, close } = await openLesson(run.browser, run.server.url);
  const scaleWasm = /\/qkv-scale[\w-]*\.wasm$/;
  const truncated = [];
  const truncate = async (route) => {
    const response = await route.fetch();
    const body = await response.body();
    truncated.push(route.request().url());
    await route.fulfill({ response, body: body.subarray(0, body.length >> 1) });
  };
  try {
    await context.route(scaleWasm, truncate);
    await page.locator(`${section} button[data-preset="lesson"]`).click();
    const failure = page.locator(`${section}:not([data-busy]) .scale-failure:not([hidden])`);
    await failure.waitFor({ timeout: 60000 });
    assert.equal(truncated.length, 2, 'the scale .wasm was fetched twice (the second past the HTTP cache: download-check.ts), truncated both times');
    assert.equal(await page.locator(`${section} p[role="status"]`).innerText(), 'The engine of this section could not load, so nothing was computed.');
    const reason = await page.locator(`${section} .scale-reason`).innerText();
    const file = new URL(truncated[0]).pathname.split('/').pop();
    assert.match(reason, new RegExp(`^Reason: its \\.wasm \\(${file.replace(/[.]/g, '\\.')}\\) arrived damaged \\([\\d,]+ bytes arrived of [\\d,]+\\): the download was cut short or changed on the way`), 'the reason names the file and what is wrong');
    assert.doesNotMatch(await page.locator(section).innerText(), /Aborted\(/, 'no raw Emscripten abort text');
    assert.equal(await page.locator(`${section} .scale-results`).innerText(), '', 'nothing computed');
    assert.match(await failure.innerText(), /Try again starts a fresh worker, which downloads the engine again\./);

    await context.unroute(scaleWasm, truncate);
    const workers = requests.filter((url) => url.includes('scale-worker')).length;
    await page.locator(`${section} button.scale-retry`).click();
    await page.locator(`${section}:not([data-busy]) .scale-results[data-shown="lesson"]`).waitFor({ timeout: 60000 });
    assert.equal(requests.filter((url) => url.includes('scale-worker')).length, workers + 1, 'a fresh worker was started');
    assert.equal(requests.filter((url) => scaleWasm.test(url)).length, 3, 'the .wasm was fetched again, once (the fresh worker’s first request)');
    assert.equal(await page.locator(`${section} .scale-failure`).isHidden(), true, 'the failure is gone');
    assert.equal(await page.locator(`${section} p[role="status"]`).innerText(), '');
    assertNoProblems(problems, 'truncated scale module, then a retry');
  } finally {
    await close();
  }
});
