// The iframe's query string: which of the element's attributes an embedding author may set through it.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { importLesson } from './typescript.mjs';

let embedAttributes;
before(async () => {
  ({ embedAttributes } = await importLesson('embed-protocol'));
});

test("a graded run's options pass through the iframe's query string, as the other attributes do", () => {
  const given = embedAttributes('?passing-score=90&attempts=2&graded-questions=ch26-first-token%20ch26-best-key&reveal=never');
  assert.deepEqual(Object.fromEntries(given), { reveal: 'never', 'passing-score': '90', attempts: '2', 'graded-questions': 'ch26-first-token ch26-best-key' });
});

test('names the element does not take from a query string are left out, and so are values over 200 characters', () => {
  assert.deepEqual(embedAttributes('?attempt-key=learner-7&onclick=x&theme=' + 'd'.repeat(201)), []);
});
