// How the lesson's WebAssembly reaches the learner (issue 19): one download of the lesson's .wasm for the page
// and the self-score worker (the worker gets the page's compiled module), asked for while the lesson's script
// is still on its way (the built page preloads it: web/preload-wasm.ts), and on a course page's own HTML as
// soon as the element's script runs; a failed download names the file and the reason and offers Retry, which
// brings the lesson up without a reload; the scale section, whose engine is downloaded only when a preset
// runs, says that it needs the network and offers to try again.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assertNoProblems, dist, openEvidence, openPage, readFixture, serveCutShort, tableTexts, useServerAndBrowser, waitReady } from './harness.mjs';

const run = useServerAndBrowser();
let fixture;
before(async () => {
  fixture = await readFixture();
});

const coreWasm = /\/assets\/qkv(-simd)?-[\w-]+\.wasm$/;
const anyWasm = /\.wasm$/;
// The built pages' scripts: index.html's entry and the chunks it preloads (the element's among them).
const pageScript = /\/assets\/[\w-]+\.js$/;
const fileOf = (url) => new URL(url).pathname.split('/').pop();
// The Emscripten glue of the lesson's core, either build (not the scale section's).
const coreGlue = /\/assets\/qkv(-simd)?-[\w-]+\.js$/;
const outputKeys = ['query', 'key', 'value', 'input_gradient', 'query_weight_gradient', 'key_weight_gradient', 'value_weight_gradient'];
const selfScore = 'qkv-lesson section.self-score';
const scale = 'qkv-lesson section.scale';

// The numbers on screen are the fixture's (the core came up normally).
async function assertFixtureNumbers(page, context) {
  for (const key of outputKeys) {
    assert.deepEqual(await tableTexts(page, key), fixture.expected[key].values.map(String), `${context}: table ${key} shows the fixture's values`);
  }
}

// Problems other than the failed requests a test caused on purpose (each is reported as one, by design).
function otherProblems(problems, failedUrls) {
  return problems.filter((problem) => !failedUrls.some((url) => problem.includes(url)));
}

// Refuses every request of `context` matching `pattern` (as a lost connection) until allow() is called, then lets
// them through: a download that fails, and a Retry that succeeds. `refused` lists the URLs refused.
async function failUntilAllowed(context, pattern) {
  const state = { refused: [], allowed: false, allow: () => void (state.allowed = true) };
  await context.route(pattern, (route) => {
    if (state.allowed) return route.continue();
    state.refused.push(route.request().url());
    return route.abort('internetdisconnected');
  });
  return state;
}

