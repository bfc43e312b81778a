// When a section's worker starts but its engine cannot load (issue 18): the self-score worker's engine script
// (the Emscripten module it imports; its .wasm it gets compiled from the page) is refused to the worker alone
// (the page's own import of the same file goes through), and the section's results
// still appear, computed on the page's thread with the core the page already has (data-ran-in="page", from
// worker-runner.ts); the worker is not tried again for the next job. And a course page of another origin than the
// lesson's script: browsers start no worker from another origin, so the lesson asks for none (trusted-types.ts
// refuses the URL before the browser is asked) and computes on the page's thread, with nothing on the console.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { serve } from '../../scripts/serve.mjs';
import { assertNoProblems, csp, dist, openPage, useServerAndBrowser, waitReady } from './harness.mjs';

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

test('the lesson’s script from another origin than the course page: no worker is asked for, the results come from the page’s thread', async () => {
  const lessonServer = await serve({ root: dist, port: 0, csp, headers: { 'Access-Control-Allow-Origin': '*' } });
  const lessonOrigin = `http://127.0.0.1:${lessonServer.address().port}`;
  const course = createServer((request, response) => {
    if (request.url !== '/') return void response.writeHead(204).end(); // the favicon
    response.writeHead(200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': `default-src 'self'; script-src 'self' ${lessonOrigin} 'wasm-unsafe-eval'; connect-src 'self' ${lessonOrigin}; font-src ${lessonOrigin}`,
    });
    response.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Course</title><script type="module" src="${lessonOrigin}/qkv-lesson.js"></script></head><body><qkv-lesson sections="self-score"></qkv-lesson></body></html>`);
  });
  await new Promise((done) => course.listen(0, '127.0.0.1', done));
  const { page, problems, requests, close } = await openPage(run.browser);
  try {
    await page.addInitScript(() => {
      window.__nativeWorker = Worker;
    });
    await page.goto(`http://127.0.0.1:${course.address().port}/`);
    await waitReady(page);
    const results = page.locator(`${section}:not([data-busy]) .self-score-results[data-shown="1 5 8"]`);
    await results.waitFor({ timeout: 60000 });
    assert.equal(await results.getAttribute('data-ran-in'), 'page', 'computed on the page’s thread');
    assert.ok(!requests.some((url) => url.includes('self-score-worker')), 'no worker script was requested');
    // The refusal was thrown while the lesson stood in for Worker (trusted-types.ts): the page's own is back.
    assert.ok(await page.evaluate(() => Worker === window.__nativeWorker), 'the page’s Worker is its own again after the refusal');
    assertNoProblems(problems, 'the lesson on a course page of another origin');
  } finally {
    await close();
    await new Promise((done) => course.close(done));
    await new Promise((done) => lessonServer.close(done));
  }
});
