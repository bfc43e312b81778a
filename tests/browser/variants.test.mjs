// Practice on fresh numbers (issue 40): the chapter's questions follow the numbers on screen, and "Another one"
// draws a new problem whose seed goes in the link. Expected answers are computed with plain JS from the tables on
// screen (graded-problem.mjs; small integers and halves: exact in doubles); the fixture's from fixtures/chapter26.json.
//   node --test --test-concurrency=1 tests/browser/variants.test.mjs
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstTokenAnswer } from './graded-problem.mjs';
import { answerExercise, assertNoProblems, cell, openLesson, readFixture, readText, rendered, tableTexts, useServerAndBrowser, waitRenderedAfter, waitUrlSynced } from './harness.mjs';

const run = useServerAndBrowser();
const firstToken = (page) => page.locator('qkv-lesson form[data-exercise="ch26-first-token"]');
const questionText = (page) => readText(firstToken(page).locator('.question-title'));
const vector = (values) => `[${values.join(', ')}]`;

async function checkFirstToken(page, responses) {
  const form = await answerExercise(page, 'ch26-first-token', responses);
  await page.waitForFunction((f) => f.dataset.answered !== undefined, await form.elementHandle());
  return form.evaluate((f) => f.dataset.answered);
}

test('an edit of X changes the q₀ question’s words and the answer it accepts; the old verdict is said to be stale', async () => {
  const fixture = await readFixture();
  const { page, problems, close } = await openLesson(run.browser, run.server.url);
  try {
    const firstRow = fixture.input.values.slice(0, fixture.input.shape[2]);
    assert.match(await questionText(page), new RegExp(vector(firstRow).replace(/[[\]]/g, '\\$&').replace(/-/g, '[−-]')), 'the question names the fixture’s first token');
    const fixtureAnswer = await firstTokenAnswer(page);
    assert.equal(await checkFirstToken(page, fixtureAnswer), 'correct');

    const before = await rendered(page);
    await cell(page, 'input', 0).fill('3');
    await waitRenderedAfter(page, before);
    const words = await questionText(page);
    assert.match(words, /\[3, 2, [−-]1\]/, `the question names the edited first token: ${words}`);
    assert.doesNotMatch(words, /frozen fixture/, 'it no longer says it is about the fixture');
    assert.equal(await firstToken(page).locator('[data-stale]').count(), 1, 'the verdict about the old numbers is said to be stale');

    assert.equal(await checkFirstToken(page, fixtureAnswer), 'incorrect', 'the fixture’s answer is wrong for the numbers on screen');
    const editedAnswer = await firstTokenAnswer(page);
    assert.notDeepEqual(editedAnswer, fixtureAnswer);
    assert.equal(await checkFirstToken(page, editedAnswer), 'correct', 'the answer for the numbers on screen is right');
    assertNoProblems(problems, 'edit');
  } finally {
    await close();
  }
});

test('“Another one” draws a new problem with named tokens; its seed is in the link, and the link gives the same problem', async () => {
  const { page, problems, close } = await openLesson(run.browser, run.server.url);
  let seed;
  let drawn;
  try {
    const fixtureX = await tableTexts(page, 'input');
    const before = await rendered(page);
    await page.locator('qkv-lesson button.another-one').click();
    await waitRenderedAfter(page, before);
    seed = await page.locator('qkv-lesson [data-problem-seed]').getAttribute('data-problem-seed');
    assert.match(seed, /^\d+$/, 'the problem’s seed is shown');
    drawn = { x: await tableTexts(page, 'input'), question: await questionText(page) };
    assert.notDeepEqual(drawn.x, fixtureX, 'new numbers');
    const url = await waitUrlSynced(page);
    assert.equal(new URL(url).searchParams.get('v'), seed, 'the link carries the seed');
    assert.equal(await checkFirstToken(page, await firstTokenAnswer(page)), 'correct', 'the drawn problem is graded by its own numbers');
    assertNoProblems(problems, 'another one');
  } finally {
    await close();
  }
  const again = await openLesson(run.browser, `${run.server.url}?v=${seed}`);
  try {
    assert.deepEqual(await tableTexts(again.page, 'input'), drawn.x, 'the same numbers from the seed');
    assert.equal(await questionText(again.page), drawn.question, 'the same question, in the same words');
    assert.equal(await again.page.locator('qkv-lesson [data-problem-seed]').getAttribute('data-problem-seed'), seed);
    assertNoProblems(again.problems, 'the seed’s link');
  } finally {
    await again.close();
  }
});

