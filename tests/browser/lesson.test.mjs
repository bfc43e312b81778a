// The built lesson (dist/) in headless Chromium, served under a strict Content-Security-Policy.
// Every expected number comes from fixtures/chapter26.json or from plain JS arithmetic on it, never from the page.
//   node --test --test-concurrency=1 tests/browser/*.test.mjs
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { after, before, test } from 'node:test';
import {
  assertNoProblems,
  caption,
  cell,
  coreCallsCounted,
  countCoreCalls,
  host,
  launchBrowser,
  openEvidence,
  openLesson,
  openPage,
  qkvExpected,
  readFixture,
  readTrace,
  rendered,
  repo,
  startServer,
  tableTexts,
  waitLaidOut,
  waitRenderedAfter,
  waitReady,
  waitUrlSynced,
} from './harness.mjs';

const tensorKeys = [
  'input',
  'query_weight',
  'key_weight',
  'value_weight',
  'query',
  'key',
  'value',
  'input_gradient',
  'query_weight_gradient',
  'key_weight_gradient',
  'value_weight_gradient',
  'query_upstream',
  'key_upstream',
  'value_upstream',
];
const outputKeys = ['query', 'key', 'value', 'input_gradient', 'query_weight_gradient', 'key_weight_gradient', 'value_weight_gradient'];

let server;
let browser;
let fixture;

before(async () => {
  [server, browser, fixture] = await Promise.all([startServer(), launchBrowser(), readFixture()]);
});
after(async () => {
  await browser?.close();
  await server?.close();
});

// The fixture's tensor for a page key: inputs at the top level, upstreams under upstream, outputs under expected.
function fixtureTensor(key) {
  if (key.endsWith('_upstream')) return fixture.upstream[key.replace('_upstream', '')];
  return fixture[key] ?? fixture.expected[key];
}

const shapeText = (shape) => `[${shape.join(', ')}]`;

// The page shows each double as its shortest round-trip decimal; JS's Number→String is also the shortest
// round-trip form, and for these small integers and halves both give the same text ("1.5", "-5", "0").
const texts = (values) => values.map((value) => String(value));

const inLesson = (page, selector) => page.locator(`qkv-lesson ${selector}`);

async function assertOutputs(page, expected, context) {
  for (const key of outputKeys) {
    assert.deepEqual(await tableTexts(page, key), texts(expected[key]), `${context}: table ${key} should show ${texts(expected[key]).join(', ')}`);
  }
}

// The element focused right now, looking through the lesson's shadow root.
function deepFocus(page) {
  return page.evaluate(() => {
    let active = document.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    if (!active || active === document.body) return { kind: 'body' };
    return {
      kind: active.tagName.toLowerCase(),
      size: active.dataset?.size ?? null,
      field: active.dataset?.field ?? null,
      index: active.dataset?.index ?? null,
      exercise: active.closest('form[data-exercise]')?.dataset.exercise ?? null,
      inExercisesSection: Boolean(active.closest('section.exercises')),
    };
  });
}

test('1. at 1280 and 390 px: ready without console errors under the CSP, and every tensor is one labelled table', async () => {
  for (const width of [1280, 390]) {
    const { page, problems, close } = await openLesson(browser, server.url, { width });
    try {
      await openEvidence(page);
      for (const key of tensorKeys) {
        const table = inLesson(page, `[data-tensor="${key}"]`);
        assert.equal(await table.count(), 1, `${width}px: expected exactly one element with data-tensor="${key}"`);
        assert.equal(await table.evaluate((el) => el.tagName), 'TABLE', `${width}px: data-tensor="${key}" should be a <table>`);
        const expectedShape = shapeText(fixtureTensor(key).shape);
        assert.ok((await caption(page, key)).includes(expectedShape), `${width}px: caption of ${key} ("${await caption(page, key)}") should contain its shape ${expectedShape}`);
        assert.ok((await table.locator('th[scope="col"]').count()) > 0, `${width}px: ${key} has no th[scope=col] column headers`);
        const bodyRows = await table.locator('tbody tr').count();
        const rowHeaders = await table.locator('th[scope="row"]').count();
        assert.ok(bodyRows > 0, `${width}px: the fixture's ${key} has rows, but the table shows none`);
        assert.equal(rowHeaders, bodyRows, `${width}px: ${key} has ${bodyRows} body rows but ${rowHeaders} th[scope=row] headers`);
      }
      assertNoProblems(problems, `${width}px page load`);
    } finally {
      await close();
    }
  }
});

test('2. the diagram shows the fixture’s expected outputs, gradients and loss', async () => {
  const { page, problems, close } = await openLesson(browser, server.url);
  try {
    const expected = Object.fromEntries(outputKeys.map((key) => [key, fixture.expected[key].values]));
    await assertOutputs(page, expected, 'fixture');
    for (const key of ['input', 'query_weight', 'key_weight', 'value_weight', 'query_upstream', 'key_upstream', 'value_upstream']) {
      assert.deepEqual(await tableTexts(page, key), texts(fixtureTensor(key).values), `fixture: editable table ${key} should hold the fixture values`);
    }
    const loss = await inLesson(page, '.loss').innerText();
    assert.ok(loss.includes(`L = ${String(fixture.expected.loss)}`), `loss line should say "L = ${fixture.expected.loss}", got "${loss}"`);
    assert.ok(loss.includes('L = -2'), `loss line should say "L = -2", got "${loss}"`);
    assertNoProblems(problems, 'fixture page');
  } finally {
    await close();
  }
});

