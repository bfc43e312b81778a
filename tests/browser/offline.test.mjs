// Offline after one visit (issue 19, item 5): the service worker (web/pwa.ts) precaches the build, so a reload
// without the network shows the working lesson on the standalone page and in embed.html, and the scale
// section, whose module loads only when a preset is chosen, runs too. A new build replaces the precache: after
// the update the page runs the new build's files, and the old build's entries are gone. Opened from disk
// (file://), index.html says how to serve it.
// Only this file lets the service worker run (openPage's serviceWorkers: 'allow'). Offline means both the
// context's network switched off and the server closed.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { serve } from '../../scripts/serve.mjs';
import {
  assertNoProblems,
  cell,
  csp,
  dist,
  launchBrowser,
  openPage,
  qkvExpected,
  readFixture,
  rendered,
  repo,
  tableTexts,
  waitLaidOut,
  waitReady,
  waitRenderedAfter,
} from './harness.mjs';

let browser;
let fixture;
before(async () => {
  [browser, fixture] = await Promise.all([launchBrowser(), readFixture()]);
});
after(async () => {
  await browser?.close();
});

async function start(root, port = 0) {
  const server = await serve({ root, port, csp });
  return {
    port: server.address().port,
    close: () => new Promise((done) => {
      server.close(() => done());
      server.closeAllConnections();
    }),
  };
}

// The script URL of the service worker that controls the page, once one does (clientsClaim makes the first one
// take over the page that registered it).
async function controlledBy(page) {
  return (await page.waitForFunction(() => navigator.serviceWorker.controller?.scriptURL, undefined, { timeout: 60000 })).jsonValue();
}

// Every URL in the page's caches (path and query), by cache name.
const cached = async () => {
  const all = {};
  for (const name of await caches.keys()) all[name] = (await (await caches.open(name)).keys()).map((request) => new URL(request.url).pathname + new URL(request.url).search);
  return all;
};

// X[0] 1 -> 2 recomputes Q as the fixture's arithmetic says (tests/browser/lesson.test.mjs checks all outputs).
async function editComputes(page, context) {
  const before = await rendered(page);
  await cell(page, 'input', 0).fill('2');
  await waitRenderedAfter(page, before);
  const edited = structuredClone(fixture);
  edited.input.values[0] = 2;
  const expected = qkvExpected(edited);
  assert.deepEqual(qkvExpected(fixture).query, fixture.expected.query.values, 'test oracle: the arithmetic gives the fixture’s Q');
  assert.notDeepEqual(expected.query, fixture.expected.query.values, 'the edit changes Q');
  assert.deepEqual(await tableTexts(page, 'query'), expected.query.map(String), `${context}: Q after X[0] = 2`);
}

test('after one visit, the standalone page, embed.html and the scale section work without the network', async () => {
  const server = await start(dist);
  const origin = `http://127.0.0.1:${server.port}`;
  const { context, page, problems, requests, reload, goto, close } = await openPage(browser, { serviceWorkers: 'allow' });
  let online = true;
  try {
    await goto(`${origin}/`);
    await waitReady(page);
    await waitLaidOut(page);
    assert.equal(await controlledBy(page), `${origin}/sw.js`);
    const precache = Object.values(await page.evaluate(cached)).flat();
    for (const pattern of [/^\/index\.html\?__WB_REVISION__=/, /^\/embed\.html\?__WB_REVISION__=/, /^\/assets\/qkv-scale-simd-[\w-]{8}\.(js|wasm)$/, /^\/assets\/qkv-scale-[\w-]{8}\.wasm$/, /^\/assets\/scale-worker-[\w-]{8}\.js$/]) {
      assert.ok(precache.some((url) => pattern.test(url)), `the precache holds ${pattern} (it holds ${precache.join(', ')})`);
    }
    assert.ok(!precache.some((url) => /host-example|qkv-embed-host|qkv-lesson\.js/.test(url)), 'nothing of the course-host example or the element’s stable entry');
    assert.ok(!requests.some((url) => url.includes('qkv-scale')), 'the page itself has not loaded the scale module');
    assert.ok(await page.locator('.from-disk').isHidden(), 'served, the page does not show the note for a page opened from disk');

    await context.setOffline(true);
    await server.close();
    online = false;
    requests.length = 0;
    await reload();
    await waitReady(page);
    await waitLaidOut(page);
    await editComputes(page, 'the standalone page offline');

    await page.locator('qkv-lesson section.scale button[data-preset="lesson"]').click();
    await page.locator('qkv-lesson section.scale:not([data-busy]) .scale-results[data-shown="lesson"]').waitFor({ timeout: 60000 });
    const rows = await page.locator('qkv-lesson section.scale table.scale-table').first().locator('tbody tr').count();
    assert.ok(rows > 0, 'the scale preset shows its table offline');
    assert.ok(requests.some((url) => /\/qkv-scale(-simd)?-[\w-]{8}\.wasm$/.test(url)), 'the scale module was loaded, offline');

    await goto(`${origin}/embed.html?reveal=never`); // a query string: the same precached page
    await waitReady(page);
    await waitLaidOut(page);
    await editComputes(page, 'embed.html offline');
    assertNoProblems(problems, 'offline');
  } finally {
    await close();
    if (online) await server.close();
  }
});

