// When a section's worker starts but its engine cannot load (issue 18): the self-score worker's engine script
// (the Emscripten module it imports; its .wasm it gets compiled from the page) is refused to the worker alone
// (the page's own import of the same file goes through), and the section's results
// still appear, computed on the page's thread with the core the page already has (data-ran-in="page", from
// worker-runner.ts); the worker is not tried again for the next job.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertNoProblems, openPage, useServerAndBrowser, waitReady } from './harness.mjs';

const run = useServerAndBrowser();
const section = 'qkv-lesson section.self-score';

// A request the worker made names the worker's script as its referrer; the page's names the page.
const fromWorker = (request) => /\/self-score-worker-[\w-]+\.js$/.test(request.headers().referer ?? '');
const coreScript = /\/assets\/qkv(-simd)?-[\w-]+\.js$/;

test('the self-score worker’s engine fails to load: the results are computed on the page’s thread, once', async () => {
  const { page, context, problems, requests, close } = await openPage(run.browser);
  const refused = [];
  await context.route(coreScript, (route) => {
    if (!fromWorker(route.request())) return route.continue();
    refused.push(route.request().url());
    return route.abort('failed');
  });
  try {
    await page.goto(run.server.url);
    await waitReady(page);
    const results = page.locator(`${section}:not([data-busy]) .self-score-results[data-shown="1 5 8"]`);
    await results.waitFor({ timeout: 60000 });
    assert.equal(refused.length, 1, `the worker asked for its engine script once and was refused: ${refused.join(', ')}`);
    assert.ok(requests.some((url) => /\/self-score-worker-[\w-]+\.js$/.test(url)), 'a worker was started');
    assert.equal(await results.getAttribute('data-ran-in'), 'page', 'the module settings were computed on the page’s thread');
    assert.ok((await page.locator(`${section} table[data-scores="none"] tbody td`).count()) === 25, 'the 5 × 5 scores are shown');

    // The next job runs on the page too: no second worker, no second refused fetch.
    const workers = requests.filter((url) => /\/self-score-worker-[\w-]+\.js$/.test(url)).length;
    await page.locator(`${section} input[id$="-sb-seed"]`).fill('2');
    const next = page.locator(`${section}:not([data-busy]) .self-score-results[data-shown="2 5 8"]`);
    await next.waitFor({ timeout: 60000 });
    assert.equal(await next.getAttribute('data-ran-in'), 'page', 'seed 2 was computed on the page’s thread');
    assert.equal(requests.filter((url) => /\/self-score-worker-[\w-]+\.js$/.test(url)).length, workers, 'no new worker was started');
    assert.equal(refused.length, 1, 'the worker was not tried again');

    // The only problem is the refused request itself (a failed request is reported as one, by design).
    const expected = problems.filter((problem) => refused.some((url) => problem.includes(url)));
    assert.ok(expected.length >= 1, `the refused request was seen: ${problems.join('\n')}`);
    assertNoProblems(problems.filter((problem) => !expected.includes(problem)), 'worker fallback');
  } finally {
    await close();
  }
});