test('3. editing X[0] from 1 to 2 recomputes Q, K, V, the gradients and the loss, and updates the URL', async () => {
  const { page, problems, close } = await openLesson(browser, server.url);
  try {
    const before = await rendered(page);
    await cell(page, 'input', 0).fill('2');
    await waitRenderedAfter(page, before);
    assert.ok((await rendered(page)) > before, `data-rendered should increase after an accepted edit (was ${before})`);

    const edited = structuredClone(fixture);
    edited.input.values[0] = 2;
    const expected = qkvExpected(edited);
    // Sanity: the same arithmetic reproduces the fixture before the edit, so it is a fair oracle.
    const original = qkvExpected(fixture);
    for (const key of outputKeys) assert.deepEqual(original[key], fixture.expected[key].values, `test oracle: JS arithmetic disagrees with fixture ${key}`);
    assert.equal(original.loss, fixture.expected.loss, 'test oracle: JS loss disagrees with the fixture');

    await assertOutputs(page, expected, 'after X[0] = 2');
    assert.notDeepEqual(await tableTexts(page, 'query'), texts(fixture.expected.query.values), 'Q should differ from the fixture after the edit');
    const loss = await inLesson(page, '.loss').innerText();
    assert.ok(loss.includes(`L = ${String(expected.loss)}`), `loss should now be L = ${expected.loss}, got "${loss}"`);

    await waitUrlSynced(page);
    const x = new URL(page.url()).searchParams.get('x');
    assert.equal(x, texts(edited.input.values).join(','), `URL ?x= should carry the edited cells, URL is ${page.url()}`);
    assert.ok(new URL(page.url()).search.includes('x=2%2C') || new URL(page.url()).search.includes('x=2,'), `query string should contain x=2,…: ${page.url()}`);
    assert.equal(await host(page, 'data-error'), null, 'no data-error after a valid edit');
    assertNoProblems(problems, 'editing X');
  } finally {
    await close();
  }
});

test('4. rejected entries: the message sits next to the field, the last valid numbers stay, fixing clears it', async () => {
  const { page, problems, close } = await openLesson(browser, server.url);
  try {
    const lastValid = Object.fromEntries(['query', 'key', 'value'].map((key) => [key, texts(fixture.expected[key].values)]));
    const keyCell = cell(page, 'key_weight', 1);
    const keyError = inLesson(page, '.card.branch.key .field-error');

    await keyCell.fill('abc');
    await keyError.waitFor({ state: 'visible', timeout: 3000 }).catch(() => {});
    assert.ok(await keyError.isVisible(), 'the W_K field error should be visible after typing "abc"');
    const message = await keyError.innerText();
    assert.ok(message.includes('"abc" is not read: expected a number such as −1.5, 3/2 or 2e-3'), `W_K error should say '"abc" is not read: expected a number such as −1.5, 3/2 or 2e-3', got "${message}"`);
    assert.equal(await keyCell.getAttribute('aria-invalid'), 'true', 'the rejected W_K cell should have aria-invalid="true"');
    const errorId = await keyError.getAttribute('id');
    assert.ok((await keyCell.getAttribute('aria-describedby'))?.split(' ').includes(errorId), `the W_K cell should be described by its error (#${errorId})`);
    assert.ok((await host(page, 'data-error'))?.includes('"abc" is not read: expected a number such as −1.5, 3/2 or 2e-3'), `host data-error should hold the message, got ${await host(page, 'data-error')}`);
    for (const key of ['query', 'key', 'value']) {
      assert.deepEqual(await tableTexts(page, key), lastValid[key], `${key} should still show the last valid values while "abc" is rejected`);
    }

    await keyCell.fill('1');
    assert.equal(await host(page, 'data-error'), null, 'fixing the W_K cell should remove data-error');
    assert.equal(await keyError.isVisible(), false, 'fixing the W_K cell should hide its error');
    assert.equal(await keyCell.getAttribute('aria-invalid'), null, 'fixing the W_K cell should remove aria-invalid');
    assert.deepEqual(await tableTexts(page, 'key'), lastValid.key, 'K is back to the fixture once W_K[1] is 1 again');

    const batch = inLesson(page, 'input[data-size="batch"]');
    const sizesError = inLesson(page, '.controls .field-error');
    await batch.fill('9');
    assert.ok(await sizesError.isVisible(), 'the sizes error should be visible after Batch = 9');
    const batchMessage = await sizesError.innerText();
    assert.ok(batchMessage.includes('Batch B: "9" is not read: expected a whole number from 0 to 8'), `Batch = 9 message was "${batchMessage}"`);
    assert.equal(await batch.getAttribute('aria-invalid'), 'true', 'Batch input should be aria-invalid after "9"');
    for (const key of ['query', 'key', 'value']) {
      assert.deepEqual(await tableTexts(page, key), lastValid[key], `${key} should keep its last valid values while Batch = 9 is rejected`);
    }
    await batch.fill('1');
    assert.equal(await host(page, 'data-error'), null, 'Batch = 1 should clear the error');

    const width = inLesson(page, 'input[data-size="model_width"]');
    await width.fill('0');
    const widthMessage = await sizesError.innerText();
    assert.ok(
      widthMessage.includes('Model width d_model: "0" is not read: expected a whole number from 1 to 8'),
      `model width 0 should say what the width accepts, got "${widthMessage}"`,
    );
    const status = inLesson(page, '[role="status"][aria-live="polite"]');
    assert.equal(await status.count(), 1, 'one polite status live region is expected');
    await page.waitForFunction(
      () => {
        const region = document.querySelector('qkv-lesson')?.shadowRoot?.querySelector('[role="status"][aria-live="polite"]');
        return region?.textContent.includes('Rejected');
      },
      undefined,
      { timeout: 3000 },
    ).catch(() => {});
    const said = await status.innerText();
    assert.ok(said.includes('Rejected'), `the status region should eventually announce "Rejected…", it says "${said}"`);

    await width.fill('3');
    assert.equal(await host(page, 'data-error'), null, 'model width 3 should clear the error');
    assertNoProblems(problems, 'rejected entries');
  } finally {
    await close();
  }
});

