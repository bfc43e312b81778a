// Retry after the engine's script (the Emscripten glue, preloaded by the built page and imported by the element)
// failed to download, in Chromium, Firefox ESR and WebKitGTK: the server is unreachable for a moment (each request
// for the glue answered 503, or its connection dropped mid-body), the lesson says it could not load its engine, the
// learner presses Retry once the server answers again, and the lesson comes up in the same document with one more
// request for the glue and what the learner typed into the prerendered opening still there. Firefox ESR keeps an
// import() that failed on the network for the document's life (Retry asked for nothing there before this test's
// change: web/src/lesson/core-instance.ts, docs/downloads.md).
//   node --test tests/engines/glue-retry.test.mjs      (QKV_ENGINES=firefox for one engine)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, request as forward } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertNoProblems, dist } from '../browser/harness.mjs';
import { engineNames, launchEngine, startEngineServer } from './engines.mjs';

// The lesson's glue, either build (not the scale section's), with any query.
const glue = /^\/assets\/qkv(-simd)?-[\w-]{8}\.js$/;
// The self-score worker imports the glue in its own module map, from its own script: not the Retry's request.
const fromWorker = (request) => /\/assets\/[\w-]*worker-[\w-]{8}\.js$/.test(request.referer ?? '');

let files;
let front;
let url;
// `failing`: how the glue's requests fail ('503' or 'dropped'), or null to let them through; `requests` lists each
// request for the glue: its URL (path and query), its Referer, and whether it was failed.
const outage = { failing: null, requests: [] };

// Answers a request for the glue as the outage says: a 503, or a 200 whose connection drops after half the body its
// Content-Length announced (a network error, not a response cut short that looks whole).
function fail(request, response, path) {
  if (outage.failing === '503') return void response.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' }).end('Service Unavailable\n');
  const bytes = readFileSync(join(dist, path));
  response.socket.write(`HTTP/1.1 200 OK\r\nContent-Type: text/javascript; charset=utf-8\r\nContent-Length: ${bytes.length}\r\nCache-Control: no-store\r\n\r\n`);
  response.socket.end(bytes.subarray(0, bytes.length >> 1), () => response.socket.destroy());
}

// In front of the engines' server (tests/engines/engines.mjs: dist/, the tests' CSP, the console capture).
before(async () => {
  files = await startEngineServer();
  const target = new URL(files.url);
  front = createServer((request, response) => {
    const path = new URL(request.url, 'http://localhost').pathname;
    if (glue.test(path)) {
      outage.requests.push({ url: request.url, referer: request.headers.referer, failed: outage.failing !== null });
      if (outage.failing) return fail(request, response, path);
    }
    const onward = forward({ host: target.hostname, port: target.port, path: request.url, method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode, answer.headers);
      answer.pipe(response);
    });
    request.pipe(onward);
  });
  await new Promise((done) => front.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${front.address().port}/`;
});
after(async () => {
  front?.closeAllConnections();
  await new Promise((done) => (front ? front.close(done) : done()));
  await files?.close();
});

// --- in the page (each function runs in the page as it is: no closures) ------------------------------------

const ended = () => {
  const state = window.__engines.doc().querySelector('qkv-lesson')?.dataset.state;
  return state === 'ready' || state === 'error' ? state : false;
};
const lessonText = () => window.__engines.doc().querySelector('qkv-lesson').shadowRoot.textContent;
const firstToken = 'form[data-exercise="ch26-first-token"] input';
// Types into a field as a learner does (its value, then an input event).
const type = ({ selector, value }) => {
  const field = window.__engines.doc().querySelector('qkv-lesson').shadowRoot.querySelector(selector);
  field.focus();
  field.value = value;
  field.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
};
const valueOf = (selector) => window.__engines.doc().querySelector('qkv-lesson').shadowRoot.querySelector(selector)?.value ?? null;
// The built page's mend-damaged-files.js has asked for the page's files past the cache during the outage, and said
// they did not arrive (so it does not reload the page: the learner's Retry is what is tested).
const mendGaveUp = () => window.__engines.doc().querySelector('.damaged-files') !== null;
// Presses the error region's button, and returns its text.
const pressErrorButton = () => {
  const button = window.__engines.doc().querySelector('qkv-lesson').shadowRoot.querySelector('.load-error button');
  const text = button?.textContent ?? null;
  button?.click();
  return text;
};

// Problems the outage causes on purpose: each engine reports the failed request for the glue (by its URL), the
// integrity check of the mend script's request meeting a 503's body or a dropped one, and Chromium the 503 or the
// dropped connection without naming the file.
const caused = (problem) =>
  /\/assets\/qkv(-simd)?-[\w-]{8}\.js\b/.test(problem) || /^console\.error \(driver\): Failed to load resource: (the server responded with a status of 503 \(Service Unavailable\)|net::ERR_CONTENT_LENGTH_MISMATCH)$/.test(problem);

for (const name of engineNames) {
  describe(name, () => {
    let engine;
    before(async () => {
      engine = await launchEngine(name);
    });
    after(() => engine?.close());

    for (const failing of ['503', 'dropped']) {
      test(`${name}: the glue ${failing === '503' ? 'answered 503' : 'dropped mid-body'} while the server was unreachable; Retry brings the lesson up with one more request for it, the learner's typing kept`, async (t) => {
        outage.failing = failing;
        outage.requests.length = 0;
        const page = await engine.newPage();
        try {
          await page.goto(url);
          assert.equal(await page.waitFor(ended, undefined, { timeout: 60000, message: `${name}: the lesson ends loading` }), 'error', `${name}: without its glue the lesson cannot start`);
          assert.match(await page.evaluate(lessonText), /Could not load the lesson’s engine script/, `${name}: the error names the engine's script`);
          await page.evaluate(type, { selector: firstToken, value: '0, 3' });
          await page.waitFor(mendGaveUp, undefined, { message: `${name}: the mend script tried the files past the cache and gave up` });
          await page.evaluate(() => (window.__beforeRetry = 'this document')); // a reload would lose it
          const failed = outage.requests.length;
          assert.ok(failed >= 1 && outage.requests.every((request) => request.failed), `${name}: the glue was asked for and failed: ${JSON.stringify(outage.requests)}`);

          outage.failing = null; // the server answers again
          assert.equal(await page.evaluate(pressErrorButton), 'Retry', `${name}: the error offers Retry`);
          const state = await page.waitFor(ended, undefined, { timeout: 60000, message: `${name}: the lesson ends loading after Retry` });
          if (state !== 'ready') assert.fail(`${name}: after Retry data-state="${state}", the lesson shows: ${await page.evaluate(lessonText)}; requests for the glue: ${JSON.stringify(outage.requests)}`);
          assert.equal(await page.evaluate(() => window.__beforeRetry ?? null), 'this document', `${name}: the same document (no reload)`);
          assert.equal(await page.evaluate(mendGaveUp), false, `${name}: the page's note that the lesson cannot start is gone once it started`);
          const byRetry = outage.requests.slice(failed).filter((request) => !fromWorker(request));
          assert.equal(byRetry.length, 1, `${name}: one more request for the glue: ${JSON.stringify(outage.requests)}`);
          t.diagnostic(`${name}: ${failed} failed request(s) for the glue, then Retry asked for ${byRetry[0].url}`);
          assert.equal(await page.evaluate(valueOf, firstToken), '0, 3', `${name}: what was typed into q₀ before Retry is still there`);
          assertNoProblems((await page.problems()).filter((problem) => !caused(problem)), `${name}, glue ${failing}, then Retry`);
        } finally {
          outage.failing = null;
          await page.close();
        }
      });
    }
  });
}
