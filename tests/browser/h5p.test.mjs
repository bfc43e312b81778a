// The iframe embed (dist/embed.html) on a course page with H5P's real resizer, h5p-resizer.js, loaded as it
// is from ../shared/vendor/ (never copied into the project): the resizer may load before the frame or
// after it, and in both cases the handshake (hello ↔ hello, prepareResize → resizePrepared → resize) must
// complete and the iframe must take its content's height instead of staying 150 px.
//   node --test --test-concurrency=1 tests/browser/*.test.mjs
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { serve } from '../../scripts/serve.mjs';
import { assertNoProblems, csp, dist, frameFitsContent, frameHeights, launchBrowser, openPage, vendorFile, waitLaidOut, waitReady } from './harness.mjs';

const resizerPath = vendorFile('h5p-resizer.js');

let browser;
let lessonServer; // dist/, under the strict CSP
let lessonOrigin;
let hostServer; // the course page, on another port (another origin)
let hostOrigin;

// Records, before anything else runs, every message the course page receives.
const recorderJs = `
window.__messages = [];
window.addEventListener('message', function (event) {
  var frame = document.querySelector('iframe');
  window.__messages.push({ origin: event.origin, data: event.data, fromFrame: !!frame && event.source === frame.contentWindow });
});
`;

// The iframe's address has no "h5p" in it (the resizer's `ready` only goes to frames whose address does), as
// for this lesson on a real course page.
function hostHtml({ resizerFirst }) {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>H5P course page</title>
    <script src="/recorder.js"></script>
    ${resizerFirst ? '<script src="/h5p-resizer.js"></script>' : ''}
  </head>
  <body>
    <h1>H5P course page</h1>
    <iframe src="${lessonOrigin}/embed.html?sections=diagram" title="Lesson"></iframe>
  </body>
</html>`;
}

function hostCsp() {
  return ["default-src 'self'", "script-src 'self'", `frame-src ${lessonOrigin}`].join('; ');
}

function startHost() {
  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const html = (body) => response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': hostCsp() }).end(body);
    const js = (body) => response.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(body);
    if (path === '/resizer-first.html') html(hostHtml({ resizerFirst: true }));
    else if (path === '/frame-only.html') html(hostHtml({ resizerFirst: false }));
    else if (path === '/recorder.js') js(recorderJs);
    else if (path === '/h5p-resizer.js') js(await readFile(resizerPath)); // read on every request: never a copy
    else if (path === '/favicon.ico') response.writeHead(204).end();
    else response.writeHead(404).end('not found');
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

const close = (server) => new Promise((done) => (server ? server.close(() => done()) : done()));

before(async () => {
  [lessonServer, browser] = await Promise.all([serve({ root: dist, port: 0, csp }), launchBrowser()]);
  lessonOrigin = `http://127.0.0.1:${lessonServer.address().port}`;
  hostServer = await startHost();
  hostOrigin = `http://127.0.0.1:${hostServer.address().port}`;
});
after(async () => {
  await browser?.close();
  await close(hostServer);
  await close(lessonServer);
});

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const messages = (page) => page.evaluate(() => window.__messages);
const h5pActions = (list) => list.filter((m) => m.fromFrame && m.data?.context === 'h5p').map((m) => m.data.action);

// The course page with the iframe, once the lesson inside it is ready.
async function openFramePage(path) {
  const opened = await openPage(browser);
  await opened.page.goto(`${hostOrigin}${path}`);
  opened.frame = await (await opened.page.waitForSelector('iframe[title="Lesson"]')).contentFrame();
  assert.ok(opened.frame, 'the iframe should have a frame');
  await waitReady(opened.frame);
  await waitLaidOut(opened.frame);
  return opened;
}

// Waits until the resizer has made the iframe exactly as tall as its content: no scrolling inside, the
// iframe's height (set by the resizer as style.height) equals the content's, and the lesson fits in it.
async function waitFrameFitsContent(page, frame, context, timeout) {
  let heights;
  try {
    await page.waitForFunction(
      () => {
        const iframe = document.querySelector('iframe[title="Lesson"]');
        return iframe.clientHeight > 150 && iframe.style.height === `${iframe.clientHeight}px`;
      },
      undefined,
      { timeout },
    );
    for (;;) {
      heights = await frameHeights(page, frame);
      if (frameFitsContent(heights)) return heights;
      // The content may still be settling (fonts): wait for the next height the frame reports.
      await page.waitForFunction((n) => window.__messages.length > n, (await messages(page)).length, { timeout });
    }
  } catch (error) {
    heights ??= await frameHeights(page, frame).catch(() => null);
    assert.fail(`${context}: the iframe should take its content’s height; ${error.message.split('\n')[0]}; heights: ${JSON.stringify(heights)}`);
  }
}