test('5. sizes: an empty batch gives [0,2,2] outputs with the empty-row note; three tokens add a zero row to X', async () => {
  const { page, problems, close } = await openLesson(browser, server.url);
  try {
    await openEvidence(page);
    await inLesson(page, 'input[data-size="batch"]').fill('0');
    assert.equal(await host(page, 'data-error'), null, `Batch = 0 should be accepted, got error ${await host(page, 'data-error')}`);
    for (const key of ['query', 'key', 'value']) {
      const text = await caption(page, key);
      assert.ok(text.includes('[0, 2, 2]'), `${key} caption should show shape [0,2,2] for Batch = 0, got "${text}"`);
      const note = inLesson(page, `table[data-tensor="${key}"] td.empty`);
      assert.equal(await note.count(), 1, `${key} should have the empty-row note for Batch = 0`);
      assert.ok((await note.innerText()).includes('No rows'), `${key} empty note: "${await note.innerText()}"`);
      assert.equal(await inLesson(page, `table[data-tensor="${key}"] th[scope="row"]`).count(), 0, `${key} should have no row headers when empty`);
    }
    const checks = inLesson(page, '.deeper').getByText('Numerical checks'); // in the optional part after the main path
    assert.equal(await checks.count(), 1, 'the gradcheck section ("Numerical checks") should remain for an empty batch');
    assert.ok(await checks.isVisible(), 'the gradcheck section should be visible for an empty batch');

    await inLesson(page, 'button.reset').click();
    await inLesson(page, 'input[data-size="tokens"]').fill('3');
    assert.equal(await host(page, 'data-error'), null, `Tokens = 3 should be accepted, got ${await host(page, 'data-error')}`);
    assert.ok((await caption(page, 'input')).includes('[1, 3, 3]'), `X caption should show [1, 3, 3], got "${await caption(page, 'input')}"`);
    const rows = await inLesson(page, 'table[data-tensor="input"] tbody tr').count();
    assert.equal(rows, 3, `X should have 3 rows for Tokens = 3, has ${rows}`);
    const x = await tableTexts(page, 'input');
    assert.equal(x.length, 9, `X should have 9 cells, has ${x.length}`);
    assert.deepEqual(x.slice(6), ['0', '0', '0'], `the new token row of X should be zeros, got ${x.slice(6)}`);
    assert.ok((await caption(page, 'query')).includes('[1, 3, 2]'), `Q caption should show [1, 3, 2], got "${await caption(page, 'query')}"`);
    assertNoProblems(problems, 'size changes');
  } finally {
    await close();
  }
});

test('6. exercises: a wrong number gets a hint and a second try, then the answer; a right one, a choice, and xAPI-shaped answer events', async () => {
  const { page, problems, close } = await openLesson(browser, server.url);
  try {
    await page.evaluate(() => {
      window.__answers = [];
      document.addEventListener('qkv-lesson-answer', (event) => window.__answers.push(event.detail));
    });
    const form = inLesson(page, 'form[data-exercise="ch26-parameter-count"]');
    const feedback = form.locator('[data-feedback]');
    assert.equal((await feedback.innerText()).trim(), '', 'feedback should be empty before answering (no answer revealed early)');

    await form.locator('input[type="text"]').fill('17');
    await form.getByRole('button', { name: 'Check' }).click();
    let said = await feedback.innerText();
    assert.ok(said.includes('Not quite'), `17 should be "Not quite", feedback: "${said}"`);
    assert.ok(said.includes('Hint: Too few.'), `17 should get the core's hint, feedback: "${said}"`);
    assert.ok(!said.includes('Answer:'), `the first wrong try keeps the answer back, feedback: "${said}"`);
    assert.equal(await form.getAttribute('data-answered'), 'incorrect');

    await form.locator('input[type="text"]').fill('1.9e1');
    await form.getByRole('button', { name: 'Check' }).click();
    said = await feedback.innerText();
    assert.ok(said.includes(`Answer: ${fixture.expected.parameter_count}`), `a second wrong try reveals the answer ${fixture.expected.parameter_count}, feedback: "${said}"`);

    await form.locator('input[type="text"]').fill('18');
    await form.getByRole('button', { name: 'Check' }).click();
    said = await feedback.innerText();
    assert.ok(said.includes('Correct'), `18 should be "Correct", feedback: "${said}"`);
    assert.equal(await form.getAttribute('data-answered'), 'correct');

    const choice = inLesson(page, 'form[data-exercise="ch26-change-query-only"]');
    await choice.locator('input[value="no"]').check();
    await choice.getByRole('button', { name: 'Check' }).click();
    said = await choice.locator('[data-feedback]').innerText();
    assert.ok(said.includes('Correct'), `"no" should be correct for ch26-change-query-only, feedback: "${said}"`);

    const answers = await page.evaluate(() => window.__answers);
    assert.equal(answers.length, 5, `expected 5 qkv-lesson-answer events, got ${answers.length}`);
    const [wrong, secondWrong, shown, right, picked] = answers;
    assert.deepEqual(
      answers.map((statement) => statement.verb.id),
      ['answered', 'answered', 'http://id.tincanapi.com/verb/viewed', 'answered', 'answered'].map((verb) => (verb === 'answered' ? 'http://adlnet.gov/expapi/verbs/answered' : verb)),
      'the answer the lesson showed after the second wrong check is recorded as viewed',
    );
    assert.equal(shown.context.extensions['urn:qkv-lesson:shown-by'], 'lesson');
    const questionId = (exercise) => `${new URL(page.url()).origin}/#qkv-lesson/exercise/${exercise}`;
    assert.equal(wrong.object.id, questionId('ch26-parameter-count'), 'object.id of the first answer');
    assert.deepEqual([wrong.result.success, wrong.result.response, wrong.result.score.raw], [false, '17', 0], 'result of answering 17');
    assert.deepEqual([secondWrong.result.response, secondWrong.result.extensions['urn:qkv-lesson:read']], ['1.9e1', ['19']], 'the statement keeps what was typed and what was read');
    assert.equal(right.object.id, questionId('ch26-parameter-count'), 'object.id of the second answer');
    // Right, but typed in after the lesson had shown the answer: never a success.
    assert.deepEqual([right.result.success, right.result.response, right.result.score.raw, right.result.extensions['urn:qkv-lesson:matched']], [false, '18', 0, true], 'result of answering 18');
    assert.match(await feedback.innerText(), /not counted as a success/);
    assert.equal(picked.object.id, questionId('ch26-change-query-only'), 'object.id of the choice answer');
    assert.deepEqual([picked.result.success, picked.result.response, picked.result.score.raw], [true, 'no', 1], 'result of choosing "no"');
    assertNoProblems(problems, 'exercises');
  } finally {
    await close();
  }
});

