// What the views are for (issue 16): the question "which key does token 0's query match best?" comes
// before the query–key scores, which stay folded until it is checked; then the scores table shows the
// fixture's S = Q Kᵀ, each score explains its sum, the tokens are named, and after an edit of X and a change
// of T the scores and their sums follow the core's own new values.
//   node --test --test-concurrency=1 tests/browser/look-ahead.test.mjs
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertNoProblems, cell, coreInPage, openLesson, readFixture, rendered, tableTexts, useServerAndBrowser, waitRenderedAfter } from './harness.mjs';

const run = useServerAndBrowser();
const inLesson = (page, selector) => page.locator(`qkv-lesson ${selector}`);

// The lesson's state as it is on screen: the sizes bar and every editable table, as typed text.
function stateOnScreen() {
  const root = document.querySelector('qkv-lesson').shadowRoot;
  const size = (field) => root.querySelector(`input[data-size="${field}"]`).value;
  const [b, t, d, h] = ['batch', 'tokens', 'model_width', 'head_width'].map(size);
  const tensor = (key, shape) => ({ shape: shape.map(Number), cells: [...root.querySelectorAll(`input[data-field="${key}"]`)].map((input) => input.value) });
  return {
    batch: b,
    tokens: t,
    model_width: d,
    head_width: h,
    input: tensor('input', [b, t, d]),
    query_weight: tensor('query_weight', [d, h]),
    key_weight: tensor('key_weight', [d, h]),
    value_weight: tensor('value_weight', [d, h]),
    query_upstream: tensor('query_upstream', [b, t, h]),
    key_upstream: tensor('key_upstream', [b, t, h]),
    value_upstream: tensor('value_upstream', [b, t, h]),
  };
}

// What the core computes for the state on screen: the scores' texts and one score's provenance.
async function coreScores(page, index) {
  return page.evaluate(([state, index]) => {
    const evaluated = window.testCore.evaluate({ state });
    if (!evaluated.ok) return { error: evaluated.error.message };
    const explained = window.testCore.provenance({ state, tensor: 'scores', index });
    return { scores: evaluated.evidence.scores.text, names: evaluated.evidence.token_names, expression: explained.ok ? explained.expression : explained.error.message };
  }, [await page.evaluate(stateOnScreen), index]);
}

// How the page writes a number inside a sum: U+2212 minus, negatives in parentheses.
const prose = (text) => text.replace(/^-/, '−');
const factor = (text) => (text.startsWith('-') ? `(${prose(text)})` : text);

// S[b,i,j] from the Q and K tables on screen: query row i dotted with key row j, as a written-out sum.
function scoreSum(q, k, t, h, index, shown) {
  const b = Math.floor(index / (t * t));
  const i = Math.floor(index / t) % t;
  const j = index % t;
  const terms = [...Array(h).keys()].map((c) => `${factor(q[(b * t + i) * h + c])}·${factor(k[(b * t + j) * h + c])}`);
  return `S[${b},${i},${j}] = ${terms.join(' + ')} = ${prose(shown)}`;
}

const scoresTable = (page) => inLesson(page, 'table[data-tensor="scores"]');
const line = (page) => inLesson(page, '[data-provenance="scores"] .expression');