test('one download of the lesson’s .wasm, asked for with its glue before the lesson’s script has arrived; the worker runs on the page’s module', async () => {
  const { page, context, problems, close } = await openPage(run.browser);
  const events = [];
  const wasmRequests = [];
  const glueRequests = [];
  let sawWasm;
  const wasmSeen = new Promise((resolve) => (sawWasm = resolve));
  // Every request of the page and its workers (a context sees both).
  context.on('request', (request) => {
    if (coreGlue.test(request.url())) {
      glueRequests.push(request.url());
      events.push(`glue ${fileOf(request.url())}`);
    }
    if (!anyWasm.test(request.url())) return;
    wasmRequests.push(request.url());
    events.push(`request ${fileOf(request.url())}`);
    sawWasm();
  });
  context.on('requestfinished', (request) => {
    if (pageScript.test(request.url())) events.push(`finished ${fileOf(request.url())}`);
  });
  // Each script's response waits until the .wasm has been asked for: a page that asked for it only once its
  // script had run would never get ready (waitReady fails), and the events below put the request first.
  const heldScripts = [];
  await context.route(pageScript, async (route) => {
    if (!/\/(index|define|embed)-[\w-]+\.js$/.test(route.request().url())) return route.continue();
    heldScripts.push(fileOf(route.request().url()));
    await wasmSeen;
    return route.continue();
  });
  try {
    await page.goto(run.server.url).catch((error) => {
      assert.fail(`the page did not load while its scripts waited for a .wasm request (the .wasm waits for the script?): ${error.message}`);
    });
    await waitReady(page);
    assert.ok(heldScripts.some((name) => name.startsWith('define-')), `the element's script was among those held: ${heldScripts.join(', ')}`);
    const firstWasm = events.findIndex((event) => event.startsWith('request '));
    const scriptDone = events.findIndex((event) => /^finished define-/.test(event));
    assert.ok(firstWasm >= 0 && scriptDone >= 0, `both events seen: ${events.join(', ')}`);
    assert.ok(firstWasm < scriptDone, `the .wasm was requested before the element's script response ended: ${events.join(', ')}`);
    // The glue too (web/preload-wasm.ts preloads it as a module): not one more request after the element's chunk has run.
    const firstGlue = events.findIndex((event) => event.startsWith('glue '));
    assert.ok(firstGlue >= 0 && firstGlue < scriptDone, `the glue was requested before the element's script response ended: ${events.join(', ')}`);

    // The self-score experiment runs in its worker, and a search too: the worker never asks for a .wasm.
    const results = page.locator(`${selfScore}:not([data-busy]) .self-score-results[data-shown="1 5 8"]`);
    await results.waitFor({ timeout: 60000 });
    await page.locator(`${selfScore} button`, { hasText: 'Find the next seed' }).click();
    await page.locator(`${selfScore}:not([data-busy]) p[role="status"]`, { hasText: /^Seed \d+:/ }).waitFor({ timeout: 60000 });
    assert.equal(await page.locator(`${selfScore} p[role="status"]`).getAttribute('data-ran-in'), 'worker', 'the search ran in the worker');
    assert.equal(wasmRequests.filter((url) => coreWasm.test(url)).length, 1, `one request for the lesson's .wasm: ${wasmRequests.join(', ')}`);
    assert.deepEqual(wasmRequests.filter((url) => !coreWasm.test(url)), [], 'no other .wasm (the scale module waits for a preset)');
    assert.match(fileOf(wasmRequests[0]), /^qkv-simd-/, 'Chromium has SIMD');
    // The worker imports the glue file the page imported (web/vite.config.ts builds the worker with the same
    // compile hint), so the browser has it already.
    assert.deepEqual([...new Set(glueRequests.map(fileOf))].map((name) => name.replace(/-[\w-]{8}\.js$/, '')), ['qkv-simd'], `one glue file for the page and its worker: ${glueRequests.join(', ')}`);
    // What the start runs is compiled eagerly in Chromium (web/compile-hints.ts): the element's chunk and the glue
    // begin with V8's magic comment, spelled as V8 reads it (a first line of its own).
    const compileHint = '//# allFunctionsCalledOnLoad\n';
    for (const file of [heldScripts.find((name) => name.startsWith('define-')), fileOf(glueRequests[0])]) {
      const code = await readFile(join(dist, 'assets', file), 'utf8');
      assert.ok(code.startsWith(compileHint), `${file} begins with ${JSON.stringify(compileHint)}`);
    }
    await assertFixtureNumbers(page, 'after one download');
    assertNoProblems(problems, 'one download');
  } finally {
    await close();
  }
});

test('on a course page’s own HTML, the element’s script asks for the .wasm as soon as it runs, before any element connects', async () => {
  const { page, context, problems, close } = await openPage(run.browser);
  const host = `${run.server.origin}/course-page-without-the-element.html`;
  await context.route(host, (route) =>
    route.fulfill({ contentType: 'text/html', body: '<!doctype html><html lang="en"><title>Course</title><script type="module" src="./qkv-lesson.js"></script><p>No lesson here yet.</p></html>' }),
  );
  try {
    const wasm = page.waitForRequest(coreWasm);
    await page.goto(host);
    assert.match(fileOf((await wasm).url()), /^qkv-simd-/);
    assert.equal(await page.locator('qkv-lesson').count(), 0, 'no element on the page');
    await page.waitForLoadState('networkidle');
    assertNoProblems(problems.filter((problem) => !problem.includes('favicon')), 'course page without the element');
  } finally {
    await close();
  }
});