test('7. a copied URL reproduces an edit in a new page, and Reset restores the fixture and its URL', async () => {
  const first = await openLesson(browser, server.url);
  let second;
  try {
    await cell(first.page, 'value_weight', 0).fill('-2.5');
    assert.equal(await host(first.page, 'data-error'), null, `-2.5 should be accepted, got ${await host(first.page, 'data-error')}`);
    const edited = structuredClone(fixture);
    edited.value_weight.values[0] = -2.5;
    const expected = qkvExpected(edited);
    await assertOutputs(first.page, expected, 'first page after W_V[0] = -2.5');
    const copied = await waitUrlSynced(first.page);
    assert.equal(new URL(copied).searchParams.get('wv'), texts(edited.value_weight.values).join(','), `URL should carry wv: ${copied}`);

    second = await openLesson(browser, copied);
    assert.equal(await cell(second.page, 'value_weight', 0).inputValue(), '-2.5', 'the copied link should restore the edited W_V cell');
    await assertOutputs(second.page, expected, 'new page from the copied URL');
    assert.ok((await second.page.locator('qkv-lesson .loss').innerText()).includes(`L = ${expected.loss}`), 'the copied link should show the recomputed loss');
    assertNoProblems(second.problems, 'page opened from the copied URL');

    await second.page.locator('qkv-lesson').getByRole('button', { name: 'Reset to the fixture' }).click();
    await assertOutputs(second.page, Object.fromEntries(outputKeys.map((key) => [key, fixture.expected[key].values])), 'after Reset');
    assert.equal(await cell(second.page, 'value_weight', 0).inputValue(), String(fixture.value_weight.values[0]), 'Reset should restore W_V[0]');
    const params = new URL(await waitUrlSynced(second.page)).searchParams;
    const expectedParams = {
      // The self-score experiment's settings ride along (the module's seed 1, 5 tokens, width 8).
      sseed: '1',
      sn: '5',
      sd: '8',
      b: String(fixture.input.shape[0]),
      t: String(fixture.input.shape[1]),
      d: String(fixture.input.shape[2]),
      h: String(fixture.query_weight.shape[1]),
      x: texts(fixture.input.values).join(','),
      wq: texts(fixture.query_weight.values).join(','),
      wk: texts(fixture.key_weight.values).join(','),
      wv: texts(fixture.value_weight.values).join(','),
      uq: texts(fixture.upstream.query.values).join(','),
      uk: texts(fixture.upstream.key.values).join(','),
      uv: texts(fixture.upstream.value.values).join(','),
    };
    assert.deepEqual(Object.fromEntries(params), expectedParams, `after Reset the URL should describe the fixture: ${second.page.url()}`);
    assertNoProblems(first.problems, 'first page');
  } finally {
    await first.close();
    await second?.close();
  }
});

test('8. dist works from a sub-path with no third-party or failed requests', async () => {
  const base = '/course/lesson/';
  const sub = await startServer({ base });
  const { page, problems, requests, close } = await openPage(browser);
  try {
    await page.goto(sub.url);
    await waitReady(page);
    await waitLaidOut(page);
    assert.deepEqual(await tableTexts(page, 'query'), texts(fixture.expected.query.values), 'Q from the sub-path');
    assertNoProblems(problems, `served at ${base}`);
    assert.ok(requests.some((url) => url.endsWith('.wasm')), `the WASM module should have been requested: ${requests.join(', ')}`);
    const foreign = requests.filter((url) => !url.startsWith(sub.origin));
    assert.deepEqual(foreign, [], `every request should go to ${sub.origin}; third-party requests:\n  ${foreign.join('\n  ')}`);
    const outside = requests.filter((url) => !url.startsWith(`${sub.origin}${base}`));
    assert.deepEqual(outside, [], `every request should stay under ${base}:\n  ${outside.join('\n  ')}`);
  } finally {
    await close();
    await sub.close();
  }
});

test('9. keyboard: Tab reaches the sizes and X before the exercises; typing keeps focus in the cell', async () => {
  const { page, problems, close } = await openLesson(browser, server.url);
  try {
    await page.evaluate(() => (document.activeElement instanceof HTMLElement ? document.activeElement.blur() : undefined));
    const visited = [];
    let batchAt = -1;
    let xAt = -1;
    let exercisesAt = -1;
    for (let press = 0; press < 60 && exercisesAt < 0; press++) {
      await page.keyboard.press('Tab');
      const focus = await deepFocus(page);
      visited.push(focus.size ?? (focus.field ? `${focus.field}[${focus.index}]` : focus.exercise ? `exercise ${focus.exercise}` : focus.kind));
      if (batchAt < 0 && focus.size === 'batch') batchAt = press;
      if (xAt < 0 && focus.field === 'input') xAt = press;
      if (exercisesAt < 0 && focus.inExercisesSection) exercisesAt = press;
      if (xAt >= 0 && batchAt >= 0) break;
    }
    const order = `tab order: ${visited.join(' → ')}`;
    assert.ok(batchAt >= 0, `Tab never reached the Batch size input; ${order}`);
    assert.ok(xAt >= 0, `Tab never reached a cell of X; ${order}`);
    assert.equal(exercisesAt, -1, `Tab reached the exercises before the sizes and X; ${order}`);
    assert.ok(batchAt < xAt, `the size inputs should come before X's cells; ${order}`);

    const focused = await deepFocus(page);
    assert.deepEqual([focused.field, focused.index], ['input', '0'], `Tab should land on X[0] first; ${order}`);
    await page.keyboard.press('Control+A');
    const before = await rendered(page);
    await page.keyboard.type('25');
    await waitRenderedAfter(page, before);

    const after = await deepFocus(page);
    assert.deepEqual([after.field, after.index], ['input', '0'], `focus should stay in X[0] across re-renders, it is on ${JSON.stringify(after)}`);
    assert.equal(await cell(page, 'input', 0).inputValue(), '25', 'X[0] should hold what was typed');
    const edited = structuredClone(fixture);
    edited.input.values[0] = 25;
    assert.deepEqual(await tableTexts(page, 'query'), texts(qkvExpected(edited).query), 'Q should follow X[0] = 25 typed from the keyboard');
    assertNoProblems(problems, 'keyboard');
  } finally {
    await close();
  }
});

