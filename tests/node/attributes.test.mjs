// The element's attributes (web/src/lesson/attributes.ts): every attribute it observes says what it does to the
// prerendered opening, and the element keeps or drops the opening by that word alone (changesPrerender).
//   node --test tests/node/attributes.test.mjs
import assert from 'node:assert/strict';
import test from 'node:test';
import { importLesson } from './typescript.mjs';

// attributes.ts defines the element's base class; Node has no DOM, and nothing here constructs one.
globalThis.HTMLElement ??= class {};
const { LessonAttributes, changesPrerender, lessonAttributes } = await importLesson('attributes');

test('every observed attribute says whether the prerendered opening stays valid under it', () => {
  assert.ok(LessonAttributes.observedAttributes.length > 0);
  const unclassified = LessonAttributes.observedAttributes.filter((name) => !['valid', 'stale'].includes(lessonAttributes[name]?.prerenderedOpening));
  assert.deepEqual(unclassified, []);
});

test('the opening is dropped under exactly the attributes that start from other numbers or show other sections or answers', () => {
  const stale = LessonAttributes.observedAttributes.filter(changesPrerender).sort();
  assert.deepEqual(stale, ['attempt-key', 'example', 'reveal', 'sections', 'state']);
  // Not an attribute of the element (nor an Object.prototype name): the opening stays.
  for (const name of ['class', 'id', 'constructor', 'toString']) assert.equal(changesPrerender(name), false, name);
});
