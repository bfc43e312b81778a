// The lesson in a sandboxed iframe (issue 18, item 6): sandbox="allow-scripts" without allow-same-origin
// gives the frame an opaque origin ("null"), and a document of an opaque origin fetches its module scripts,
// its .wasm and its fonts in CORS mode. Served with Access-Control-Allow-Origin, the lesson loads and works
// in such a frame (its self-score work runs on the frame's thread: a worker needs a non-opaque origin);
// served without it, the browser refuses the frame's module script and the lesson never starts (the frame
// stays blank), which docs/element.md documents.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test, before, after } from 'node:test';
import { serve } from '../../scripts/serve.mjs';
import { assertNoProblems, csp, dist, launchBrowser, openPage, waitReady, waitLaidOut } from './harness.mjs';

let browser;
let withCors; // dist/ with Access-Control-Allow-Origin: *
let withoutCors; // dist/ as a plain static server sends it
let host; // the course page, on a third origin

const origin = (server) => `http://127.0.0.1:${server.address().port}`;
const page = (lesson) => `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>Course page with a sandboxed lesson</title></head>
  <body>
    <iframe sandbox="allow-scripts" src="${lesson}/embed.html?sections=diagram,self-score" title="Lesson" style="width: 100%; height: 600px"></iframe>
  </body>
</html>`;

before(async () => {
  [browser, withCors, withoutCors] = await Promise.all([
    launchBrowser(),
    serve({ root: dist, port: 0, csp, headers: { 'Access-Control-Allow-Origin': '*' } }),
    serve({ root: dist, port: 0, csp }),
  ]);
  host = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const lesson = { '/with-cors.html': withCors, '/without-cors.html': withoutCors }[path];
    if (!lesson) return void response.writeHead(path === '/favicon.ico' ? 204 : 404).end();
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page(origin(lesson)));
  });
  await new Promise((done) => host.listen(0, '127.0.0.1', done));
});
after(async () => {
  await browser?.close();
  for (const server of [host, withCors, withoutCors]) await new Promise((done) => (server ? server.close(() => done()) : done()));
});

async function openFrame(path) {
  const opened = await openPage(browser);
  await opened.page.goto(`${origin(host)}${path}`);
  const handle = await opened.page.waitForSelector('iframe[title="Lesson"]');
  opened.frame = await handle.contentFrame();
  return opened;
}

test('served with Access-Control-Allow-Origin: the sandboxed lesson is ready, and its self-score work runs on the frame’s thread', async () => {
  const { frame, problems, requests, close } = await openFrame('/with-cors.html');
  try {
    assert.equal(await frame.evaluate(() => self.origin), 'null', 'the frame has an opaque origin');
    await waitReady(frame);
    await waitLaidOut(frame);
    assert.ok((await frame.locator('qkv-lesson table[data-tensor="query"] tbody td').count()) > 0, 'the diagram shows Q');
    // A document of an opaque origin may start no worker (new Worker throws SecurityError): the runner
    // computes on the frame's own thread instead.
    const results = frame.locator('qkv-lesson section.self-score:not([data-busy]) .self-score-results[data-shown="1 5 8"]');
    await results.waitFor({ state: 'attached', timeout: 60000 });
    assert.equal(await results.getAttribute('data-ran-in'), 'page');
    assert.equal(requests.filter((url) => url.includes('self-score-worker')).length, 0, 'no worker script was requested');
    // One download: embed.html's preload (web/preload-wasm.ts) is what the core's fetch gets, in an opaque origin too
    // (so Chromium does not warn of an unused preload either).
    const wasm = requests.filter((url) => url.endsWith('.wasm'));
    assert.equal(wasm.length, 1, `one .wasm request (in CORS mode): ${wasm.join(', ')}`);
    assert.match(wasm[0], /\/qkv-simd-[\w-]+\.wasm$/);
    assertNoProblems(problems, 'sandboxed frame, files served with CORS');
  } finally {
    await close();
  }
});

test('served without Access-Control-Allow-Origin: the browser refuses the frame’s module script, and the lesson never starts', async () => {
  const opened = await openPage(browser);
  const { page, problems, close } = opened;
  try {
    const refused = page.waitForEvent('requestfailed', (request) => /\/assets\/embed-[\w-]+\.js$/.test(request.url()));
    await page.goto(`${origin(host)}/without-cors.html`); // resolves once the frame has loaded too
    await refused;
    const frame = await (await page.waitForSelector('iframe[title="Lesson"]')).contentFrame();
    // The module scripts were refused before the frame's load event, so nothing of the lesson ran: the element
    // is not defined and has no state. The page's classic script (mend-damaged-files.js) says the lesson's files
    // did not arrive (an opaque-origin frame has no sessionStorage, so it says so at once instead of reloading).
    const note = frame.locator('p.damaged-files[role="alert"]');
    await note.waitFor();
    assert.deepEqual(
      await frame.evaluate(() => [customElements.get('qkv-lesson') === undefined, document.querySelector('qkv-lesson')?.dataset.state ?? null]),
      [true, null],
    );
    assert.match(await note.innerText(), /^The lesson’s files arrived damaged or did not arrive/);
    const blocked = problems.filter((problem) => /has been blocked by CORS policy/.test(problem));
    assert.ok(blocked.some((problem) => /Access to script at '[^']*\/assets\/embed-[\w-]+\.js' from origin 'null'/.test(problem)), `the console names the refused script: ${problems.join('\n')}`);
  } finally {
    await close();
  }
});