test('h5p-resizer.js loaded before the frame: the handshake completes and the iframe takes the content height', async () => {
  const { page, frame, problems, close: closePage } = await openFramePage('/resizer-first.html');
  try {
    assert.equal(await page.evaluate(() => window.h5pResizerInitialized), true, 'the real resizer ran on the course page');
    const heights = await waitFrameFitsContent(page, frame, 'resizer first', 10000);
    assert.ok(heights.client > 1000, `the diagram is long: the iframe should have grown from 150 px, it is ${heights.client} px`);
    const actions = h5pActions(await messages(page));
    for (const action of ['hello', 'prepareResize', 'resize']) assert.ok(actions.includes(action), `the frame sends ${action}: ${actions}`);

    // The resizer's `ready` (what it sends to frames already on a page when it loads) is answered with hello,
    // and its look-alikes are not. Last comes a resizePrepared, which the frame answers with resize: the
    // frame answers in order, so once a resize follows the first hello every reply to the batch is. (The
    // frame may also report a height of its own meanwhile, a prepareResize and resize before the hello: the
    // numerical checks fill their card in once the lesson is idle.)
    const seen = (await messages(page)).length;
    await page.evaluate(() => {
      const target = document.querySelector('iframe[title="Lesson"]').contentWindow;
      const readyLike = [{ context: 'H5P', action: 'ready' }, { context: 'h5p', action: ['ready'] }, { action: 'ready' }, 'ready', JSON.stringify({ context: 'h5p', action: 'ready' })];
      for (const message of [...readyLike, { context: 'h5p', action: 'ready' }, ...readyLike, { context: 'h5p', action: 'resizePrepared' }]) target.postMessage(message, '*');
    });
    const isH5p = (m, action) => m.data?.context === 'h5p' && m.data.action === action;
    const batchAnswered = (replies) => replies.findIndex((m, i) => isH5p(m, 'resize') && replies.slice(0, i).some((r) => isH5p(r, 'hello')));
    await page.waitForFunction(
      (n) => {
        const replies = window.__messages.slice(n);
        const hello = replies.findIndex((m) => m.data?.context === 'h5p' && m.data.action === 'hello');
        return hello >= 0 && replies.slice(hello).some((m) => m.data?.context === 'h5p' && m.data.action === 'resize');
      },
      seen,
      { timeout: 5000 },
    );
    const replies = (await messages(page)).slice(seen);
    const upToResize = h5pActions(replies.slice(0, batchAnswered(replies) + 1));
    assert.deepEqual(upToResize.filter((action) => action === 'hello'), ['hello'], `one hello, for the one real ready: ${JSON.stringify(replies.map((m) => m.data))}`);
    assertNoProblems(problems, 'resizer loaded before the frame');
  } finally {
    await closePage();
  }
});

test('h5p-resizer.js loaded 3 s after the frame: the repeated hello completes the handshake', async () => {
  const { page, frame, problems, close: closePage } = await openFramePage('/frame-only.html');
  try {
    const alone = await frameHeights(page, frame);
    assert.equal(alone.client, 150, `without a resizer the iframe keeps the default 150 px: ${JSON.stringify(alone)}`);
    assert.ok(h5pActions(await messages(page)).includes('hello'), 'the frame said hello to nobody');

    await sleep(3000); // deliberate: the course page loads its resizer late
    await page.addScriptTag({ url: '/h5p-resizer.js' });
    assert.equal(await page.evaluate(() => window.h5pResizerInitialized), true, 'the real resizer ran on the course page');
    const heights = await waitFrameFitsContent(page, frame, 'resizer 3 s after the frame', 15000);
    assert.ok(heights.client > 1000, `the diagram is long: the iframe should have grown from 150 px, it is ${heights.client} px`);
    const actions = h5pActions(await messages(page));
    for (const action of ['prepareResize', 'resize']) assert.ok(actions.includes(action), `the frame sends ${action} once answered: ${actions}`);
    assertNoProblems(problems, 'resizer loaded after the frame');
  } finally {
    await closePage();
  }
});
