// Shared helpers for the browser tests: a static server for dist/ under a strict Content-Security-Policy,
// one headless Chromium per test file, pages that record every console error/warning, page error and
// failed request, and readers for the lesson's tables and the frozen fixture.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// QKV_DIST: another build's folder (a developer testing a build of their own beside dist/).
export const dist = process.env.QKV_DIST ? resolve(process.env.QKV_DIST) : resolve(repo, 'dist');
export const fixturePath = resolve(repo, 'fixtures/chapter26.json');

// Every page in these tests is served with this policy: no inline script, no eval (WASM compile only).
// A third-party file tests use as it is (never copied into the project): from $QKV_VENDOR_DIR, else from
// ../shared/vendor/ beside the checkout, else from this workplace's /work/shared/vendor/. Missing is an
// error that says where it looked (a test must not hang on a file that is not there).
export function vendorFile(name) {
  const places = [process.env.QKV_VENDOR_DIR, resolve(repo, '../shared/vendor'), '/work/shared/vendor'].filter(Boolean);
  for (const place of places) if (existsSync(resolve(place, name))) return resolve(place, name);
  throw new Error(`${name} not found in ${places.join(', ')} (set QKV_VENDOR_DIR to the folder holding it)`);
}

export const csp = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";

// How long a wait for one of the page's own signals (ready, laid out, rendered, a worker's result, a frame's
// height) may take before it fails with what it waited for: generous, because on a machine with both cores busy
// (two test files at once beside other work) a step that takes 2 s alone has taken over 20 s. A wait that is
// meant to be quick passes its own timeout. A test that hangs anyway fails at node's --test-timeout
// (scripts/test.sh). QKV_SIGNAL_TIMEOUT (ms) shortens it for a developer who wants failures fast.
export const signalTimeout = Number(process.env.QKV_SIGNAL_TIMEOUT ?? 120_000);