test('10. when the WASM cannot load, the element ends in data-state="error" with a readable message', async () => {
  const { page, close } = await openPage(browser);
  try {
    let aborted = 0;
    await page.route('**/*.wasm', (route) => {
      aborted++;
      return route.abort();
    });
    await page.goto(server.url);
    await page.waitForFunction(() => document.querySelector('qkv-lesson')?.dataset.state === 'error', undefined, { timeout: 10000 }).catch(() => {});
    assert.ok(aborted > 0, 'the .wasm request should have been intercepted');
    assert.equal(await host(page, 'data-state'), 'error', 'data-state should be "error" when the WASM request fails');
    const message = inLesson(page, '[role="alert"]');
    assert.ok(await message.isVisible(), 'a visible alert should explain the failure');
    const text = await message.innerText();
    // It names the file that failed and why (issue 19), and offers Retry (tests/browser/wasm-download.test.mjs retries).
    assert.match(text, /Could not download the lesson’s engine \(qkv(-simd)?-[\w-]+\.wasm\): the network request failed/, `the alert should name the file that did not load, got "${text}"`);
    assert.equal(await inLesson(page, 'button:text("Retry")').count(), 1, 'a Retry button');
    assert.equal(await inLesson(page, 'table[data-tensor]').count(), 0, 'no tables should be shown without the engine');
  } finally {
    await close();
  }
});

test('11. screenshots at 1280 and 390 px, and no page-level sideways scroll at 390 px', async () => {
  const dir = resolve(repo, 'build/screenshots');
  await mkdir(dir, { recursive: true });
  for (const width of [1280, 390]) {
    const { page, problems, close } = await openLesson(browser, server.url, { width });
    try {
      await page.evaluate(() => document.fonts.ready);
      await page.screenshot({ path: resolve(dir, `lesson-${width}.png`), fullPage: true });
      if (width === 390) {
        const overflow = await page.evaluate(() => {
          const parentOf = (el) => el.parentElement ?? (el.parentNode instanceof ShadowRoot ? el.parentNode.host : null);
          // Clipped when a scrolling/clipping ancestor lies on the element's containing-block chain
          // (an absolutely positioned box escapes overflow clipping unless that ancestor is positioned).
          const clipped = (el) => {
            let absolute = ['absolute', 'fixed'].includes(getComputedStyle(el).position);
            for (let p = parentOf(el); p && p !== document.body; p = parentOf(p)) {
              const style = getComputedStyle(p);
              if (absolute && style.position === 'static' && style.transform === 'none' && style.contain === 'none') continue;
              if (style.overflowX !== 'visible') return true;
              absolute = style.position === 'absolute' || style.position === 'fixed';
            }
            return false;
          };
          const wide = [];
          const walk = (root) => {
            for (const el of root.querySelectorAll('*')) {
              const box = el.getBoundingClientRect();
              const name = (node) => (node ? `${node.tagName.toLowerCase()}${[...node.classList].map((c) => `.${c}`).join('')}` : '?');
              if (box.right > innerWidth + 0.5 && !clipped(el)) wide.push(`${name(el)} in ${name(parentOf(el))} (right edge ${Math.round(box.right)}px)`);
              if (el.shadowRoot) walk(el.shadowRoot);
            }
          };
          walk(document);
          return { scrollWidth: document.documentElement.scrollWidth, wide: wide.slice(0, 8) };
        });
        assert.ok(
          overflow.scrollWidth <= 390,
          `at 390px the page scrolls sideways (scrollWidth ${overflow.scrollWidth}); unclipped elements past the edge: ${overflow.wide.join(', ')}`,
        );
      }
      assertNoProblems(problems, `${width}px screenshot`);
    } finally {
      await close();
    }
  }
});