// Issue 37, item 7: a learner deletes the site's caches (DevTools' Application > Clear storage with only Cache
// storage ticked, or a cleaning extension) while the service worker stays registered. Workbox fetches the build only
// when a worker installs, so without a repair the precache would stay empty for this build, and the lesson would
// never work offline again. The worker that serves the page repairs its own precache when the page asks
// (src/sw.ts): no second worker installs beside it, so nothing waits for the browser to hand the page from one
// worker to another, which Chromium does once the old one has no work left, or else after five minutes, and with
// DevTools attached (as Playwright is) the five minutes can be what it waits (docs/offline.md).
// Asks the page's worker for a repair, as the page itself does, with a port for the answer, which the worker sends
// once its repairs before this one and this one's are done. A worker that never answers fails the test after two
// minutes instead of holding the run.
const askRepair = (page) =>
  page.evaluate(() => new Promise((done, fail) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = (event) => done(event.data);
    setTimeout(() => fail(new Error('the worker did not answer the repair request within two minutes')), 120000);
    navigator.serviceWorker.controller.postMessage({ type: 'qkv-repair-precache' }, [channel.port2]);
  }));

test('caches deleted with the worker still registered: a load online repairs the precache in the same worker, and the lesson works offline again', async () => {
  const server = await start(dist);
  const origin = `http://127.0.0.1:${server.port}`;
  const { context, page, problems, reload, goto, close } = await openPage(browser, { serviceWorkers: 'allow' });
  const entries = () => page.evaluate(async () => {
    let count = 0;
    for (const name of await caches.keys()) count += (await (await caches.open(name)).keys()).length;
    return count;
  });
  // The page's controller and each of the registration's workers, by script URL and state.
  const workers = () => page.evaluate(async () => {
    const registration = await navigator.serviceWorker.getRegistration();
    const where = (worker) => worker && `${worker.scriptURL} ${worker.state}`;
    return { controller: navigator.serviceWorker.controller?.scriptURL, installing: where(registration?.installing), waiting: where(registration?.waiting), active: where(registration?.active) };
  });
  const oneWorker = { controller: `${origin}/sw.js`, installing: null, waiting: null, active: `${origin}/sw.js activated` };
  let online = true;
  try {
    await goto(`${origin}/`);
    await waitReady(page);
    await waitLaidOut(page);
    await controlledBy(page);
    const whole = await entries();
    assert.ok(whole > 20, `the build is precached (${whole} entries)`);
    assert.deepEqual(await askRepair(page), { type: 'qkv-repair-precache', repaired: 0, missing: 0 }, 'nothing to repair in a whole precache');
    // Twice: a repaired precache can be lost and repaired again.
    for (const time of ['first', 'second']) {
      await page.evaluate(async () => {
        for (const name of await caches.keys()) await caches.delete(name);
      });
      assert.equal(await entries(), 0, `${time} time: every cache deleted`);
      assert.deepEqual(await workers(), oneWorker, `${time} time: the worker is still registered`);

      await reload();
      await waitReady(page);
      await waitLaidOut(page);
      // Nothing left for this check to repair: the page's own request, which the worker took first, repaired it all.
      assert.deepEqual(await askRepair(page), { type: 'qkv-repair-precache', repaired: 0, missing: 0 }, `${time} time: the page had the worker repair its precache`);
      assert.equal(await entries(), whole, `${time} time: every file of the build is precached again`);
      assert.deepEqual(await workers(), oneWorker, `${time} time: the same worker serves the page, and none installs or waits beside it`);
    }

    await context.setOffline(true);
    await server.close();
    online = false;
    await reload();
    await waitReady(page);
    await waitLaidOut(page);
    await editComputes(page, 'offline, after the precache was repaired');
    await page.locator('qkv-lesson section.scale button[data-preset="lesson"]').click();
    await page.locator('qkv-lesson section.scale:not([data-busy]) .scale-results[data-shown="lesson"]').waitFor({ timeout: 60000 });
    assertNoProblems(problems, 'caches deleted, repaired, then offline');
  } finally {
    await close();
    if (online) await server.close();
  }
});