test('a failed download of the lesson’s .wasm names the file and the reason; Retry brings the lesson up without a reload', async () => {
  const { page, context, problems, close } = await openPage(run.browser);
  const network = await failUntilAllowed(context, coreWasm);
  const { refused } = network;
  try {
    await page.goto(run.server.url);
    await page.waitForFunction(() => document.querySelector('qkv-lesson')?.dataset.state === 'error', undefined, { timeout: 15000 });
    assert.ok(refused.length >= 1, 'the .wasm was refused');
    const file = fileOf(refused[0]);
    const region = page.locator('qkv-lesson .load-error[role="alert"]');
    const said = await region.innerText();
    assert.ok(said.includes(`Could not download the lesson’s engine (${file}): the network request failed`), `the message names the file and the reason: "${said}"`);
    assert.doesNotMatch(said, /this browser/, 'the browser is not blamed for a network failure');
    // The prerendered opening stays below the error, and what the learner types there is kept through Retry.
    assert.equal(await page.evaluate(() => document.querySelector('qkv-lesson').shadowRoot.querySelector('.load-error').nextElementSibling?.localName), 'article', 'the error stands above the opening');
    const field = page.locator('qkv-lesson form[data-exercise="ch26-first-token"] input').first();
    await field.fill('0, 3');

    network.allow();
    await page.evaluate(() => (window.beforeRetry = 'this document')); // a reload would lose it
    await region.getByRole('button', { name: 'Retry' }).click();
    await waitReady(page);
    assert.equal(await page.evaluate(() => window.beforeRetry), 'this document', 'the same document: no reload');
    assert.equal(await page.locator('qkv-lesson .load-error').count(), 0, 'the error region is gone');
    assert.equal(await field.inputValue(), '0, 3', 'what was typed before the failure is still there');
    await openEvidence(page);
    await assertFixtureNumbers(page, 'after Retry');
    assertNoProblems(otherProblems(problems, refused), 'failed .wasm, then Retry');
  } finally {
    await close();
  }
});

test('the scale section without the network says a preset needs it; Try again runs the preset', async () => {
  const { page, context, problems, close } = await openPage(run.browser);
  const scaleWasm = /\/qkv-scale[\w-]*\.wasm$/;
  const network = await failUntilAllowed(context, scaleWasm);
  const { refused } = network;
  try {
    await page.goto(run.server.url);
    await waitReady(page);
    await page.locator(`${scale} button[data-preset="lesson"]`).click();
    await page.locator(`${scale}:not([data-busy]) .scale-failure:not([hidden])`).waitFor({ timeout: 60000 });
    assert.equal(refused.length, 1, 'the scale .wasm was asked for once and refused');
    assert.match(await page.locator(`${scale} p[role="status"]`).innerText(), /^Running a preset needs the network/);
    const reason = await page.locator(`${scale} .scale-reason`).innerText();
    assert.ok(reason.includes(`(${fileOf(refused[0])}) could not be downloaded: the network request failed`), `the reason names the file: "${reason}"`);
    assert.equal(await page.locator(`${scale} .scale-results`).innerText(), '', 'nothing computed');

    network.allow();
    await page.locator(`${scale} button.scale-retry`).click();
    await page.locator(`${scale}:not([data-busy]) .scale-results[data-shown="lesson"]`).waitFor({ timeout: 60000 });
    // The lesson's sizes from the fixture: three D × H weights; forward and backward make 9·B·T·D·H multiply-adds.
    const [b, t, d] = fixture.input.shape;
    const headWidth = fixture.query_weight.shape[1];
    assert.match(await page.locator(`${scale} .scale-results`).innerText(), new RegExp(`${3 * d * headWidth} parameters in all`));
    const first = await page.locator(`${scale} table.scale-table`).first().locator('tbody tr').first().evaluate((tr) => [...tr.children].map((cell) => cell.textContent));
    assert.deepEqual(first.slice(0, 2), [`[${b}, ${t}, ${d}] → ${headWidth}`, String(9 * b * t * d * headWidth)]);
    assert.equal(await page.locator(`${scale} .scale-failure`).isHidden(), true, 'the failure is gone');
    assertNoProblems(otherProblems(problems, refused), 'scale without the network, then Try again');
  } finally {
    await close();
  }
});

