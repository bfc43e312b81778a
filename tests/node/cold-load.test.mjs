// bench/cold-load.mjs: the one count of a cold load's downloads that bench/budgets.mjs and bench/phone.mjs share.
// A stand-in for a Playwright context: an EventEmitter that emits 'response' with the few methods used.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { watchDownloads } from '../../bench/cold-load.mjs';

const response = (url, { serviceWorker = false } = {}) => ({ url: () => url, request: () => ({ serviceWorker: () => (serviceWorker ? {} : null) }) });

test('a cold load counts the page’s and its workers’ responses, not the service worker’s precache', () => {
  const context = new EventEmitter();
  const downloads = watchDownloads(context);
  const page = [
    response('http://127.0.0.1:1/'),
    response('http://127.0.0.1:1/assets/define-abc12345.js'),
    response('http://127.0.0.1:1/assets/qkv-simd-abc12345.wasm'),
    response('http://127.0.0.1:1/assets/self-score-worker-abc12345.js'),
  ];
  const precache = [response('http://127.0.0.1:1/assets/qkv-abc12345.wasm?__WB_REVISION__=1', { serviceWorker: true }), response('http://127.0.0.1:1/index.html', { serviceWorker: true })];
  for (const one of [...page, ...precache]) context.emit('response', one);
  assert.deepEqual(downloads.responses, page);
  assert.deepEqual(downloads.wasmDownloads(), ['http://127.0.0.1:1/assets/qkv-simd-abc12345.wasm']);
});

test('a .wasm is told by its path, not by a query that mentions one', () => {
  const context = new EventEmitter();
  const downloads = watchDownloads(context);
  context.emit('response', response('http://127.0.0.1:1/index.html?file=x.wasm'));
  context.emit('response', response('http://127.0.0.1:1/assets/qkv-scale-abc12345.wasm?v=2'));
  assert.deepEqual(downloads.wasmDownloads(), ['http://127.0.0.1:1/assets/qkv-scale-abc12345.wasm?v=2']);
});
