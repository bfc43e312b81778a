// The lesson's own statements (issue 37, item 5): initialized once per start, completed once every question shown is
// settled, passed or failed with the core's score and again whenever that verdict changes, terminated once when the
// learner leaves; work restored from an earlier visit is not reported twice. The outcomes fed here stand for the
// core's (lessonOutcome); the browser test honest-grades.test.mjs walks the failed path in the page.
//   node --test tests/node/lesson-record.test.mjs
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { importLesson } from './typescript.mjs';

let LessonRecord;
const root = 'https://courses.example.edu/unit-3/qkv';
const verbOf = (statement) => statement.verb.display['en-US'];
const outcome = (completed, passed, scaled) => ({ shown: 5, right: Math.round(scaled * 5), settled: completed ? 5 : 4, scaled, percent: scaled * 100, completed, passed });

before(async () => {
  // The record reads the embedding page's address, as it does in a browser.
  globalThis.location = new URL('https://courses.example.edu/unit-3/page.html?learner=1#top');
  ({ LessonRecord } = await importLesson('lesson-record'));
});

function recorder() {
  const sent = [];
  const record = new LessonRecord(() => root, (statement) => sent.push(statement));
  return { record, sent, words: () => sent.map(verbOf) };
}

test('initialized, completed and passed with the score, terminated: each once, one registration, about the lesson', () => {
  const { record, sent, words } = recorder();
  record.begin();
  record.begin();
  record.settled(outcome(false, false, 0.6));
  assert.deepEqual(words(), ['initialized'], 'a second begin and an unfinished outcome say nothing');
  record.settled(outcome(true, true, 0.8));
  record.settled(outcome(true, true, 0.8));
  record.leave();
  record.leave();
  assert.deepEqual(words(), ['initialized', 'completed', 'passed', 'terminated']);
  const [initialized, completed, passed, terminated] = sent;
  assert.equal(initialized.result, undefined);
  assert.deepEqual(completed.result, { score: { raw: 80, min: 0, max: 100, scaled: 0.8 }, completion: true });
  assert.deepEqual(passed.result, { score: { raw: 80, min: 0, max: 100, scaled: 0.8 }, success: true, completion: true });
  assert.match(terminated.result.duration, /^PT\d+(\.\d+)?S$/);
  for (const statement of sent) {
    assert.equal(statement.object.id, root);
    assert.equal(statement.context.registration, record.registration);
    assert.deepEqual(statement.context.contextActivities, { grouping: [{ id: 'https://courses.example.edu/unit-3/page.html', objectType: 'Activity' }] });
  }
  assert.equal(new Set(sent.map((statement) => statement.id)).size, sent.length, 'statement ids are unique');
});

test('a verdict that changes is said again (failed, then passed), and restored work is not reported twice', () => {
  const { record, words } = recorder();
  record.begin();
  record.settled(outcome(true, false, 0.6));
  record.settled(outcome(true, true, 1));
  assert.deepEqual(words(), ['initialized', 'completed', 'failed', 'passed']);

  const again = recorder();
  again.record.restored(outcome(true, true, 1));
  again.record.begin();
  again.record.settled(outcome(true, true, 1));
  again.record.settled(outcome(true, false, 0.6));
  assert.deepEqual(again.words(), ['initialized', 'failed'], 'completed and passed were said on the earlier visit');
});

test('after terminated, the lesson back on the page starts again with initialized', () => {
  const { record, words } = recorder();
  record.begin();
  record.leave();
  record.begin();
  assert.deepEqual(words(), ['initialized', 'terminated', 'initialized']);
});