test('the best-key question comes before the folded scores; checked, they show the fixture’s S = Q Kᵀ and each score its sum', async () => {
  const fixture = await readFixture();
  const { page, problems, requests, close } = await openLesson(run.browser, run.server.url);
  try {
    await coreInPage(page, requests);
    const form = inLesson(page, 'form[data-exercise="ch26-best-key"]');
    assert.equal(await form.count(), 1, 'the page asks ch26-best-key');
    const order = await page.locator('qkv-lesson').evaluate((host) => {
      const root = host.shadowRoot;
      const question = root.querySelector('form[data-exercise="ch26-best-key"]');
      const scores = root.querySelector('table[data-tensor="scores"]');
      return Boolean(question.compareDocumentPosition(scores) & Node.DOCUMENT_POSITION_FOLLOWING);
    });
    assert.ok(order, 'the question comes before the scores table');
    assert.equal(await scoresTable(page).isVisible(), false, 'the scores are folded before the question is checked');

    // Check it with the core's answer for these numbers.
    const view = await page.evaluate(() => window.testCore.exercises({ seed: '1', tokens: '5', dim: '8' }).exercises.find((e) => e.id === 'ch26-best-key'));
    await form.locator(`input[value="${view.answer[0]}"]`).check();
    await form.getByRole('button', { name: 'Check' }).click();
    assert.match(await form.locator('[data-feedback]').innerText(), /Correct/);
    assert.ok(await scoresTable(page).isVisible(), 'checked: the scores are shown');
    await page.mouse.move(0, 0); // a keyboard learner's pointer rests away from the tables

    // The fixture's scores (fixtures/chapter26.json), and the tokens named by the core.
    assert.deepEqual(await tableTexts(page, 'scores'), fixture.expected.scores.values.map(String), 'the scores are the fixture’s');
    const names = (await coreScores(page, 0)).names;
    // Not a fixture value: the lesson's own words for its two tokens (token_word, cpp/chapter26/chapter26.cpp).
    assert.deepEqual(names, ['fresh', 'bread'], 'the core names the two tokens');
    for (const key of ['input', 'query', 'key', 'value']) {
      const rows = await inLesson(page, `table[data-tensor="${key}"] tbody th[scope="row"]`).allTextContents(); // Q, K and V may still be folded
      names.forEach((name, i) => assert.ok(rows[i].includes(`“${name}”`), `${key}: row ${i} is named “${name}” (${rows[i]})`));
    }
    // The score figure names its queries short: "q₀ fresh" (score-figure.test.mjs checks its keys and layout).
    const queries = await inLesson(page, 'table[data-tensor="scores"] tbody th[scope="row"]').allTextContents();
    names.forEach((name, i) => assert.ok(queries[i].startsWith(`q${'₀₁'[i]} ${name}`), `scores: row ${i} is query ${i} “${name}” (${queries[i]})`));

    // Each score explains its sum, built here from the Q and K on screen.
    const { query, key, scores } = fixture.expected;
    const [t, h] = [query.shape[1], query.shape[2]];
    const [q, k, shown] = await Promise.all([tableTexts(page, 'query'), tableTexts(page, 'key'), tableTexts(page, 'scores')]);
    for (const index of shown.keys()) {
      await inLesson(page, `table[data-tensor="scores"] td[data-index="${index}"]`).focus();
      assert.equal(await line(page).innerText(), scoreSum(q, k, t, h, index, shown[index]), `score ${index} explains its sum`);
    }
    // The last one again, from the fixture's Q and K rather than the tables on screen.
    const last = scores.values.length - 1;
    const fromFixture = scoreSum(query.values.map(String), key.values.map(String), t, h, last, String(scores.values[last]));
    assert.equal(await line(page).innerText(), fromFixture, 'the last score, written out');
    assertNoProblems(problems, 'look-ahead');
  } finally {
    await close();
  }
});

test('after an edit of X and a change of T, the scores and a score’s sum follow the core’s new values', async () => {
  const { page, problems, requests, close } = await openLesson(run.browser, run.server.url);
  try {
    await coreInPage(page, requests);
    await inLesson(page, 'details[data-evidence-for="ch26-best-key"] > summary').click(); // "Show the evidence"
    await page.mouse.move(0, 0); // a keyboard learner's pointer rests away from the tables
    const fixtureScores = await tableTexts(page, 'scores');

    // X[0,0,0]: 1 → 2.
    let before = await rendered(page);
    await cell(page, 'input', 0).fill('2');
    await waitRenderedAfter(page, before);
    let core = await coreScores(page, 1);
    assert.ok(core.scores, `the core evaluated the state on screen: ${core.error}`);
    assert.notDeepEqual(core.scores, fixtureScores, 'test sanity: the edit changes the scores');
    assert.deepEqual(await tableTexts(page, 'scores'), core.scores, 'after the edit, the scores are the core’s');
    await inLesson(page, 'table[data-tensor="scores"] td[data-index="1"]').focus();
    assert.equal(await line(page).innerText(), core.expression, 'S[0,0,1] writes out the core’s new sum');

    // Three tokens: a 3 × 3 table, the third token named by the core.
    before = await rendered(page);
    await inLesson(page, 'input[data-size="tokens"]').fill('3');
    await waitRenderedAfter(page, before);
    core = await coreScores(page, 5);
    assert.equal(core.scores.length, 9, 'test sanity: T = 3 gives 9 scores');
    assert.deepEqual(await tableTexts(page, 'scores'), core.scores, 'after T = 3, the scores are the core’s');
    const rows = await inLesson(page, 'table[data-tensor="scores"] tbody th[scope="row"]').allInnerTexts();
    assert.ok(rows[2].startsWith(`q₂ ${core.names[2]}`), `the third row is query 2, named by the core (${rows[2]}, ${core.names[2]})`);
    await inLesson(page, 'table[data-tensor="scores"] td[data-index="5"]').focus();
    assert.equal(await line(page).innerText(), core.expression, 'S[0,1,2] writes out the core’s sum');
    assertNoProblems(problems, 'look-ahead after edits');
  } finally {
    await close();
  }
});
