// The link format: the lesson's parameters live beside a host page's own, which survive every write.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { importLesson } from './typescript.mjs';

let withLessonParams;
before(async () => {
  ({ withLessonParams } = await importLesson('url-state'));
});

test("a host page's own query parameters survive the lesson's link", () => {
  assert.equal(withLessonParams('?unit=3&lang=en', 'b=1&t=2'), 'unit=3&lang=en&b=1&t=2');
});

test("the lesson's earlier parameters are replaced, not repeated, and foreign ones keep their order", () => {
  assert.equal(withLessonParams('?unit=3&b=2&x=9&sseed=4&lang=en', 'sseed=7&b=1&x=1%2C2'), 'unit=3&lang=en&sseed=7&b=1&x=1%2C2');
});

test('an empty page query gives exactly the lesson\'s parameters', () => {
  assert.equal(withLessonParams('', 'b=1&t=2&d=3&h=2'), 'b=1&t=2&d=3&h=2');
});