// A stand-in for an engine's trap (WebKitGTK 2.50 once stopped the core's first call with "Out of bounds memory
// access" in .ci/run): every function the Emscripten glue takes from an instance's table is wrapped, and the first
// call through each table (`tables`: 'first' for the page's first instance only, 'every' for each; 'armed': the
// first call after the test sets window.__trapArmed) throws the RuntimeError a trap throws, from inside the call as
// a trap would. Installed before any of the page's scripts.
async function trapFirstCall(context, tables) {
  await context.addInitScript((tables) => {
    const get = WebAssembly.Table.prototype.get;
    const tripped = new WeakSet();
    let trips = 0;
    WebAssembly.Table.prototype.get = function (index) {
      const entry = get.call(this, index);
      if (typeof entry !== 'function') return entry;
      const table = this;
      return function (...args) {
        window.__trapCalls = (window.__trapCalls ?? 0) + 1;
        if (tables === 'armed' ? window.__trapArmed : !tripped.has(table) && (tables === 'every' || trips === 0)) {
          window.__trapArmed = false;
          tripped.add(table);
          trips++;
          throw new WebAssembly.RuntimeError('Out of bounds memory access (the test’s stand-in for a trap)');
        }
        return entry.apply(this, args);
      };
    };
  }, tables);
}

test('a trap in the engine while the lesson starts: a fresh instance of the compiled module starts it, with no second download', async () => {
  const { page, context, problems, requests, close } = await openPage(run.browser);
  await trapFirstCall(context, 'first');
  const messages = [];
  page.on('console', (message) => messages.push(`${message.type()}: ${message.text()}`));
  try {
    await page.goto(run.server.url);
    await waitReady(page);
    assert.equal(await page.locator('qkv-lesson').getAttribute('data-core-restarted'), 'Out of bounds memory access (the test’s stand-in for a trap)');
    assert.ok(messages.some((line) => line.startsWith('info: qkv-lesson: the lesson’s engine stopped while starting (Out of bounds memory access')), `said on the console: ${messages.join(' | ')}`);
    await assertFixtureNumbers(page, 'after the restart');
    assert.equal(requests.filter((url) => coreWasm.test(url)).length, 1, 'the .wasm was downloaded once');
    assertNoProblems(problems, 'a trap while starting');
  } finally {
    await close();
  }
});

test('a trap in every instance: the lesson says it could not start, with the engine’s words, after one fresh instance', async () => {
  const { page, context, problems, close } = await openPage(run.browser);
  await trapFirstCall(context, 'every');
  try {
    await page.goto(run.server.url);
    await page.waitForFunction(() => document.querySelector('qkv-lesson')?.dataset.state === 'error');
    const text = await page.locator('qkv-lesson .load-error').innerText();
    assert.match(text, /The lesson could not start: its computation engine \(WebAssembly\) did not load in this browser\./);
    assert.match(text, /Reason: Out of bounds memory access \(the test’s stand-in for a trap\)/);
    assert.equal(await page.locator('qkv-lesson').getAttribute('data-core-restarted'), 'Out of bounds memory access (the test’s stand-in for a trap)', 'one fresh instance was tried');
    assertNoProblems(problems, 'a trap in every instance');
  } finally {
    await close();
  }
});

test('a trap after the start: that edit is refused in the engine’s words, the last numbers stay, and the stopped instance is not entered again', async () => {
  const { page, context, problems, close } = await openPage(run.browser);
  await trapFirstCall(context, 'armed');
  try {
    await page.goto(run.server.url);
    await waitReady(page);
    await openEvidence(page);
    const entered = () => page.evaluate(() => window.__trapCalls);
    await page.evaluate(() => (window.__trapArmed = true));
    const input = page.locator('qkv-lesson input[data-field="input"][data-index="0"]');
    await input.fill('5');
    await page.waitForFunction(() => document.querySelector('qkv-lesson').dataset.error !== undefined);
    const stopped = 'the lesson’s engine stopped (Out of bounds memory access (the test’s stand-in for a trap)); reload the page to go on';
    assert.equal(await page.locator('qkv-lesson').getAttribute('data-error'), stopped);
    await assertFixtureNumbers(page, 'after the trap');
    assert.equal(await page.locator('qkv-lesson .controls > .field-error').innerText(), `Rejected: ${stopped}. The diagram still shows the last accepted numbers.`, 'said under the sizes');
    // Another edit: the same refusal, without a call into the stopped instance.
    const calls = await entered();
    await input.fill('6');
    // (fill returns once the input event is handled: the lesson computes in its handler, synchronously)
    assert.equal(await page.locator('qkv-lesson').getAttribute('data-error'), stopped);
    assert.equal(await entered(), calls, 'no call entered the stopped instance');
    await assertFixtureNumbers(page, 'after a second edit');
    assertNoProblems(problems, 'a trap after the start');
  } finally {
    await close();
  }
});