test('12. the whole lesson is in the page at ready; its first frame lays out the header, then each frame the next stretch and small ones after it while under 5 ms, top down', async () => {
  const { page, problems, close } = await openPage(browser);
  try {
    await page.addInitScript(() => {
      document.addEventListener('qkv-lesson-ready', (event) => {
        const root = event.target.shadowRoot;
        // Stretches still out of the layout (laid-out.ts); those in a hidden section count no elements.
        const waiting = () => [...root.querySelectorAll('.later')];
        const stretches = waiting();
        const shown = stretches.filter((stretch) => !stretch.closest('[hidden]'));
        window.__atReady = { loss: root.querySelector('.loss').textContent, checks: root.querySelector('.deeper')?.textContent.includes('Numerical checks') ?? false, waiting: stretches.length, shown: shown.length, header: root.querySelector('article > header').classList.contains('later'), boxed: [...root.querySelector('article').children].slice(1).filter((element) => element.getClientRects().length > 0).map((element) => element.className) };
        // This callback comes before the element's in each frame: it sees what the frame before laid out.
        const perFrame = [];
        let before = stretches;
        const tick = () => {
          const now = waiting();
          perFrame.push(before.filter((stretch) => !now.includes(stretch)).map((stretch) => ({ index: stretches.indexOf(stretch), elements: stretch.closest('[hidden]') ? 0 : stretch.getElementsByTagName('*').length + 1 })));
          before = now;
          if (event.target.dataset.laidOut === undefined) requestAnimationFrame(tick);
          else window.__perFrame = perFrame;
        };
        requestAnimationFrame(() => requestAnimationFrame(tick));
      });
    });
    await page.goto(server.url);
    await waitReady(page);
    await page.waitForFunction(() => window.__perFrame, undefined, { timeout: 10000 });
    const { atReady, perFrame, steps } = await page.evaluate(() => ({ atReady: window.__atReady, perFrame: window.__perFrame, steps: performance.getEntriesByName('qkv-lesson-layout-step').map((entry) => entry.detail.laidOutAfter) }));
    assert.ok(atReady.loss.includes(`L = ${String(fixture.expected.loss)}`), `at ready the loss line is already in the page: "${atReady.loss}"`);
    assert.ok(atReady.checks, 'at ready the numerical checks are already in the page');
    assert.ok(atReady.shown >= 20 && !atReady.header, `at ready everything after the header waits for its frame (${atReady.shown} stretches shown)`);
    // The prerendered opening (index.html) was on screen before ready: its section is laid out at once
    // (prerendered.ts), so that it does not leave the layout for a frame.
    assert.deepEqual(atReady.boxed, ['worked'], 'nothing after the header but the prerendered opening has a box at ready (a stretch, whatever display its own rules give it, or what holds stretches)');
    const [first, ...rest] = perFrame;
    assert.deepEqual(first, [], 'the first frame after ready lays out the header alone');
    // Each frame after it is one layout step of the page's (its qkv-lesson-layout-step measure: the ms from the
    // frame's start to each stretch's end, as the page measured them).
    assert.deepEqual(
      rest.map((stretches) => stretches.length),
      steps.map((laidOutAfter) => laidOutAfter.length),
      'each frame lays out the stretches of one layout step, one at least',
    );
    for (const [index, stretches] of rest.entries()) {
      for (let next = 1; next < stretches.length; next++) {
        // 5 and 20: layoutMsPerFrame and smallStretch in laid-out.ts.
        assert.ok(steps[index][next - 1] < 5 && stretches[next].elements <= 20, `frame ${index + 2} takes stretch ${next + 1} only if it is small and the ones before took under 5 ms (${JSON.stringify(stretches)}, ${JSON.stringify(steps[index])})`);
      }
    }
    const order = perFrame.flat().map((stretch) => stretch.index);
    assert.deepEqual(order, [...order].sort((a, b) => a - b), 'the stretches are laid out in reading order');
    assert.equal(order.length, atReady.waiting, 'every stretch is laid out before data-laid-out');
    await waitLaidOut(page);
    const after = await page.evaluate(() => {
      const root = document.querySelector('qkv-lesson').shadowRoot;
      return { waiting: root.querySelectorAll('.later').length, loss: root.querySelector('.loss').innerText };
    });
    assert.equal(after.waiting, 0, 'once laid out, no stretch waits');
    assert.ok(after.loss.includes(`L = ${String(fixture.expected.loss)}`), `the loss line far below shows its text: "${after.loss}"`);
    // The gradcheck follows once the page is idle (the core leaves it out of an evaluation): the card then
    // shows the core's counts for the fixture, and again for an edit's numbers.
    const checked = () => inLesson(page, '.deeper dl.facts:not(.checks-pending)').filter({ hasText: 'Numbers judged' });
    await checked().waitFor();
    assert.match(await checked().innerText(), new RegExp(`\\(${4 * fixture.expected.gradcheck.checks_per_tensor} in all\\)`));
    await inLesson(page, 'input[data-field="input"][data-index="0"]').fill('4');
    await checked().waitFor();
    // The card first, the verdicts in the idle moment after it (diagram-section.ts): then nothing waits.
    await page.waitForFunction(() => document.querySelector('qkv-lesson').shadowRoot.querySelectorAll('.checks-pending').length === 0, undefined, { timeout: 10000 });
    assertNoProblems(problems, 'first frame');
  } finally {
    await close();
  }
});

// Opens the lesson, ready and laid out, with idle moments held: they come only when the test says (the page's
// whenIdle uses requestIdleCallback). __idleOnce gives the page one; __idleNow keeps it idle until all its idle
// work is done (whenIdle runs one callback per idle moment, the warm-up a slice in each).
async function openHoldingIdleMoments() {
  const opened = await openPage(browser);
  await opened.page.addInitScript(() => {
    const held = new Map();
    let handles = 0;
    window.requestIdleCallback = (callback) => (held.set(++handles, callback), handles);
    window.cancelIdleCallback = (handle) => void held.delete(handle);
    window.__idleOnce = () => {
      const callbacks = [...held.values()];
      held.clear();
      for (const callback of callbacks) callback({ didTimeout: false, timeRemaining: () => 50 });
    };
    window.__idleNow = () => {
      for (let moment = 0; moment < 200 && held.size > 0; moment++) window.__idleOnce();
    };
  });
  await opened.page.goto(server.url);
  await waitReady(opened.page);
  await waitLaidOut(opened.page);
  return opened;
}

