// An author's own example (issue 40, item 3): the `example` attribute names a JSON file (docs/examples.md); the
// opening's tables, the first-token question and the best-key question follow its words and numbers. Expected
// answers are computed here with plain JS from the file itself (small integers and halves: exact in doubles). A
// file the core refuses shows the core's message, and the fixture stays. Reset goes back to the example.
//   node --test --test-concurrency=1 tests/browser/examples.test.mjs
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { answerExercise, assertNoProblems, cell, openLesson, readFixture, readText, rendered, repo, signalTimeout, useServerAndBrowser, waitRenderedAfter } from './harness.mjs';

const run = useServerAndBrowser();
const read = (text) => Number(String(text).replace('−', '-'));
const vector = (values) => `[${values.join(', ')}]`;
const openingTexts = (page, key) => page.locator(`qkv-lesson table[data-fixture-tensor="${key}"]`).evaluate((table) => [...table.querySelectorAll('tbody td')].map((cell) => cell.textContent.trim()));
const openingWords = (page) => page.locator('qkv-lesson table[data-fixture-tensor="input"] .token-name').allTextContents();

// Row `row` of X's first batch item times a weight, from the file's own arrays.
function project(file, weight, row) {
  const x = file.X[0][row].map(read);
  const w = file[weight].map((line) => line.map(read));
  return w[0].map((_, j) => x.reduce((total, value, k) => total + value * w[k][j], 0));
}

// Sets the attribute on the page's lesson and waits until its numbers are on screen.
async function showExample(page, url) {
  const before = await rendered(page);
  await page.locator('qkv-lesson').evaluate((lesson, value) => lesson.setAttribute('example', value), url);
  await waitRenderedAfter(page, before);
}

async function verdict(page, id, responses) {
  const form = await answerExercise(page, id, responses);
  await page.waitForFunction((f) => f.dataset.answered !== undefined, await form.elementHandle(), { timeout: signalTimeout });
  return form.evaluate((f) => f.dataset.answered);
}

for (const name of ['cats-chase-mice', 'own-key']) {
  test(`the shipped example ${name}.json: its words and X open the lesson, and the questions are graded by its numbers`, async () => {
    const file = JSON.parse(await readFile(resolve(repo, `web/public/examples/${name}.json`), 'utf8'));
    const { page, problems, close } = await openLesson(run.browser, run.server.url);
    try {
      await showExample(page, `examples/${name}.json`);
      assert.deepEqual((await openingTexts(page, 'input')).map(read), file.X.flat(2).map(read), 'the opening shows the file’s X');
      assert.deepEqual(await openingWords(page), file.tokens.map((word) => `“${word}”`), 'the opening names its rows by the file’s words');
      const which = () => readText(page.locator('qkv-lesson .problem-seed'));
      assert.equal(await which(), `The author’s example: ${file.title}.`, 'the problem line names the example by its title');

      const firstToken = page.locator('qkv-lesson form[data-exercise="ch26-first-token"]');
      const question = await readText(firstToken.locator('.question-title'));
      assert.ok(question.includes(`“${file.tokens[0]}”`), `the first-token question names “${file.tokens[0]}”: ${question}`);
      const answers = ['W_Q', 'W_K', 'W_V'].map((weight) => vector(project(file, weight, 0)));
      assert.equal(await verdict(page, 'ch26-first-token', answers), 'correct', `q₀, k₀, v₀ = ${answers.join(' ')}`);

      // The best key for token 0's query: the largest q₀·kⱼ, computed from the file.
      const query = project(file, 'W_Q', 0);
      const scores = file.tokens.map((_, j) => project(file, 'W_K', j).reduce((total, value, k) => total + value * query[k], 0));
      const best = scores.indexOf(Math.max(...scores));
      assert.equal(scores.filter((score) => score === scores[best]).length, 1, 'the file leaves no tie');
      assert.equal(await verdict(page, 'ch26-best-key', [`token-${best}`]), 'correct', `scores ${scores.join(', ')}`);

      // An edit keeps the words; Reset goes back to the example, not to the fixture.
      let before = await rendered(page);
      await cell(page, 'input', 0).fill('7');
      await waitRenderedAfter(page, before);
      assert.equal((await openingTexts(page, 'input'))[0], '7');
      assert.deepEqual(await openingWords(page), file.tokens.map((word) => `“${word}”`), 'an edit keeps the example’s words');
      assert.equal(await which(), 'Your own numbers.', 'edited, they are no longer the example’s as given');
      before = await rendered(page);
      await page.locator('qkv-lesson').getByRole('button', { name: 'Reset to the example' }).click();
      await waitRenderedAfter(page, before);
      assert.deepEqual((await openingTexts(page, 'input')).map(read), file.X.flat(2).map(read), 'Reset shows the example’s X again');
      assert.equal(await which(), `The author’s example: ${file.title}.`, 'Reset names the example again');
      assertNoProblems(problems, name);
    } finally {
      await close();
    }
  });
}

test('a file the core refuses: the core’s message is shown and the fixture stays', async () => {
  const fixture = await readFixture();
  const { page, problems, close } = await openLesson(run.browser, run.server.url);
  try {
    // Three words but two rows of X.
    const broken = { title: 'Broken', tokens: ['a', 'b', 'c'], X: [[[1, 0], [0, 1]]], W_Q: [[1, 0], [0, 1]], W_K: [[1, 0], [0, 1]], W_V: [[1, 0], [0, 1]] };
    await page.route('**/examples/broken.json', (route) => route.fulfill({ json: broken }));
    await page.locator('qkv-lesson').evaluate((lesson) => lesson.setAttribute('example', 'examples/broken.json'));
    const message = 'X item 0 has 2 rows, expected 3 (one per word in tokens)';
    await page.locator('qkv-lesson').getByText(message, { exact: false }).first().waitFor({ timeout: signalTimeout });
    assert.deepEqual((await openingTexts(page, 'input')).map(read), fixture.input.values, 'the fixture’s X stays');
    assertNoProblems(problems, 'refused example');
  } finally {
    await close();
  }
});