// Two builds of the same sources but one changed file (src/main.ts marks the document with the build's name).
async function buildInto(name) {
  const { build } = await import('vite');
  const outDir = mkdtempSync(join(tmpdir(), `qkv-offline-${name}-`));
  await build({
    configFile: resolve(repo, 'web/vite.config.ts'),
    root: resolve(repo, 'web'),
    logLevel: 'silent',
    build: { outDir, emptyOutDir: true },
    plugins: [{
      name: 'qkv-offline-test-mark',
      transform: (code, id) => (id.endsWith('/src/main.ts') ? `${code}\ndocument.documentElement.dataset.build = ${JSON.stringify(name)};\n` : undefined),
    }],
  });
  assert.ok(existsSync(join(outDir, 'sw.js')), `${outDir}/sw.js was built`);
  return outDir;
}

test('a new build at the same address replaces the precache: the page runs the new files, the old ones are gone', async () => {
  const [one, two] = [await buildInto('one'), await buildInto('two')];
  let server = await start(one);
  const origin = `http://127.0.0.1:${server.port}`;
  const { page, problems, reload, goto, close } = await openPage(browser, { serviceWorkers: 'allow' });
  try {
    await goto(`${origin}/`);
    await waitReady(page);
    await controlledBy(page);
    assert.equal(await page.evaluate(() => document.documentElement.dataset.build), 'one');
    const entry = () => page.evaluate(() => document.querySelector('script[type="module"]').getAttribute('src').replace('./', '/'));
    const oldEntry = await entry();
    const before = Object.values(await page.evaluate(cached)).flat();
    assert.ok(before.includes(oldEntry), `build one's entry ${oldEntry} is precached`);

    await server.close();
    server = await start(two, server.port);
    await reload();
    // The browser looks for a new sw.js on navigation; asked here too, so the test does not depend on when. When
    // update() settles, the newest worker is the installing one (or already waiting or active): wait for it to be
    // activated, which is when Workbox has deleted the old build's entries and the worker has taken control.
    const newest = await page.evaluate(async () => {
      const registration = await navigator.serviceWorker.getRegistration();
      await registration.update();
      const worker = registration.installing ?? registration.waiting ?? registration.active;
      await new Promise((done, fail) => {
        const check = () => (worker.state === 'activated' ? done() : worker.state === 'redundant' ? fail(new Error('the new service worker became redundant')) : undefined);
        worker.addEventListener('statechange', check);
        check();
      });
      if (navigator.serviceWorker.controller !== worker) await new Promise((done) => navigator.serviceWorker.addEventListener('controllerchange', done, { once: true }));
      const urls = [];
      for (const name of await caches.keys()) urls.push(...(await (await caches.open(name)).keys()).map((request) => new URL(request.url).pathname));
      return urls;
    });
    assert.ok(!newest.includes(oldEntry), `the old build's entry ${oldEntry} is gone once the new worker is active (${newest.join(', ')})`);

    const response = await reload();
    await waitReady(page);
    await waitLaidOut(page);
    const how = { fromServiceWorker: response?.fromServiceWorker(), status: response?.status(), timing: await page.evaluate(() => JSON.stringify(performance.getEntriesByType('navigation')[0])) };
    const shown = await page.evaluate(() => ({ build: document.documentElement.dataset.build, entry: document.querySelector('script[type="module"]').getAttribute('src') }));
    assert.equal(shown.build, 'two', `the reload runs the new build (${JSON.stringify(shown)}, ${JSON.stringify(how)}, ${JSON.stringify(await page.evaluate(cached))})`);
    const newEntry = await entry();
    assert.notEqual(newEntry, oldEntry);
    assert.ok(existsSync(join(two, newEntry)), `the entry ${newEntry} is build two's`);
    const caches = await page.evaluate(cached);
    assert.equal(Object.keys(caches).filter((name) => name.startsWith('workbox-precache')).length, 1, `one precache (${Object.keys(caches).join(', ')})`);
    const after = Object.values(caches).flat();
    assert.ok(after.includes(newEntry), `build two's entry ${newEntry} is precached`);
    for (const url of after) assert.ok(existsSync(join(two, url.split('?')[0])), `${url} is a file of build two (no old entry left)`);
    // The page's own revision is build two's (its sw.js manifest), and only that one is kept.
    const revision = /"?url"?:"index\.html","?revision"?:"(\w+)"|"?revision"?:"(\w+)","?url"?:"index\.html"/.exec(readFileSync(join(two, 'sw.js'), 'utf8'));
    assert.ok(revision, 'build two’s sw.js lists index.html with a revision');
    assert.deepEqual(after.filter((url) => url.startsWith('/index.html')), [`/index.html?__WB_REVISION__=${revision[1] ?? revision[2]}`]);
    assert.ok(after.length >= before.length - 1 && after.length <= before.length + 1, `as many entries as the build has (${before.length} then ${after.length})`);
    assertNoProblems(problems, 'update');
  } finally {
    await close();
    await server.close();
    for (const dir of [one, two]) rmSync(dir, { recursive: true, force: true });
  }
});

