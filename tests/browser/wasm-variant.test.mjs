// Which WebAssembly module the page downloads: Chromium has SIMD, so the page fetches qkv-simd-*.wasm once
// (the self-score worker gets the compiled module from the page) and never qkv-*.wasm; an engine whose
// WebAssembly.validate refuses the SIMD probe compiles the module without SIMD (the SIMD file the built page
// preloads is read once, unused) and shows the same lesson, character for character, under the same
// Content-Security-Policy. No Chromium flag turns SIMD off, so that engine is simulated: the page gets an
// init script and the worker's script the same lines in front, making validate refuse any module with a
// SIMD opcode prefix (0xfd) that is as small as the probe.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertNoProblems, openPage, useServerAndBrowser, waitReady } from './harness.mjs';

const run = useServerAndBrowser();

const wasmFiles = (requests) => requests.filter((url) => url.endsWith('.wasm')).map((url) => new URL(url).pathname.split('/').pop());

const refuseSimd = `{
  const validate = WebAssembly.validate.bind(WebAssembly);
  WebAssembly.validate = (bytes) => {
    const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    return view.length < 64 && view.includes(0xfd) ? false : validate(bytes);
  };
}
`;

async function lessonWith({ withoutSimd }) {
  const opened = await openPage(run.browser);
  if (withoutSimd) {
    await opened.page.addInitScript(refuseSimd);
    await opened.context.route('**/self-score-worker-*.js', async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, body: refuseSimd + (await response.text()) });
    });
  }
  await opened.page.goto(run.server.url);
  await waitReady(opened.page);
  // The self-score section's worker loads its module too (the page starts it for the experiment).
  await opened.page.locator('qkv-lesson section.self-score .self-score-results[data-shown]').waitFor({ timeout: 60000 });
  return opened;
}

const lessonText = (page) => page.locator('qkv-lesson').evaluate((element) => element.shadowRoot.textContent);

let simdText;
test('with SIMD, the page and its worker download only the SIMD module', async () => {
  const { page, requests, problems, close } = await lessonWith({ withoutSimd: false });
  try {
    const wasm = wasmFiles(requests);
    assert.equal(wasm.length, 1, `one .wasm request, the page's: ${requests.join(', ')}`);
    assert.match(wasm[0], /^qkv-simd-[\w-]+\.wasm$/);
    simdText = await lessonText(page);
    assert.match(simdText, /W_Q/);
    assertNoProblems(problems, 'SIMD page');
  } finally {
    await close();
  }
});

test('without SIMD, the page downloads only the module without SIMD and still computes the lesson', async () => {
  const { page, requests, problems, close } = await lessonWith({ withoutSimd: true });
  try {
    const wasm = wasmFiles(requests);
    const plain = wasm.filter((name) => /^qkv-(?!simd)[\w-]+\.wasm$/.test(name));
    assert.equal(plain.length, 1, `the module without SIMD, once: ${wasm.join(', ')}`);
    // The preloaded SIMD file (web/preload-wasm.ts), at most once; nothing else.
    assert.ok(wasm.filter((name) => /^qkv-simd-[\w-]+\.wasm$/.test(name)).length <= 1, `the SIMD file at most once: ${wasm.join(', ')}`);
    assert.equal(wasm.length, plain.length + wasm.filter((name) => name.startsWith('qkv-simd-')).length, `no other .wasm: ${wasm.join(', ')}`);
    assert.equal(await lessonText(page), simdText, 'the same lesson, every number included');
    assertNoProblems(problems, 'page without SIMD');
  } finally {
    await close();
  }
});

// The page checks the whole .wasm and compiles those bytes (download-check.ts), so the type the host gives it does
// not matter; a host that says application/octet-stream (some LMSs do) still gets the lesson.
test('a host that serves .wasm as application/octet-stream still gets the same lesson', async () => {
  const opened = await openPage(run.browser);
  const { page, problems, close } = opened;
  try {
    const served = [];
    await opened.context.route('**/*.wasm', async (route) => {
      const response = await route.fetch();
      served.push(new URL(route.request().url()).pathname);
      await route.fulfill({ response, headers: { ...response.headers(), 'content-type': 'application/octet-stream' } });
    });
    await page.goto(run.server.url);
    await waitReady(page);
    // The self-score worker runs on the module the page compiled.
    await page.locator('qkv-lesson section.self-score .self-score-results[data-shown]').waitFor({ timeout: 60000 });
    assert.equal(served.length, 1, `the page's .wasm went through the rewritten response, once: ${served.join(', ')}`);
    assert.equal(await lessonText(page), simdText, 'the same lesson, every number included');
    assertNoProblems(problems, 'page from a host without application/wasm');
  } finally {
    await close();
  }
});

test('a .wasm the host cannot serve leaves the lesson in its error state, naming the HTTP status', async () => {
  const opened = await openPage(run.browser);
  const { page, close } = opened;
  try {
    await opened.context.route('**/qkv-simd-*.wasm', (route) => route.fulfill({ status: 404, body: 'not found' }));
    await page.goto(run.server.url);
    await page.waitForFunction(() => document.querySelector('qkv-lesson')?.dataset.state === 'error', undefined, { timeout: 15000 });
    const text = await lessonText(page);
    assert.match(text, /HTTP 404/);
  } finally {
    await close();
  }
});