test('three drawn problems right in a row: the lesson says the learner has it, a wrong first check ends the run, and the count travels with the progress', async () => {
  const { page, problems, close } = await openLesson(run.browser, run.server.url);
  const runSaid = () => page.locator('qkv-lesson [data-problem-run]');
  const draw = async () => {
    const before = await rendered(page);
    await page.locator('qkv-lesson button.another-one').click();
    await waitRenderedAfter(page, before);
  };
  // Never right: a drawn problem's q₀, k₀ and v₀ stay within ±18 (the core's generator, variant_test.cpp).
  const wrong = ['[999, 999]', '[999, 999]', '[999, 999]'];
  let saved;
  try {
    await draw();
    assert.equal(await checkFirstToken(page, wrong), 'incorrect', 'a wrong first check');
    assert.equal(await runSaid().getAttribute('data-problem-run'), '0');
    // The answer shown for this problem does not give the next one away: its right first check counts (below).
    await firstToken(page).getByRole('button', { name: 'Show the answer' }).click();
    assert.equal(await firstToken(page).getAttribute('data-revealed'), 'learner');
    for (let i = 1; i <= 3; i++) {
      await draw();
      assert.equal(await checkFirstToken(page, await firstTokenAnswer(page)), 'correct');
      assert.equal(await runSaid().getAttribute('data-problem-run'), `${i}`);
    }
    assert.match(await runSaid().innerText(), /3 drawn problems right in a row: you have it/);
    // Checking the same problem again changes nothing; the next problem's wrong first check ends the run.
    assert.equal(await checkFirstToken(page, wrong), 'incorrect');
    assert.equal(await runSaid().getAttribute('data-problem-run'), '3', 'a later check of the same problem');
    saved = await page.locator('qkv-lesson').evaluate((lesson) => lesson.progress);
    assert.equal(saved.problemsInARow, 3, 'the count is in the progress');
    assertNoProblems(problems, 'three in a row');
  } finally {
    await close();
  }
  const again = await openLesson(run.browser, run.server.url);
  try {
    await again.page.locator('qkv-lesson').evaluate((lesson, progress) => lesson.restoreProgress(progress), saved);
    await again.page.waitForFunction(() => document.querySelector('qkv-lesson').shadowRoot.querySelector('[data-problem-run]').dataset.problemRun === '3');
    assert.match(await again.page.locator('qkv-lesson [data-problem-run]').innerText(), /you have it/);
    assertNoProblems(again.problems, 'restored run');
  } finally {
    await again.close();
  }
});

test('an edited drawn problem’s link carries its words (w=): opened, it shows the same words, numbers and question', async () => {
  const openingWords = (page) => page.locator('qkv-lesson table[data-fixture-tensor="input"] .token-name').allTextContents();
  const { page, problems, close } = await openLesson(run.browser, run.server.url);
  let url;
  let edited;
  try {
    let before = await rendered(page);
    await page.locator('qkv-lesson button.another-one').click();
    await waitRenderedAfter(page, before);
    const drawnWords = await openingWords(page);
    before = await rendered(page);
    await cell(page, 'input', 0).fill('7');
    await waitRenderedAfter(page, before);
    edited = { x: await tableTexts(page, 'input'), words: await openingWords(page), question: await questionText(page) };
    assert.deepEqual(edited.words, drawnWords, 'an edit keeps the drawn words');
    url = await waitUrlSynced(page);
    const params = new URL(url).searchParams;
    assert.equal(params.get('v'), null, 'edited, the problem is no longer its seed’s');
    assert.deepEqual(params.getAll('w').map((word) => `“${word}”`), drawnWords, 'the link carries the words, one w per token');
    assertNoProblems(problems, 'edited drawn problem');
  } finally {
    await close();
  }
  const again = await openLesson(run.browser, url);
  try {
    assert.deepEqual(await tableTexts(again.page, 'input'), edited.x, 'the same numbers');
    assert.deepEqual(await openingWords(again.page), edited.words, 'the same words');
    assert.equal(await questionText(again.page), edited.question, 'the same question, naming the same words');
    assertNoProblems(again.problems, 'the edited problem’s link');
  } finally {
    await again.close();
  }
});

test('a link whose words do not fit its tokens is refused in the core’s words, and the fixture stays', async () => {
  const fixture = await readFixture();
  const { page, close } = await openLesson(run.browser, `${run.server.url}?b=1&t=2&d=3&h=2&w=only`);
  try {
    const note = await page.locator('qkv-lesson .link-notes').innerText();
    assert.match(note, /^The link’s numbers were not used \(token_names needs one word per token: 2 tokens, got 1 words\)/);
    assert.deepEqual((await tableTexts(page, 'input')).map(Number), fixture.input.values.map(Number));
  } finally {
    await close();
  }
});