// Issue 37, item 7: a damaged download never sticks. The lesson's .wasm cut in half, the first `damaged` times
// (harness.mjs's serveCutShort).
const serveDamagingWasm = (damaged) => serveCutShort(coreWasm, 'application/wasm', damaged);

const sizeText = (n) => n.toLocaleString('en-US');

test('a .wasm cut in half once (immutable, no Content-Length): the lesson asks the server again past its cache and starts; a reload gets the good copy from the cache', async () => {
  const host = await serveDamagingWasm(1);
  const { page, problems, reload, close } = await openPage(run.browser);
  try {
    await page.goto(host.url);
    await waitReady(page);
    assert.deepEqual(host.state.requests, [false, true], `two requests, the second past the cache: ${JSON.stringify(host.state.requests)}`);
    await openEvidence(page);
    await assertFixtureNumbers(page, 'after a damaged response');
    await reload();
    await waitReady(page);
    assert.equal(host.state.requests.length, 2, 'the reload took the good copy the second request left in the HTTP cache');
    assertNoProblems(problems, 'a .wasm cut in half once');
  } finally {
    await close();
    await host.close();
  }
});

test('a .wasm cut in half twice (the request past the cache too): the lesson says its engine arrived damaged; with the host healthy again, Retry starts it', async () => {
  const host = await serveDamagingWasm(2);
  const { page, problems, close } = await openPage(run.browser);
  try {
    await page.goto(host.url);
    await page.waitForFunction(() => document.querySelector('qkv-lesson')?.dataset.state === 'error', undefined, { timeout: 15000 });
    const region = page.locator('qkv-lesson .load-error[role="alert"]');
    const said = await region.innerText();
    const half = sizeText(host.state.size >> 1);
    assert.match(said, new RegExp(`^The lesson’s engine \\(qkv-simd-[\\w-]+\\.wasm\\) arrived damaged \\(${half} bytes arrived of ${sizeText(host.state.size)}\\): the download was cut short or changed on the way\\.`), said);
    assert.deepEqual(host.state.requests, [false, true]);
    await region.getByRole('button', { name: 'Retry' }).click();
    await waitReady(page);
    assert.deepEqual(host.state.requests, [false, true, true], 'Retry asked the server, past the damaged copy in the cache');
    await openEvidence(page);
    await assertFixtureNumbers(page, 'after Retry');
    assertNoProblems(problems, 'a .wasm cut in half twice, then Retry');
  } finally {
    await close();
    await host.close();
  }
});

test('a .wasm cut in half twice, then a reload with the host healthy: the damaged copy in the cache costs one request, not a year', async () => {
  const host = await serveDamagingWasm(2);
  const { page, problems, reload, close } = await openPage(run.browser);
  try {
    await page.goto(host.url);
    await page.waitForFunction(() => document.querySelector('qkv-lesson')?.dataset.state === 'error', undefined, { timeout: 15000 });
    await reload();
    await waitReady(page);
    // The reload's first request was answered from the cache (the damaged copy): the server saw only the one past it.
    assert.deepEqual(host.state.requests, [false, true, true], JSON.stringify(host.state.requests));
    await openEvidence(page);
    await assertFixtureNumbers(page, 'after the reload');
    assertNoProblems(problems, 'a .wasm cut in half twice, then a reload');
  } finally {
    await close();
    await host.close();
  }
});
