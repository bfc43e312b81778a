// Every answer form is read the same way in every kind of exercise (choice, count, shape, vector), in the
// page, by the core's one reader; lost work and silent changes are gone: a link the page cannot fully use
// says so, shrinking a size to 0 and back restores the numbers, and a link reopens the self-score seed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answerExercise, assertNoProblems, cell, host, openLesson, readText, rendered, tableTexts, useServerAndBrowser, waitRenderedAfter } from './harness.mjs';

const run = useServerAndBrowser();

// Answers an exercise as a learner does and returns what the page said.
async function answer(page, id, responses) {
  const form = await answerExercise(page, id, responses);
  return readText(form.locator('[data-feedback]'));
}

test('one browser test per kind: every form of a right answer is read as right', async () => {
  const { page, problems, close } = await openLesson(run.browser, run.server.url);
  try {
    const cases = [
      ['shape', 'ch26-output-shapes', [['[4,7,2]'], ['4 × 7 × 2'], ['(4, 7, 2)'], ['4*7*2'], ['[4.0,7,2]']]],
      ['shape ×2', 'ch26-empty-axes', [['[0,2,2]', '2×0×2'], ['0x2x2', '[2, 0, 2]']]],
      ['count', 'ch26-parameter-count', [['18'], ['18.0'], ['1.8e1'], ['018']]],
      ['vector', 'ch26-first-token', [['[0, 3]', '[3, 0]', '[3, −3]'], ['(0;3)', '3 0', '[3.0, -3.00]'], ['[0/1, 6/2]', '[3,0]', '3 −3']]],
      ['choice', 'ch26-change-query-only', [['no']]],
      ['count of', 'qkv04-quiz-3', [['2 of 5'], ['2'], ['2.0']]],
    ];
    for (const [kind, id, forms] of cases) {
      for (const responses of forms) {
        const said = await answer(page, id, responses);
        assert.match(said, /Correct/, `${kind} ${id}: ${JSON.stringify(responses)} → "${said}"`);
      }
    }
    // Anything else is not read, and the message says what was expected.
    assert.match(await answer(page, 'ch26-parameter-count', ['eighteen']), /^"eighteen" is not read: expected a whole number/);
    // A fraction is not a count (the core reads "5/5" or "2 of 5" as a count of rows, not "36/2").
    assert.match(await answer(page, 'ch26-parameter-count', ['36/2']), /^"36\/2" is not read: expected a whole number/);
    assert.match(await answer(page, 'ch26-output-shapes', ['[4,7']), /^"\[4,7" is not read: .*expected a shape such as \[4, 7, 2\]/);
    assert.match(await answer(page, 'ch26-first-token', ['[0, x]', '[3,0]', '[3,-3]']), /^"\[0, x\]" is not read: .*expected numbers such as/);
    assertNoProblems(problems, 'answer forms');
  } finally {
    await close();
  }
});

test('a wrong answer gets a hint computed from what was typed, then a second try', async () => {
  const { page, close } = await openLesson(run.browser, run.server.url);
  try {
    const said = await answer(page, 'ch26-output-shapes', ['[7, 2]']);
    assert.match(said, /Hint: A rank-two shape: this layer keeps the batch axis/);
    assert.doesNotMatch(said, /Answer:/);
    const vector = await answer(page, 'ch26-first-token', ['[0, 4]', '[3, 0]', '[3, -3]']);
    assert.match(vector, /q₀: your first coordinate is right; work out q₀\[1\] = x₀ · column 1 of W_Q = .*; k₀: right; v₀: right/);
  } finally {
    await close();
  }
});

test('a link with too few numbers for X says so and shows what it used', async () => {
  const { page, close } = await openLesson(run.browser, `${run.server.url}?b=1&t=2&d=3&h=2&x=1,2,3`);
  try {
    const notes = page.locator('qkv-lesson .link-notes');
    assert.equal(await notes.isVisible(), true);
    assert.match(await notes.innerText(), /The link gave 3 numbers for X, which needs 6 numbers at \[1, 2, 3\]; the missing ones are 0\./);
    assert.deepEqual(await tableTexts(page, 'input'), ['1', '2', '3', '0', '0', '0']);
  } finally {
    await close();
  }
});

test('setting tokens to 0 and back restores X and the upstreams', async () => {
  const { page, problems, close } = await openLesson(run.browser, run.server.url);
  try {
    const before = await tableTexts(page, 'input');
    await cell(page, 'input', 0).fill('5');
    const tokens = page.locator('qkv-lesson input[data-size="tokens"]');
    let revision = await rendered(page);
    await tokens.fill('0');
    await waitRenderedAfter(page, revision);
    assert.deepEqual(await tableTexts(page, 'input'), []);
    revision = await rendered(page);
    await tokens.fill('2');
    await waitRenderedAfter(page, revision);
    assert.deepEqual(await tableTexts(page, 'input'), ['5', ...before.slice(1)]);
    assert.equal(await host(page, 'data-error'), null);
    assertNoProblems(problems, 'shrink and grow');
  } finally {
    await close();
  }
});

test('a copied link reopens the self-score experiment at its seed', async () => {
  const { page, close } = await openLesson(run.browser, `${run.server.url}?sseed=42&sn=5&sd=8`);
  try {
    const seed = page.locator('qkv-lesson input[id$="-sb-seed"]');
    assert.equal(await seed.inputValue(), '42');
    await page.locator('qkv-lesson .self-score-results > p').first().waitFor();
    assert.match(await page.locator('qkv-lesson .self-score-results > p').first().innerText(), /^Seed 42, 5 tokens of width 8/);
  } finally {
    await close();
  }
});

test('a huge paste is refused quickly and echoed shortened everywhere it appears', async () => {
  const { page, problems, close } = await openLesson(run.browser, run.server.url);
  try {
    const pasted = '9'.repeat(1 << 20) + 'x';
    await cell(page, 'input', 0).fill(pasted);
    const error = await host(page, 'data-error');
    assert.ok(error.length < 200, `data-error holds ${error.length} characters`);
    assert.ok(error.includes(`"${'9'.repeat(80)}…"`), error.slice(0, 120));
    const field = page.locator('qkv-lesson .field-error:not([hidden])').first();
    assert.ok((await field.innerText()).length < 300, 'the field message is short');
    await page.waitForFunction(() => document.querySelector('qkv-lesson').shadowRoot.querySelector('.status').textContent.startsWith('Rejected'));
    const said = await page.locator('qkv-lesson .status').innerText();
    assert.ok(said.length < 200, `the live region says ${said.length} characters`);
    assert.deepEqual(await tableTexts(page, 'query'), ['0', '3', '2', '-1'], 'the last valid numbers stay');
    assertNoProblems(problems, 'huge paste');
  } finally {
    await close();
  }
});
