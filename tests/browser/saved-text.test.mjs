// One limit for the text a learner writes (issue 41, item 2): the challenge box, the browser's storage
// (progress-key), restoreProgress and the LMS (whose suspend_data comes back through restoreProgress) keep the same
// number of characters. The box stops there and says so; what it said it would keep comes back after a reload.
//   node --test --test-concurrency=1 tests/browser/saved-text.test.mjs
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertNoProblems, openLesson, useServerAndBrowser, waitLaidOut, waitReady } from './harness.mjs';

const run = useServerAndBrowser();
// The limit as the learner reads it; the lesson's one constant (savedTextLimit, saved-text.ts) must say the same.
const limit = 20000;
const full = /^This box keeps at most 20,000 characters, and it is full: what you type or paste past that is not kept\.$/;
const challengeBox = (page) => page.locator('qkv-lesson textarea[data-challenge]');
const limitNote = (page) => page.locator('qkv-lesson [data-challenge-limit]');
// Long texts compared by length and start, so that a failure prints a line rather than 20,000 characters.
const assertSameText = (actual, expected, message) => assert.deepEqual([actual?.length, actual === expected], [expected.length, true], message);

test('a challenge of 20,001 characters under progress-key: the box keeps 20,000 and says so, and a reload brings back those 20,000', async () => {
  const opened = await openLesson(run.browser, run.server.url);
  const { page, problems } = opened;
  try {
    const box = challengeBox(page);
    assert.equal(await box.getAttribute('maxlength'), String(limit), 'the box has the limit');
    assert.equal(await limitNote(page).isVisible(), false, 'nothing said before the limit is reached');
    const text = `${'All of this is kept. '.repeat(limit / 20)}`.slice(0, limit + 1);
    assert.equal(text.length, limit + 1);
    await box.fill(text); // one insertion, as a paste is
    await box.blur();
    const kept = text.slice(0, limit);
    assertSameText(await box.inputValue(), kept, 'the box holds the first 20,000 characters');
    assert.match(await limitNote(page).innerText(), full);
    assert.ok(await limitNote(page).isVisible(), 'the note is on screen');
    assert.equal(await box.evaluate((element) => element.getAttribute('aria-describedby')?.split(' ').includes(element.getRootNode().querySelector('[data-challenge-limit]').id)), true, 'the note describes the box');
    await page.waitForFunction((length) => JSON.parse(localStorage.getItem('qkv-lesson-page:qkv04-challenge') ?? '{"responses":[""]}').responses[0].length === length, limit);

    await opened.reload();
    await waitReady(page);
    await waitLaidOut(page);
    assertSameText(await challengeBox(page).inputValue(), kept, 'after a reload the box holds what it said it kept');
    assert.match(await limitNote(page).innerText(), full, 'and says again that it is full');
    assertNoProblems(problems, 'a challenge at the limit');
  } finally {
    await opened.close();
  }
});

test('restoreProgress with texts over the limit: the first 20,000 characters are kept (not the whole answer dropped), and the box says it is full', async () => {
  const opened = await openLesson(run.browser, `${run.server.url}embed.html`);
  const { page, problems } = opened;
  try {
    const long = 'y'.repeat(limit + 1);
    // A blank's answer the core reads (a number and spaces), 20,001 characters long.
    const blank = `17${' '.repeat(limit - 1)}`;
    const restored = await page.evaluate(([text, typed]) => {
      const lesson = document.querySelector('qkv-lesson');
      lesson.restoreProgress({ answers: { 'ch26-parameter-count': { responses: [typed], attempts: 1 } }, challenge: text, state: '' });
      return lesson.progress;
    }, [long, blank]);
    assertSameText(restored.challenge, long.slice(0, limit), 'the challenge: its first 20,000 characters');
    assert.equal(restored.answers['ch26-parameter-count']?.responses.length, 1, 'a blank over the limit: the answer is kept');
    assertSameText(restored.answers['ch26-parameter-count'].responses[0], blank.slice(0, limit), 'with its first 20,000 characters');
    assertSameText(await challengeBox(page).inputValue(), long.slice(0, limit));
    await challengeBox(page).focus();
    assert.match(await limitNote(page).innerText(), full);
    assertNoProblems(problems, 'restoreProgress over the limit');
  } finally {
    await opened.close();
  }
});
