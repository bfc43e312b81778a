// The harness's own judgment of failed requests (openPage in harness.mjs): a request the page's own navigation left
// in flight belongs to the document it left (`abandoned`), and any other abort stays a problem. Two small pages on a
// server of their own, whose `/never` is answered only when the test ends (each page names an icon of its own, so that
// the browser asks for no /favicon.ico).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { eventually, launchBrowser, openPage } from './harness.mjs';

const pages = {
  // Asks for /never, then leaves for /second on its own once the request is on its way.
  '/leaves': "<!doctype html><link rel=icon href=data:,><title>leaves</title><script>fetch('/never').catch(() => {}); setTimeout(() => location.replace('/second'), 300);</script>",
  '/second': '<!doctype html><link rel=icon href=data:,><title>second</title><p>second</p>',
  // Asks for /never and gives up on it itself, staying on the page.
  '/gives-up': "<!doctype html><link rel=icon href=data:,><title>gives up</title><script>const asked = new AbortController(); fetch('/never', { signal: asked.signal }).catch(() => (document.title = 'gave up')); setTimeout(() => asked.abort(), 300);</script>",
};

let browser;
let server;
const waiting = new Set();
test.before(async () => {
  browser = await launchBrowser();
  server = createServer((request, response) => {
    if (request.url === '/never') return waiting.add(response);
    const page = pages[request.url];
    response.writeHead(page ? 200 : 404, { 'Content-Type': 'text/html' }).end(page ?? '');
  });
  await new Promise((listening) => server.listen(0, '127.0.0.1', listening));
});
test.after(async () => {
  for (const response of waiting) response.end();
  await browser?.close();
  await new Promise((closed) => server.close(closed));
});

const url = (path) => `http://127.0.0.1:${server.address().port}${path}`;

test('a request the page’s own navigation left in flight is abandoned, not a problem', async () => {
  const { page, problems, abandoned, close } = await openPage(browser);
  try {
    await page.goto(url('/leaves'));
    await page.waitForURL(url('/second'));
    await eventually(() => abandoned.includes(url('/never')), { message: '/never counted as left behind' });
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('a request the shown page aborted itself stays a problem', async () => {
  const { page, problems, abandoned, close } = await openPage(browser);
  try {
    await page.goto(url('/gives-up'));
    await page.waitForFunction(() => document.title === 'gave up');
    await eventually(() => problems.length > 0, { message: 'the abort reported' });
    assert.deepEqual(problems, [`requestfailed: ${url('/never')} (net::ERR_ABORTED)`]);
    assert.deepEqual(abandoned, []);
  } finally {
    await close();
  }
});
