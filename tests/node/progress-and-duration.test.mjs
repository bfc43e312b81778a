// What the lesson reads back from a course's store (web/src/lesson/progress.ts) and the durations its statements
// carry (web/src/lesson/answers.ts): the values themselves, where the browser tests check only their form.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { importLesson } from './typescript.mjs';

let isoDuration;
let readLessonProgress;
before(async () => {
  ({ isoDuration } = await importLesson('answers'));
  ({ readLessonProgress } = await importLesson('progress'));
});

test('a duration is the time in seconds, to the hundredth (issue 39: ten times too long passed)', () => {
  assert.equal(isoDuration(0), 'PT0S');
  assert.equal(isoDuration(1234), 'PT1.23S');
  assert.equal(isoDuration(90000), 'PT90S');
  assert.equal(isoDuration(5), 'PT0.01S'); // rounded half up to the hundredth
  assert.equal(isoDuration(-20), 'PT0S'); // a clock that went back is no time, not a negative duration
});

test('an older saved answer, kept without its attempt count, reads back as checked once (issue 39)', () => {
  const read = readLessonProgress({ answers: { 'ch26-divisibility': { responses: ['no'], correct: true } }, challenge: '', state: '' });
  assert.deepEqual(read.answers['ch26-divisibility'], { responses: ['no'], correct: false, attempts: 1, revealed: false });
});

test('a saved attempt count is read as it was kept, zero included', () => {
  const read = readLessonProgress({ answers: { a: { responses: ['x'], attempts: 3 }, b: { responses: [''], attempts: 0, revealed: true } } });
  assert.equal(read.answers.a.attempts, 3);
  assert.equal(read.answers.b.attempts, 0);
});

test('a saved state is a link: kept up to the length of a link the lesson reads (linkLimit), dropped past it', async () => {
  const { linkLimit } = await importLesson('url-state');
  const longest = `b=1&t=2&x=${'1'.repeat(linkLimit - 'b=1&t=2&x='.length)}`;
  assert.equal(readLessonProgress({ answers: {}, state: longest }).state, longest);
  assert.equal(readLessonProgress({ answers: {}, state: `${longest}1` }).state, '');
});
