// The iframe protocol's pure parts (web/src/lesson/embed-protocol.ts, and attributes.ts's embedAttributes): which of
// the element's attributes an embedding author may set through the iframe's query string, which heights the frame may report, the host's height
// request, and where answer statements may be posted.
// (Review: the tests from "a height measured while the lesson loads" on were deleted by 220b113 when the file was
// rewritten for the graded run's options; restored here beside the new ones.)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, test } from 'node:test';
import { loadCore, root } from './load.mjs';
import { importLesson } from './typescript.mjs';

let embedAttributes;
let heightIsReal;
let readHostMessage;
let heightRequestType;
let answerTarget;
before(async () => {
  ({ heightIsReal, readHostMessage, heightRequestType, answerTarget } = await importLesson('embed-protocol'));
  // embedAttributes reads the element's attribute table (attributes.ts), which defines the element's base class;
  // Node has no DOM, and nothing here constructs one.
  globalThis.HTMLElement ??= class {};
  ({ embedAttributes } = await importLesson('attributes'));
});

test("a graded run's options pass through the iframe's query string, as the other attributes do", () => {
  const given = embedAttributes('?passing-score=90&attempts=2&graded-questions=ch26-first-token%20ch26-best-key&reveal=never');
  assert.deepEqual(Object.fromEntries(given.attributes), { reveal: 'never', 'passing-score': '90', attempts: '2', 'graded-questions': 'ch26-first-token ch26-best-key' });
  assert.deepEqual(given.problems, []);
});

test('graded-questions may name every question: all the ids the core lists pass through', async () => {
  const { LessonController } = await importLesson('controller');
  const every = new LessonController(await loadCore()).exercises().map((view) => view.id).join(' ');
  assert.ok(every.length > 200, `every id together is ${every.length} characters`);
  const given = embedAttributes(`?graded-questions=${encodeURIComponent(every)}`);
  assert.deepEqual(given, { attributes: [['graded-questions', every]], problems: [] });
});

test('names the element does not take from a query string are left out; a value past its length is not used, and said', () => {
  assert.deepEqual(embedAttributes('?attempt-key=learner-7&onclick=x'), { attributes: [], problems: [] });
  // The threat model's list (docs/threat-model.md): an address never picks the numbers by `state`, fetches an
  // `example`, or turns on sync-url without the lesson's own numbers.
  assert.deepEqual(embedAttributes('?state=b%3D1&example=https://evil.example/x.json&sync-url=').attributes, []);
  const given = embedAttributes(`?theme=${'d'.repeat(201)}&reveal=never&graded-questions=${'q'.repeat(2001)}`);
  assert.deepEqual(given.attributes, [['reveal', 'never']]);
  assert.deepEqual(given.problems, [
    "theme in the frame's address is 201 characters long, more than the 200 read, so it is not used.",
    "graded-questions in the frame's address is 2001 characters long, more than the 2000 read, so it is not used.",
  ]);
});

test('a height measured while the lesson loads is real: the frame shows the loading state', () => {
  assert.equal(heightIsReal({}), true);
  assert.equal(heightIsReal({ state: 'loading' }), true);
});

test('from ready until data-laid-out the lesson holds estimated heights: none is reported', () => {
  assert.equal(heightIsReal({ state: 'ready' }), false);
});

test('once laid out (data-laid-out is present, empty), the height is real', () => {
  assert.equal(heightIsReal({ state: 'ready', laidOut: '' }), true);
});

test('an error state shows its message, whose height is real', () => {
  assert.equal(heightIsReal({ state: 'error' }), true);
});

test("the host script's request is the message the frame reads as a height request", () => {
  assert.equal(heightRequestType, 'qkv-lesson:height-request');
  // qkv-embed-host.js is plain script in web/public/ (it imports nothing): it spells the type out.
  assert.ok(readFileSync(`${root}web/public/qkv-embed-host.js`, 'utf8').includes(`{ type: '${heightRequestType}' }`), 'the host script posts that type');
  assert.equal(readHostMessage({ type: 'qkv-lesson:height-request' }), 'height-request');
  assert.equal(readHostMessage({ type: 'qkv-lesson:height' }), null);
  assert.equal(readHostMessage('{"type":"qkv-lesson:height-request"}'), null);
});

// answerTarget reads the frame's window and its parent's: here a frame on https://lesson.example whose parent
// page is on the same origin (so without parent-origin the answers may go to it).
function inSameOriginFrame(check) {
  const lessonOrigin = 'https://lesson.example';
  const saved = { window: globalThis.window, location: globalThis.location };
  globalThis.window = { parent: { location: { origin: lessonOrigin } } };
  globalThis.location = { origin: lessonOrigin };
  try {
    check(lessonOrigin);
  } finally {
    globalThis.window = saved.window;
    globalThis.location = saved.location;
  }
}

test('without parent-origin, answers go to a parent page on the lesson’s own origin', () => {
  inSameOriginFrame((lessonOrigin) => assert.equal(answerTarget(null), lessonOrigin));
});

test('parent-origin names where answers go: the origin of the URL written', () => {
  inSameOriginFrame(() => assert.equal(answerTarget('https://course.example/unit/1'), 'https://course.example'));
});

test('a malformed parent-origin sends answers nowhere, not to the same-origin parent (issue 39)', () => {
  inSameOriginFrame(() => {
    for (const malformed of ['course.example', 'ftp://course.example', 'javascript:alert(1)']) assert.equal(answerTarget(malformed), null, malformed);
  });
});