// Starts the server on dist/ (port 0) and returns its origin and the lesson's URL.
export async function startServer({ base = '/' } = {}) {
  assert.ok(existsSync(resolve(dist, 'index.html')), `dist/index.html is missing: run scripts/build.sh before the browser tests`);
  const server = await serve({ root: dist, port: 0, base, csp });
  const { port } = server.address();
  const origin = `http://127.0.0.1:${port}`;
  return {
    server,
    origin,
    url: `${origin}${base}`,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

// Issue 37, item 7: a damaged download never sticks. dist/ as npm start's server sends it (under `policy`), except
// that the first `times` responses for the files `pattern` matches are cut in half: a 200 with the immutable cache
// header and no Content-Length, the connection closed after half the bytes (as a proxy that drops a chunked response
// sends it; the browser cannot tell it from a whole file, and caches it for a year). `state.requests` lists, for each
// request of a matching file, whether it asked past the cache (`paths`: which file it was; `size`: the last damaged
// file's whole length). `contentType`: the damaged responses' type, or a function of their path.
// `pages`: path → HTML served beside dist/ (a course page of the host's own, say).
export async function serveCutShort(pattern, contentType, times, { policy = csp, pages = {} } = {}) {
  const files = await serve({ root: dist, port: 0, csp: policy });
  const serveFile = files.listeners('request')[0];
  const state = { left: times, requests: [], paths: [], size: 0 };
  const front = createServer((request, response) => {
    const path = new URL(request.url, 'http://localhost').pathname;
    if (Object.hasOwn(pages, path)) {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache', 'Content-Security-Policy': policy });
      return response.end(pages[path]);
    }
    if (!pattern.test(path)) return serveFile(request, response);
    state.requests.push((request.headers['cache-control'] ?? '').includes('no-cache'));
    state.paths.push(path);
    if (state.left === 0) return serveFile(request, response);
    state.left--;
    const bytes = readFileSync(join(dist, path));
    state.size = bytes.length;
    const type = typeof contentType === 'string' ? contentType : contentType(path);
    response.socket.end(Buffer.concat([
      Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: ${type}\r\nCache-Control: public, max-age=31536000, immutable\r\nContent-Security-Policy: ${policy}\r\nConnection: close\r\n\r\n`),
      bytes.subarray(0, bytes.length >> 1),
    ]));
  });
  await new Promise((done) => front.listen(0, '127.0.0.1', done));
  return {
    state,
    url: `http://127.0.0.1:${front.address().port}/`,
    close: async () => {
      front.closeAllConnections();
      await new Promise((done) => front.close(done));
      await new Promise((done) => files.close(done));
    },
  };
}

// Every cold load gets a fresh context, which headless Chromium 156 opens as a window of its own, and a new
// window loads its omnibox popups (WebUI pages of some 300 modules) while the lesson loads: on a 2-core
// machine that took about 80 ms of the lesson's first frame after ready (bench/compare.mjs, 10 loads each).
// A learner's browser has its window already, so these two features are off here, as Puppeteer turns them off
// by default (puppeteer/puppeteer#15278). Chromium keeps only the last --disable-features switch, so ours
// repeats Playwright's own list (playwright-core 1.65.1); checkDisabledFeatures() makes every launch verify it.
const playwrightDisabledFeatures = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];
const disabledFeatures = [...playwrightDisabledFeatures, 'WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'];

// `extraArgs`: a benchmark's own command-line switches (bench/eager-wasm.mjs: V8's flags).
export async function launchBrowser({ extraArgs = [] } = {}) {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--disable-features=${disabledFeatures.join(',')}`,
      ...extraArgs,
    ],
  });
  try {
    checkDisabledFeatures();
  } catch (error) {
    await browser.close();
    throw error;
  }
  return browser;
}

// The browsers this process started (Linux: children in /proc), as their command lines: each one's last
// --disable-features must name every feature an earlier one does, or Playwright's list has changed.
function checkDisabledFeatures() {
  if (!existsSync('/proc/self/stat')) return;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let args;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) continue;
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // the process ended meanwhile
    }
    const lists = args.filter((arg) => arg.startsWith('--disable-features=')).map((arg) => arg.slice('--disable-features='.length).split(','));
    if (lists.length === 0) continue;
    const kept = new Set(lists.at(-1));
    const dropped = lists.slice(0, -1).flat().filter((name) => !kept.has(name));
    if (dropped.length) throw new Error(`Chromium would drop ${dropped.join(', ')} (only the last --disable-features counts): add them to playwrightDisabledFeatures in tests/browser/harness.mjs`);
  }
}

// A fresh context and page that records problems: console errors and warnings (CSP violations are
// console errors), uncaught page errors and failed requests. `requests` lists every requested URL.
// Navigate an open page with the returned `reload` and `goto`, not page.reload/page.goto: leaving a document
// makes Chromium abort the requests it still has in flight (the favicon, the math fonts and the self-score
// worker's script load after the `load` event), and an abort caused by our own navigation is no problem of
// the lesson. Which document started a request is told by its start time where Chromium reports one, not
// by the order events arrive in: a worker's requests may be reported after the new document committed
// (issue 18, item 14). An aborted request that started before the new document replaced the old one (the
// new document's navigation timing: the old one's unload end, or its response start when no same-origin
// document unloaded) belongs to the document we left; so does an abort without a start time (Chromium gives
// none for some worker requests) that arrived while our navigation was under way. Those are listed in
// `abandoned`; every other failed request, and any other error for those requests, is a problem.
// The lesson's service worker (web/pwa.ts) is blocked unless `serviceWorkers: 'allow'`: requests a service worker
// makes bypass page.route/context.route, and its precache would serve one test's files to the next load. Blocked,
// the pages see a browser without service workers (no navigator.serviceWorker, as with Firefox's
// dom.serviceWorkers.enabled off), where the lesson registers nothing and says nothing (web/src/offline.ts), rather
// than Playwright's stand-in register(), which warns in the console.
// Chromium's preload timer warning (openPage says why it is not a problem), for every Chromium page the tests open.
export const isPreloadTimerWarning = (message) => message.type() === 'warning' && /was preloaded using link preload but not used within a few seconds/.test(message.text());

export async function openPage(browser, { width = 1280, height = 900, serviceWorkers = 'block' } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, reducedMotion: 'reduce', serviceWorkers });
  context.setDefaultTimeout(signalTimeout); // every locator wait and click without a timeout of its own
  if (serviceWorkers === 'block') await context.addInitScript(() => delete Navigator.prototype.serviceWorker);
  const page = await context.newPage();
  const problems = [];
  const requests = [];
  page.on('console', (message) => {
    // Chromium's "preloaded using link preload but not used within a few seconds from the window's load event"
    // is a timer, 3 s after load: with both cores busy the lesson's module has started the .wasm's fetch later
    // than that (a CI run at load 10). Whether the preload is used is asserted where it matters, by counting the
    // .wasm's downloads (wasm-download.test.mjs: exactly one), which no timing can pass by chance.
    if (isPreloadTimerWarning(message)) return;
    if (message.type() === 'error' || message.type() === 'warning') {
      const where = message.location();
      problems.push(`console.${message.type()}: ${message.text()}${where?.url ? ` (at ${where.url}:${where.lineNumber})` : ''}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  const abandoned = [];
  // When each of our navigations replaced the old document (ms since the epoch, as request timings are),
  // and the failures that arrived while a navigation was under way, judged once it is done.
  const replacedAt = [];
  let navigating = false;
  const undecided = [];
  const leftBehind = (request, duringNavigation) => {
    const started = request.timing().startTime;
    if (started > 0) return replacedAt.some((time) => started < time);
    return duringNavigation;
  };
  const heldAsProblems = []; // aborts a navigation of the page's own may explain (below)
  const judge = (request, error, duringNavigation) => {
    if (error === 'net::ERR_ABORTED' && leftBehind(request, duringNavigation)) return abandoned.push(request.url());
    const problem = `requestfailed: ${request.url()} (${error})${duringNavigation ? ' during a navigation' : ''}`;
    problems.push(problem);
    if (error !== 'net::ERR_ABORTED') return;
    heldAsProblems.push([request, problem]);
    settleHeld();
  };
  page.on('request', (request) => requests.push(request.url()));
  page.on('requestfailed', (request) => {
    const error = request.failure()?.errorText ?? 'unknown';
    if (navigating) undecided.push([request, error]);
    else judge(request, error, false);
  });
  // The page's own navigations (mend-damaged-files.js reloads the page) leave requests behind too: Playwright reports
  // each request still in flight when a new document commits as aborted, with no start time. Which document asked for
  // each request is the DevTools protocol's loaderId. Such an abort stands as a problem until the frame that asked is
  // seen showing another document than the one that asked, while that request had not ended (then it moves to
  // `abandoned`); any other abort stays a problem.
  const cdp = await context.newCDPSession(page);
  const inFlight = new Map(); // requestId -> { url, frameId, loaderId }, until the protocol says the request ended
  const shownLoaders = new Map(); // frameId -> the loaderId of the document it shows
  const settleHeld = () => {
    for (const [request, problem] of heldAsProblems.splice(0)) {
      const leftBy = [...inFlight].find(([, { url, frameId, loaderId }]) => url === request.url() && shownLoaders.has(frameId) && shownLoaders.get(frameId) !== loaderId);
      if (!leftBy) heldAsProblems.push([request, problem]);
      else {
        inFlight.delete(leftBy[0]);
        problems.splice(problems.indexOf(problem), 1);
        abandoned.push(request.url());
      }
    }
  };
  cdp.on('Network.requestWillBeSent', ({ requestId, frameId, loaderId, request }) => inFlight.set(requestId, { url: request.url, frameId, loaderId }));
  cdp.on('Network.loadingFinished', ({ requestId }) => inFlight.delete(requestId));
  cdp.on('Network.loadingFailed', ({ requestId }) => inFlight.delete(requestId));
  cdp.on('Page.frameNavigated', ({ frame }) => {
    shownLoaders.set(frame.id, frame.loaderId);
    settleHeld();
  });
  await Promise.all([cdp.send('Network.enable'), cdp.send('Page.enable')]);
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  const pageReplacedAt = () =>
    page.evaluate(() => {
      const [timing] = performance.getEntriesByType('navigation');
      return performance.timeOrigin + (timing.unloadEventEnd || timing.responseStart);
    });
  const navigate = async (go, replaced = pageReplacedAt) => {
    navigating = true;
    try {
      const result = await go();
      replacedAt.push(await replaced());
      return result;
    } finally {
      navigating = false;
      for (const [request, error] of undecided.splice(0)) judge(request, error, true);
    }
  };
  return {
    context,
    page,
    problems,
    requests,
    abandoned,
    reload: (options) => navigate(() => page.reload(options)),
    goto: (url, options) => navigate(() => page.goto(url, options)),
    // A navigation the test makes in one of the page's frames (an LMS's player closing the lesson's frame): `go`
    // resolves once the frame's old document is gone, and what that document still had in flight (a worker's
    // script, on a busy machine) is left behind, as with the page's own navigations.
    navigateFrame: (go) => navigate(go, async () => Date.now()),
    close: () => context.close(),
  };
}

export function assertNoProblems(problems, context) {
  assert.deepEqual(problems, [], `${context}: expected no console errors/warnings, page errors or failed requests, got:\n  ${problems.join('\n  ')}`);
}

export const lesson = 'qkv-lesson';

// Waits until the element reports data-state="ready" (fails early with the state if it went to "error").
export async function waitReady(page, timeout = signalTimeout) {
  const handle = await page.waitForFunction(
    () => {
      const state = document.querySelector('qkv-lesson')?.dataset.state;
      return state === 'ready' || state === 'error' ? state : false;
    },
    undefined,
    { timeout },
  );
  const state = await handle.jsonValue();
  if (state !== 'ready') {
    const text = await page.locator('qkv-lesson').innerText().catch(() => '');
    assert.fail(`qkv-lesson ended with data-state="${state}" instead of "ready"; it shows: ${text}`);
  }
}

// After ready the lesson is laid out top down, a few stretches a frame (data-laid-out once none waits). Until
// then, a stretch that waits is out of the layout: tests that read rendered text or positions wait for this.
export async function waitLaidOut(page, timeout = signalTimeout) {
  await page.waitForFunction(() => document.querySelector('qkv-lesson')?.dataset.laidOut !== undefined, undefined, { timeout });
}

// After layout the page's idle work writes more: the checks' verdicts (in place of "being checked…") and the
// experiment's results once its worker answers. Tests that measure positions wait for both: a page still growing
// may be scrolled by the test driver's own moves (a click's scroll into view) between a measure and the act.
export async function waitIdleWorkShown(page, timeout = signalTimeout) {
  await page.waitForFunction(
    () => {
      const root = document.querySelector('qkv-lesson')?.shadowRoot;
      return root?.querySelector('.checks-pending') === null && root.querySelector('.self-score-results[data-shown]') !== null;
    },
    undefined,
    { timeout },
  );
}

// Answers one exercise as a learner does and checks it: picks the option named by responses[0] (a choice) or
// types responses into the blanks in order. `scope` is a page, a frame or a frame locator; one form per exercise
// (in the diagram before its evidence, in the exercises section or in the self-score section). Returns the form.
export async function answerExercise(scope, id, responses) {
  const form = scope.locator(`qkv-lesson form[data-exercise="${id}"]`);
  const radios = form.locator('input[type="radio"]');
  if ((await radios.count()) > 0) await form.locator(`input[value="${responses[0]}"]`).check();
  else {
    const blanks = form.locator('input[type="text"]');
    for (let i = 0; i < responses.length; i++) await blanks.nth(i).fill(responses[i]);
  }
  await form.getByRole('button', { name: 'Check' }).click();
  return form;
}

// A page for axe: axe's script is injected, so this context bypasses the CSP (openPage's pages keep it). Reduced
// motion, the given viewport and colour scheme; ready and laid out. Collects page errors and console errors/warnings.
export async function openForAxe(browser, url, { width, height, colorScheme = 'light', forcedColors = 'none' }) {
  const context = await browser.newContext({ viewport: { width, height }, bypassCSP: true, reducedMotion: 'reduce', colorScheme, forcedColors });
  context.setDefaultTimeout(signalTimeout);
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console.${message.type()}: ${message.text()}`);
  });
  await page.goto(url);
  await waitReady(page);
  await waitLaidOut(page);
  return { page, problems, close: () => context.close() };
}

// Opens the lesson at `url` and waits for it to be ready and laid out.
export async function openLesson(browser, url, options) {
  const opened = await openPage(browser, options);
  await opened.page.goto(url);
  await waitReady(opened.page);
  await waitLaidOut(opened.page);
  return opened;
}

// A fresh instance of the core the page runs, made in the page (as window.testCore) from the very files the
// page loaded (its module script and .wasm, from `requests` of openPage/openLesson): what the core computes
// for the numbers on screen, and the registry the page reads, without the element.
export async function coreInPage(page, requests) {
  const pick = (extension) => requests.find((url) => new RegExp(`/qkv(-simd)?-[^/]*\\.${extension}$`).test(url) && !url.includes('qkv-scale'));
  const [script, wasm] = [pick('js'), pick('wasm')];
  assert.ok(script && wasm, `the page loaded its core (${script}, ${wasm})`);
  await page.evaluate(async ([script, wasm]) => {
    const { default: create } = await import(script);
    const compiled = await WebAssembly.compileStreaming(fetch(wasm));
    window.testCore = await create({
      instantiateWasm(imports, receive) {
        WebAssembly.instantiate(compiled, imports).then((instance) => receive(instance, compiled));
        return {};
      },
    });
  }, [script, wasm]);
}

// An init script (`page.addInitScript(countCoreCalls, { requests })`) counting and timing the element's calls of
// its core: hooked on the element's startOn(core, …), the one call that builds the lesson once the core is loaded
// (a private method in TypeScript, an ordinary prototype method at run time), which wraps each of the core's
// functions. window.__coreCalls then holds, for the calls made inside a start (`start`) and after it (`later`),
// name → { count, ms } (and `requests`, request-as-JSON → count, when asked for: JSON costs time a timing would
// count), and the first start's startBegin and startEnd (performance.now()); it stays undefined until a start.
// bench/budgets.mjs, bench/profile-start.mjs and the tests' counts share it.
export function countCoreCalls({ requests = false } = {}) {
  let phase = 'later';
  const define = customElements.define;
  customElements.define = function (name, constructor, options) {
    const startOn = name === 'qkv-lesson' ? constructor.prototype.startOn : undefined;
    if (typeof startOn === 'function') {
      constructor.prototype.startOn = function (core, ...rest) {
        const calls = (window.__coreCalls ??= { start: {}, later: {} });
        // Lower-case names only: the core's functions, not its classes (a wrapper cannot be called with new).
        for (const [key, call] of Object.entries(core)) {
          if (typeof call !== 'function' || !/^[a-z]/.test(key) || call.countedCall) continue;
          const counted = function (...args) {
            const begin = performance.now();
            try {
              return call.apply(this, args);
            } finally {
              const kept = (calls[phase][key] ??= { count: 0, ms: 0, requests: {} });
              kept.count += 1;
              kept.ms += performance.now() - begin;
              if (requests) {
                const request = JSON.stringify(args);
                kept.requests[request] = (kept.requests[request] ?? 0) + 1;
              }
            }
          };
          counted.countedCall = true;
          core[key] = counted;
        }
        calls.startBegin ??= performance.now();
        phase = 'start';
        try {
          return startOn.call(this, core, ...rest);
        } finally {
          phase = 'later';
          calls.startEnd ??= performance.now();
        }
      };
    }
    return define.call(this, name, constructor, options);
  };
}

// window.__coreCalls (countCoreCalls), failing clearly when no start was hooked.
export async function coreCallsCounted(page, context = '') {
  const calls = await page.evaluate(() => window.__coreCalls);
  assert.ok(calls, `${context}: the element's startOn was hooked (renamed? countCoreCalls hooks it by name)`);
  return calls;
}

// The texts a table shows, row-major: each td's text, or its input's value for editable tables.
export function tableTexts(page, key) {
  return page.locator(`qkv-lesson table[data-tensor="${key}"]`).evaluate((table) =>
    [...table.querySelectorAll('tbody td')]
      .filter((cell) => !cell.classList.contains('empty'))
      .map((cell) => {
        const input = cell.querySelector('input');
        return input ? input.value : cell.textContent.trim();
      }),
  );
}

// Opens every folded "Show the evidence" part of the diagram the way a learner does: by clicking it.
// An element's rendered text (innerText) with each symbol's name in prose read as it is typed (W_Q): the page
// writes names as MathML (web/src/lesson/dom.ts, withNames), whose innerText is its letters on lines of their
// own. The names are swapped for their typed form and put back within one call, so no frame sees the swap.
export function readText(locator) {
  return locator.evaluate((element) => {
    const names = [...element.querySelectorAll('math[data-name]')].map((name) => [name, document.createTextNode(name.dataset.name)]);
    for (const [name, typed] of names) name.replaceWith(typed);
    const text = element.innerText;
    for (const [name, typed] of names) typed.replaceWith(name);
    return text;
  });
}

export async function openEvidence(page) {
  const closed = page.locator('qkv-lesson details.evidence:not([open]) > summary');
  while ((await closed.count()) > 0) await closed.first().click();
}

export function caption(page, key) {
  return page.locator(`qkv-lesson table[data-tensor="${key}"] caption`).innerText();
}

export function cell(page, key, index) {
  return page.locator(`qkv-lesson table[data-tensor="${key}"] input[data-index="${index}"]`);
}

export function host(page, name) {
  return page.locator('qkv-lesson').getAttribute(name);
}

export async function rendered(page) {
  return Number(await host(page, 'data-rendered'));
}

// Waits until data-rendered exceeds `previous` (each accepted edit renders once).
export async function waitRenderedAfter(page, previous) {
  await page.waitForFunction((n) => Number(document.querySelector('qkv-lesson')?.dataset.rendered) > n, previous, { timeout: signalTimeout });
}

// The frozen fixture; another author may still be writing it, so wait for it to exist and parse.
export async function readFixture({ timeout = 30000 } = {}) {
  const deadline = Date.now() + timeout;
  for (;;) {
    try {
      const fixture = JSON.parse(await readFile(fixturePath, 'utf8'));
      if (fixture.expected && fixture.upstream) return fixture;
    } catch {
      // missing or half-written: poll again
    }
    if (Date.now() > deadline) assert.fail(`${fixturePath} did not appear (or did not parse, or lacks expected/upstream) within ${timeout} ms`);
    await new Promise((done) => setTimeout(done, 250));
  }
}

// The Rust course's golden diagram trace (fixtures/golden/learn-llm-ch26-diagram-trace.txt): one record per
// line, `KIND|key=value|…`, read as { KIND: [fields, …] } (a value may itself hold '=': only the first splits).
export async function readTrace() {
  const records = {};
  const text = await readFile(resolve(repo, 'fixtures/golden/learn-llm-ch26-diagram-trace.txt'), 'utf8');
  for (const line of text.split('\n').filter(Boolean)) {
    const [kind, ...pairs] = line.split('|');
    const fields = Object.fromEntries(pairs.map((pair) => {
      const equals = pair.indexOf('=');
      return [pair.slice(0, equals), pair.slice(equals + 1)];
    }));
    (records[kind] ??= []).push(fields);
  }
  return records;
}

// Plain row-major matrix arithmetic for computing expected values in the tests (never in the page).
export function matmul(a, rows, inner, b, cols) {
  const out = new Array(rows * cols).fill(0);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) {
    let sum = 0;
    for (let k = 0; k < inner; k++) sum += a[r * inner + k] * b[k * cols + c];
    out[r * cols + c] = sum;
  }
  return out;
}

export function transpose(a, rows, cols) {
  const out = new Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = a[r * cols + c];
  return out;
}

export function add(...arrays) {
  return arrays[0].map((_, i) => arrays.reduce((sum, array) => sum + array[i], 0));
}

// Q, K, V, the gradients and L = Σ U_Q∘Q + U_K∘K + U_V∘V for X [B,T,D], weights [D,H], upstreams [B,T,H].
export function qkvExpected({ input, query_weight, key_weight, value_weight, upstream }) {
  const [b, t, d] = input.shape;
  const hw = query_weight.shape[1];
  const rows = b * t;
  const x = input.values;
  const w = { query: query_weight.values, key: key_weight.values, value: value_weight.values };
  const u = { query: upstream.query.values, key: upstream.key.values, value: upstream.value.values };
  const out = {};
  for (const role of ['query', 'key', 'value']) {
    out[role] = matmul(x, rows, d, w[role], hw);
    out[`${role}_weight_gradient`] = matmul(transpose(x, rows, d), d, rows, u[role], hw);
  }
  out.input_gradient = add(
    ...['query', 'key', 'value'].map((role) => matmul(u[role], rows, hw, transpose(w[role], d, hw), d)),
  );
  out.loss = ['query', 'key', 'value'].reduce((sum, role) => sum + out[role].reduce((s, v, i) => s + v * u[role][i], 0), 0);
  return out;
}

// The element writes the URL once typing pauses; wait until it shows what is on screen.
export async function waitUrlSynced(page) {
  await page.waitForFunction(() => {
    const lesson = document.querySelector('qkv-lesson');
    return lesson && lesson.dataset.urlRevision === lesson.dataset.rendered;
  }, undefined, { timeout: signalTimeout });
  return page.url();
}

// One server on dist/ and one browser for a whole test file: started before its first test, stopped after
// its last. Read `.server` and `.browser` of what it returns inside the tests.
// Holds back every request of `page` matching `pattern` until the returned function is called (what the learner
// meets before a script or the core arrives); a request whose page is gone by then is dropped quietly.
export async function holdRequests(page, pattern) {
  let release;
  const held = new Promise((done) => (release = done));
  await page.route(pattern, async (route) => {
    await held;
    await route.continue().catch(() => {});
  });
  return release;
}

export function useServerAndBrowser(options) {
  const run = { server: undefined, browser: undefined };
  before(async () => {
    run.server = await startServer(options);
    run.browser = await launchBrowser();
  });
  after(async () => {
    await run.browser?.close();
    await run.server?.close();
  });
  return run;
}

// A lesson's iframe as the course page sees it, and the document inside it as the lesson sees it.
export async function frameHeights(page, frame) {
  const outer = await (await frame.frameElement()).evaluate((iframe) => ({ style: iframe.style.height, client: iframe.clientHeight }));
  const inner = await frame.evaluate(() => ({
    body: document.body.scrollHeight,
    scrollHeight: document.documentElement.scrollHeight,
    clientHeight: document.documentElement.clientHeight,
    lesson: document.querySelector('qkv-lesson').getBoundingClientRect().height,
  }));
  return { ...outer, ...inner };
}

// The frame shows all of the lesson without scrolling inside, and is at most 24 px taller than it (a frame
// that briefly had a scrollbar lays the lesson out narrower and taller for a moment).
export function frameFitsContent(heights) {
  const lesson = Math.ceil(heights.lesson);
  return heights.client === heights.scrollHeight && heights.clientHeight === heights.scrollHeight && heights.client >= lesson && heights.client - lesson <= 24;
}

// Polls `check` until it returns a truthy value (returned), failing after `timeout` ms with the last value seen:
// for states no event announces (a frame's height as the course page sets it).
export async function eventually(check, { timeout = signalTimeout, interval = 50, message = 'condition' } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) assert.fail(`timed out after ${timeout} ms waiting for ${message}; last: ${last instanceof Error ? last.message : JSON.stringify(last)}`);
    await new Promise((done) => setTimeout(done, interval));
  }
}

// Waits until the iframe shows all of the lesson without scrolling inside (frameFitsContent).
export async function waitFrameFitsContent(page, frame, context, { timeout = signalTimeout } = {}) {
  let heights;
  await eventually(
    async () => {
      heights = await frameHeights(page, frame);
      return frameFitsContent(heights);
    },
    { timeout, message: `${context}: the iframe's height to fit its content` },
  ).catch((error) => assert.fail(`${error.message}; heights: ${JSON.stringify(heights)}`));
  return heights;
}