test('opened from disk (file://), index.html says to serve it with npm start', async () => {
  const page = await browser.newPage();
  try {
    await page.goto(pathToFileURL(join(dist, 'index.html')).href);
    const note = page.locator('header .from-disk');
    await note.waitFor({ state: 'visible', timeout: 15000 });
    const text = await note.innerText();
    assert.match(text, /^This page was opened from a file, and most browsers do not run the lesson from one \(Firefox does\)\. Serve it instead: /);
    assert.match(text, /run npm start and open the address it prints/);
    assert.notEqual(await page.locator('qkv-lesson').getAttribute('data-state'), 'ready', 'Chromium does not run the lesson from a file (else the note would be wrong)');
  } finally {
    await page.close();
  }
});

// navigator.serviceWorker.register is a Trusted Types sink: the page passes sw.js's URL through its policy.
test('under Trusted Types (require-trusted-types-for), the page registers its service worker with no violation', async () => {
  const server = await serve({ root: dist, port: 0, csp: `${csp}; require-trusted-types-for 'script'; trusted-types qkv-lesson` });
  const { page, problems, goto, close } = await openPage(browser, { serviceWorkers: 'allow' });
  try {
    await page.addInitScript(() => {
      window.__violations = [];
      document.addEventListener('securitypolicyviolation', (event) => window.__violations.push(`${event.violatedDirective}: ${event.blockedURI} ${event.sample}`));
    });
    await goto(`http://127.0.0.1:${server.address().port}/`);
    await waitReady(page);
    assert.equal(await controlledBy(page), `http://127.0.0.1:${server.address().port}/sw.js`);
    assert.deepEqual(await page.evaluate(() => window.__violations), []);
    assertNoProblems(problems, 'Trusted Types');
  } finally {
    await close();
    await new Promise((done) => server.close(done));
  }
});

// A sandboxed frame (allow-scripts, no allow-same-origin) has an opaque origin, where reading
// navigator.serviceWorker throws: the lesson starts there, says nothing in the console and registers nothing.
test('in a sandboxed frame, the lesson registers no service worker and says nothing about it', async () => {
  const hostPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Course page</title><link rel="icon" href="/favicon.svg"></head>
<body><iframe sandbox="allow-scripts" src="/embed.html?sections=diagram" title="Lesson" width="900" height="600"></iframe></body></html>`;
  const server = await serve({ root: dist, port: 0, csp, headers: { 'Access-Control-Allow-Origin': '*' }, route: (url) => (url.pathname === '/course.html' ? { ext: '.html', body: hostPage } : undefined) });
  const { page, problems, goto, close } = await openPage(browser, { serviceWorkers: 'allow' });
  try {
    await goto(`http://127.0.0.1:${server.address().port}/course.html`);
    const frame = await (await page.waitForSelector('iframe[title="Lesson"]')).contentFrame();
    assert.equal(await frame.evaluate(() => self.origin), 'null', 'the frame has an opaque origin');
    await waitReady(frame);
    await waitLaidOut(frame);
    assert.deepEqual(await page.evaluate(() => navigator.serviceWorker.getRegistrations().then((all) => all.map((one) => one.scope))), [], 'no service worker on the lesson’s origin');
    assertNoProblems(problems, 'sandboxed frame');
  } finally {
    await close();
    await new Promise((done) => server.close(done));
  }
});

// A browser without service workers (no navigator.serviceWorker: what openPage's default, serviceWorkers: 'block',
// shows every other test file): the standalone page and embed.html start, register nothing and say nothing.
test('in a browser without service workers, the pages register nothing and say nothing about it', async () => {
  const server = await start(dist);
  const { page, problems, requests, goto, close } = await openPage(browser);
  try {
    for (const path of ['/', '/embed.html?sections=diagram']) {
      await goto(`http://127.0.0.1:${server.port}${path}`);
      assert.equal(await page.evaluate(() => 'serviceWorker' in navigator), false, 'the browser has no service workers');
      await waitReady(page);
      await waitLaidOut(page);
    }
    assert.deepEqual(requests.filter((url) => url.endsWith('/sw.js')), [], 'no sw.js requested');
    assertNoProblems(problems, 'no service workers');
  } finally {
    await close();
    await server.close();
  }
});
