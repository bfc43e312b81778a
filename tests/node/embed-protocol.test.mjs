// The iframe protocol's pure parts (web/src/lesson/embed-protocol.ts): which heights the frame may report, and
// the host's height request.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, test } from 'node:test';
import { root } from './load.mjs';
import { importLesson } from './typescript.mjs';

let heightIsReal;
let readHostMessage;
let heightRequestType;
before(async () => {
  ({ heightIsReal, readHostMessage, heightRequestType } = await importLesson('embed-protocol'));
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
