// Honest grades and statements an LRS can group (issue 37, items 1 and 5): an answer the lesson has shown — by
// the button or by itself after two wrong checks — never counts, and the showing is recorded even when no check
// follows; every statement has an id, the attempt's registration and context activities; the lesson says
// initialized, completed, passed or failed (from the core's outcome) and terminated; activity ids root under the
// author's `activity-id`.
//   node --test --test-concurrency=1 tests/browser/honest-grades.test.mjs
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answerExercise, assertNoProblems, openLesson, openPage, readFixture, useServerAndBrowser, waitLaidOut, waitReady } from './harness.mjs';

const run = useServerAndBrowser();
const answered = 'http://adlnet.gov/expapi/verbs/answered';
const viewed = 'http://id.tincanapi.com/verb/viewed';

// Records every statement the element sends (from ready on: the page is open and laid out).
const record = (page) =>
  page.evaluate(() => {
    window.statements = [];
    document.querySelector('qkv-lesson').addEventListener('qkv-lesson-answer', (event) => window.statements.push(event.detail));
  });
const sent = (page) => page.evaluate(() => window.statements);

test('an answer the lesson showed by itself after two wrong checks never counts, and the showing is recorded', async () => {
  const fixture = await readFixture();
  const right = String(fixture.expected.parameter_count);
  const { page, problems, close } = await openLesson(run.browser, `${run.server.origin}/embed.html?sections=exercises`);
  try {
    await record(page);
    await answerExercise(page, 'ch26-parameter-count', ['17']);
    await answerExercise(page, 'ch26-parameter-count', ['16']);
    const afterTwo = await sent(page);
    assert.deepEqual(afterTwo.map((statement) => statement.verb.id), [answered, answered, viewed], 'the second wrong check shows the answer, and that is recorded');
    assert.deepEqual(afterTwo[2].context.extensions, { 'urn:qkv-lesson:exercise': 'ch26-parameter-count', 'urn:qkv-lesson:shown-by': 'lesson' });
    assert.equal(afterTwo[2].object.id, `${run.server.origin}/embed.html#qkv-lesson/exercise/ch26-parameter-count/answer`);
    assert.equal(afterTwo[2].result, undefined, 'showing is not a response');
    await answerExercise(page, 'ch26-parameter-count', [right]);
    const last = (await sent(page)).at(-1);
    assert.equal(last.result.extensions['urn:qkv-lesson:matched'], true);
    assert.equal(last.result.success, false, 'typed in after the lesson showed it: right, not earned');
    assert.equal(last.context.extensions['urn:qkv-lesson:revealed'], true);
    assert.match(await page.locator('qkv-lesson [data-feedback="ch26-parameter-count"]').innerText(), /not counted as a success/);
    const progress = await page.evaluate(() => document.querySelector('qkv-lesson').progress.answers['ch26-parameter-count']);
    assert.deepEqual(progress, { responses: [right], correct: true, counts: false, attempts: 3, revealed: true });
    // The core's outcome agrees: the question is settled, not right.
    const outcome = await page.evaluate(() => document.querySelector('qkv-lesson').outcome());
    assert.equal(outcome.right, 0);
    assert.equal(outcome.settled, 1);
    assertNoProblems(problems, 'shown by the lesson');
  } finally {
    await close();
  }
});

test('the lesson says initialized, completed, failed and terminated, each with an id, one registration, and ids under activity-id', async () => {
  const root = 'https://courses.example.edu/unit-3/qkv';
  const { page, problems, close } = await openPage(run.browser);
  try {
    // From the page's first script on, so the statement sent at ready is heard too (the event bubbles, composed).
    await page.addInitScript(() => {
      window.statements = [];
      document.addEventListener('qkv-lesson-answer', (event) => window.statements.push(event.detail), { capture: true });
    });
    await page.goto(`${run.server.origin}/embed.html?sections=prediction%20exercises&activity-id=${encodeURIComponent(root)}`);
    await waitReady(page);
    await waitLaidOut(page);
    const ids = await page.evaluate(() => document.querySelector('qkv-lesson').exerciseIds);
    assert.ok(ids.length >= 2, `questions shown: ${ids}`);
    // Every question's answer shown, none checked: all settled, none right.
    for (const id of ids)
      await page.evaluate((exercise) => document.querySelector('qkv-lesson').shadowRoot.querySelector(`form[data-exercise="${exercise}"] .show-answer`).click(), id);
    await page.evaluate(() => {
      const lesson = document.querySelector('qkv-lesson');
      // Once off the page, the element's statements no longer reach the document: heard on the element itself.
      lesson.addEventListener('qkv-lesson-answer', (event) => lesson.isConnected || window.statements.push(event.detail));
      lesson.remove();
    });
    const statements = await sent(page);
    const words = statements.map((statement) => statement.verb.display['en-US']);
    assert.deepEqual(words, ['initialized', ...ids.map(() => 'viewed'), 'completed', 'failed', 'terminated'], 'initialized at ready, completed once, failed with score 0, terminated on leaving');
    assert.deepEqual(
      statements.filter((statement) => statement.verb.id === viewed).map((statement) => statement.object.id),
      ids.map((id) => `${root}/exercise/${id}/answer`),
    );
    const [initialized] = statements;
    const [completed, failed, terminated] = statements.slice(-3);
    for (const lessonLevel of [initialized, completed, failed, terminated]) assert.equal(lessonLevel.object.id, root);
    assert.equal(initialized.result, undefined, 'initialized carries no result');
    assert.deepEqual(failed.result.score, { raw: 0, min: 0, max: 100, scaled: 0 });
    assert.equal(failed.result.success, false);
    assert.equal(completed.result.completion, true);
    assert.match(terminated.result.duration, /^PT\d+(\.\d+)?S$/);
    assert.equal(new Set(statements.map((statement) => statement.id)).size, statements.length, 'statement ids are unique');
    assert.equal(new Set(statements.map((statement) => statement.context.registration)).size, 1, 'one registration for the attempt');
    for (const statement of statements) assert.deepEqual(statement.context.contextActivities.grouping, [{ id: `${run.server.origin}/embed.html`, objectType: 'Activity' }]);
    assertNoProblems(problems, 'lesson statements');
  } finally {
    await close();
  }
});

test('an activity-id that is not an absolute IRI is said and not used', async () => {
  const { page, problems, close } = await openLesson(run.browser, `${run.server.origin}/embed.html?sections=prediction&activity-id=not%20an%20iri`);
  try {
    const error = await page.evaluate(() => document.querySelector('qkv-lesson').dataset.activityIdError);
    assert.match(error, /not an absolute IRI/);
    assert.deepEqual(
      problems.filter((problem) => !problem.includes('not an absolute IRI')),
      [],
      'the warning names the attribute; nothing else went wrong',
    );
    assert.equal(await page.evaluate(() => document.querySelector('qkv-lesson').activityId), null);
  } finally {
    await close();
  }
});