test('13. while the numerical and bitwise checks wait for an idle moment, their card shows the same rows (the rules, the figures "being checked…") and keeps its height, and the verdicts wait in their places', async () => {
  // The waiting card can be looked at for as long as needed: idle moments come only when the test says.
  const { page, problems, close } = await openHoldingIdleMoments();
  try {
    const card = () =>
      page.evaluate(() => {
        const dl = [...document.querySelector('qkv-lesson').shadowRoot.querySelectorAll('.deeper dl.facts')].find((list) => list.textContent.includes('Numbers judged'));
        return { pending: dl.classList.contains('checks-pending'), terms: [...dl.querySelectorAll('dt')].map((dt) => dt.textContent), details: [...dl.querySelectorAll('dd')].map((dd) => dd.textContent), height: dl.getBoundingClientRect().height };
      });
    // The bitwise checks wait with the gradcheck: the verdicts of "change only W_Q" and "change only U_K", and the
    // replay's row among the implementers' checks.
    const verdicts = () =>
      page.evaluate(() => {
        const root = document.querySelector('qkv-lesson').shadowRoot;
        // A name in prose is MathML (W̄ sub K); its typed form is in data-name.
        const typed = (element) => {
          const copy = element.cloneNode(true);
          for (const name of copy.querySelectorAll('math[data-name]')) name.replaceWith(name.dataset.name);
          return copy.textContent;
        };
        return { verdicts: [...root.querySelectorAll('ul.verdicts li')].map(typed), replay: root.querySelector('.replay-verdict').textContent };
      });
    const waiting = await card();
    assert.equal(waiting.pending, true, 'until an idle moment the checks wait');
    const verdictsWaiting = await verdicts();
    assert.equal(verdictsWaiting.verdicts.length, 7, `three outputs and four gradients: ${verdictsWaiting.verdicts.join(' | ')}`);
    assert.ok(verdictsWaiting.verdicts.every((text) => text.endsWith(': being checked…')), `the verdicts wait: ${verdictsWaiting.verdicts.join(' | ')}`);
    assert.equal(verdictsWaiting.replay, 'being checked…');
    await page.evaluate(() => window.__idleNow());
    const done = await card();
    assert.equal(done.pending, false, 'checked at the idle moment');
    const verdictsDone = await verdicts();
    // The expected outcomes: the first three and the replay from the Rust course's trace (INDEPENDENCE, PROOF);
    // the key upstream's from the fixture: adding 1 to U_K[0,0,0] moves W̄_K = Xᵀ U_K by X's first row and
    // X̄ = U_K W_Kᵀ by W_K's first column (each changed iff not all zero); W̄_Q and W̄_V do not read U_K.
    const trace = await readTrace();
    const [independence] = trace.INDEPENDENCE;
    const [proof] = trace.PROOF;
    const sameBits = (changed) => (changed ? 'changed' : 'unchanged, bit for bit');
    const [width] = fixture.key_weight.shape;
    const headWidth = fixture.key_weight.shape[1];
    const xRow = fixture.input.values.slice(0, fixture.input.shape[2]);
    const keyColumn = Array.from({ length: width }, (_, row) => fixture.key_weight.values[row * headWidth]);
    assert.deepEqual(verdictsDone.verdicts, [
      `Query output: ${independence.query_changed === 'true' ? 'changed' : 'unchanged: adding 1 to W_Q[0,0] moved no query value here'}`,
      `Key output: ${sameBits(independence.key_output !== 'bitwise-unchanged')}`,
      `Value output: ${sameBits(independence.value_output !== 'bitwise-unchanged')}`,
      `W̄_K: ${sameBits(xRow.some((v) => v !== 0))}`,
      'W̄_Q: unchanged, bit for bit',
      'W̄_V: unchanged, bit for bit',
      `X̄: ${sameBits(keyColumn.some((v) => v !== 0))}`,
    ], 'the core’s bitwise checks of the fixture');
    assert.equal(verdictsDone.replay, proof.replay === 'bitwise' ? 'the same bits both times' : 'different results');
    assert.deepEqual(waiting.terms, done.terms, 'the same rows');
    assert.deepEqual(waiting.details.slice(0, 2), done.details.slice(0, 2), 'the step and pass rules, in the core’s words, before the check');
    assert.ok(waiting.details.slice(2).every((text) => text === 'being checked…'), `the figures wait: ${waiting.details.slice(2).join(' | ')}`);
    assert.match(done.details[3], new RegExp(`\\(${4 * fixture.expected.gradcheck.checks_per_tensor} in all\\)`), 'then the core’s counts');
    assert.ok(Math.abs(waiting.height - done.height) <= 24, `the card keeps its height within a line: ${waiting.height} px waiting, ${done.height} px checked`);

    // An edit: its numbers wait for their own checks, in the same card, whose prose and formula stay the nodes
    // they were (an edit rebuilds only the figures and verdicts: laying the formula out again cost every edit).
    await page.evaluate(() => {
      window.__keptNodes = () => {
        const root = document.querySelector('qkv-lesson').shadowRoot;
        const checks = [...root.querySelectorAll('.deeper dl.facts')].find((list) => list.textContent.includes('Numbers judged')).parentElement;
        return [checks.querySelector('.math.display'), checks.querySelector('p'), ...[...root.querySelectorAll('ul.verdicts')].map((list) => list.previousElementSibling)];
      };
      window.__kept = window.__keptNodes();
    });
    await inLesson(page, 'input[data-field="input"][data-index="0"]').fill('4');
    await page.waitForFunction(() => document.querySelector('qkv-lesson').shadowRoot.querySelector('.deeper dl.facts.checks-pending') !== null);
    const edited = await card();
    assert.deepEqual(edited.terms, done.terms, 'the same rows after an edit');
    assert.ok(edited.details.slice(2).every((text) => text === 'being checked…'), `the edit's figures wait: ${edited.details.slice(2).join(' | ')}`);
    assert.ok((await verdicts()).verdicts.every((text) => text.endsWith(': being checked…')), 'no verdict of the last numbers stays');
    assert.deepEqual(await page.evaluate(() => window.__keptNodes().map((node, i) => node !== null && node === window.__kept[i])), [true, true, true, true], 'the formula and prose kept');
    await page.evaluate(() => window.__idleNow());
    assert.equal((await card()).pending, false, 'the edit’s numbers checked');

    // An empty batch leaves U_K no cell to change: the card says so instead of its verdicts, and gets them back
    // with the batch.
    const upstreamCard = () =>
      page.evaluate(() => {
        const card = [...document.querySelector('qkv-lesson').shadowRoot.querySelectorAll('section.card')].find((section) => section.querySelector('h5')?.textContent === 'Change only the key upstream');
        // A name in prose is MathML (U sub K); its typed form is in data-name.
        const typed = (element) => {
          const copy = element.cloneNode(true);
          for (const name of copy.querySelectorAll('math[data-name]')) name.replaceWith(name.dataset.name);
          return copy.textContent;
        };
        return { text: typed(card.querySelector('p')), verdicts: [...card.querySelectorAll('ul.verdicts li')].map(typed) };
      });
    await inLesson(page, 'input[data-size="batch"]').fill('0');
    await page.evaluate(() => window.__idleNow());
    assert.deepEqual(await upstreamCard(), { text: 'At these sizes U_K has no cell to change (an axis is empty), so there is nothing to compare.', verdicts: [] });
    await inLesson(page, 'input[data-size="batch"]').fill('1');
    await page.evaluate(() => window.__idleNow());
    const back = await upstreamCard();
    assert.equal(back.verdicts.length, 4, `the four gradients' verdicts again: ${back.verdicts.join(' | ')}`);
    assert.ok(back.verdicts.every((text) => !text.endsWith('being checked…')), `checked: ${back.verdicts.join(' | ')}`);
    assertNoProblems(problems, 'checks waiting');
  } finally {
    await close();
  }
});

test('14. idle work waits for the lesson to be laid out, then runs one callback per idle moment: the checks (drawn before what follows), the experiment, the warm-up', async () => {
  const { page, problems, close } = await openPage(browser);
  try {
    // Every requestIdleCallback the page makes, with whether the lesson was laid out then, and how many of the
    // page's idle callbacks were waiting at once (two waiting would run in the same idle moment).
    await page.addInitScript(() => {
      const asked = [];
      const waiting = new Set();
      let mostWaiting = 0;
      const request = window.requestIdleCallback.bind(window);
      const cancel = window.cancelIdleCallback.bind(window);
      window.requestIdleCallback = (callback, options) => {
        const handle = request((deadline) => {
          waiting.delete(handle);
          callback(deadline);
        }, options);
        waiting.add(handle);
        mostWaiting = Math.max(mostWaiting, waiting.size);
        asked.push(document.querySelector('qkv-lesson')?.dataset.laidOut !== undefined);
        return handle;
      };
      window.cancelIdleCallback = (handle) => {
        waiting.delete(handle);
        cancel(handle);
      };
      window.__idle = () => ({ asked, mostWaiting, drawn });
      // What is drawn first: the checks' verdicts or the experiment's results.
      const drawn = [];
      document.addEventListener('qkv-lesson-ready', (event) => {
        const root = event.target.shadowRoot;
        new MutationObserver(() => {
          if (!drawn.includes('checks') && root.querySelectorAll('.checks-pending').length === 0) drawn.push('checks');
          if (!drawn.includes('experiment') && root.querySelector('.self-score-results[data-shown]')) drawn.push('experiment');
        }).observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
      });
    });
    await page.goto(server.url);
    await waitReady(page);
    await waitLaidOut(page);
    const checked = () => inLesson(page, '.deeper dl.facts:not(.checks-pending)').filter({ hasText: 'Numbers judged' });
    await checked().waitFor();
    await page.waitForFunction(() => document.querySelector('qkv-lesson').dataset.warmed !== undefined, undefined, { timeout: 20000 });
    await inLesson(page, 'input[data-field="input"][data-index="0"]').fill('4');
    await checked().waitFor();
    const { asked, mostWaiting, drawn } = await page.evaluate(() => window.__idle());
    // The checks, the experiment and 40 warm-up slices (warm-up.ts), then the edit's checks.
    assert.ok(asked.length >= 43, `the idle work asked for idle moments (${asked.length} times)`);
    assert.deepEqual(asked.filter((laidOut) => !laidOut), [], 'no idle work is asked for before the lesson is laid out');
    assert.equal(mostWaiting, 1, 'the page waits for one idle moment at a time');
    // A piece of work split over idle moments goes on in the next ones (whenIdleNext), ahead of the work queued
    // after it: the checks (queued first) are drawn before the experiment (queued second) starts.
    assert.deepEqual(drawn, ['checks', 'experiment'], 'the checks are drawn, card and verdicts, before the experiment');
    assertNoProblems(problems, 'idle work');
  } finally {
    await close();
  }
});

test('15. the lesson taken off the page after its numbers were checked but before the checks were drawn: back on the page, they are drawn', async () => {
  const { page, problems, close } = await openHoldingIdleMoments();
  try {
    const pending = () => page.evaluate(() => document.querySelector('qkv-lesson').shadowRoot.querySelectorAll('.checks-pending').length);
    assert.ok((await pending()) > 0, 'the checks wait for an idle moment');
    // The first idle moment runs the checks (the first idle work, diagram-section.ts); their card and verdicts
    // are drawn in the next ones. Before those come, the lesson leaves the page and comes back.
    await page.evaluate(() => window.__idleOnce());
    assert.ok((await pending()) > 0, 'checked, not drawn yet');
    await page.evaluate(() => {
      const lesson = document.querySelector('qkv-lesson');
      const [parent, next] = [lesson.parentNode, lesson.nextSibling];
      lesson.remove();
      parent.insertBefore(lesson, next);
    });
    await page.evaluate(() => window.__idleNow());
    assert.equal(await pending(), 0, 'the card and the verdicts are drawn');
    assert.match(await inLesson(page, '.deeper dl.facts').filter({ hasText: 'Numbers judged' }).innerText(), new RegExp(`\\(${4 * fixture.expected.gradcheck.checks_per_tensor} in all\\)`));
    assertNoProblems(problems, 'taken off the page and back');
  } finally {
    await close();
  }
});

// The start asked the core twice for the same exercises listing (the view's constructor, then the first numbers
// shown) and twice for the same outcome (the allowances, then the record): no request is now made twice. Counted on
// the element's startOn (harness countCoreCalls).
test('16. the start makes no core request twice: the fixture, the exercises and the outcome are asked for once each', async () => {
  for (const path of ['/', '/embed.html?sections=exercises']) {
    const { page, problems, close } = await openPage(browser);
    try {
      await page.addInitScript(countCoreCalls, { requests: true });
      await page.goto(`${server.origin}${path}`);
      await waitReady(page);
      const { start } = await coreCallsCounted(page, path);
      for (const name of ['fixture', 'exercisesFor', 'lessonOutcome']) assert.equal(start[name]?.count, 1, `${path}: ${name} once at the start`);
      const requests = Object.entries(start).flatMap(([name, { requests }]) => Object.entries(requests).map(([request, count]) => [`${name} ${request}`, count]));
      const twice = requests.filter(([, count]) => count > 1).map(([request, count]) => `${count}× ${request.slice(0, 120)}`);
      assert.deepEqual(twice, [], `${path}: requests made more than once at the start`);
      assertNoProblems(problems, path);
    } finally {
      await close();
    }
  }
});
