// The three engines a learner may open the lesson in, behind the same few calls: Chromium through playwright-core
// (as tests/browser does), Firefox ESR through puppeteer-core over WebDriver BiDi, and WebKitGTK's MiniBrowser through
// selenium-webdriver and WebKitWebDriver on an Xvfb display this process starts (WebKitGTK has no headless mode).
//   const engine = await launchEngine('webkit');
//   const page = await engine.newPage({ width: 390 });
//   await page.goto(url); await page.waitFor(() => …); await page.evaluate((arg) => …, arg); await page.problems();
// Functions given to evaluate and waitFor run in the page and find the lesson's document with
// window.__engines.doc() (the page itself, or the frame that stands in for a narrow window, see newPage).
//
// Console problems are captured in the page in every engine (WebDriver classic reports none): the test server
// puts capture.js first in every HTML page it serves, which records console.warn/console.error calls, uncaught
// errors, failed resources, unhandled rejections, CSP violations and errors of the page's workers in
// window.__problems. Chromium and Firefox add what their drivers report, and Firefox what the engine itself
// prints (its WebAssembly deprecation warnings reach neither the page nor BiDi: only stdout, with the pref
// devtools.console.stdout.content).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { resolve } from 'node:path';
import puppeteer from 'puppeteer-core';
import { Builder } from 'selenium-webdriver';
import { serve } from '../../scripts/serve.mjs';
import { csp, dist, isPreloadTimerWarning, launchBrowser } from '../browser/harness.mjs';

// QKV_ENGINES=firefox (or a comma-separated list) runs only those engines.
export const engineNames = (process.env.QKV_ENGINES ?? 'chromium,firefox,webkit').split(',').map((name) => name.trim()).filter(Boolean);

const firefoxPath = '/usr/bin/firefox-esr';
const webkitDriverPath = '/usr/bin/WebKitWebDriver';
const miniBrowserPath = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

// --- the test server --------------------------------------------------------------------------------------

// Runs before anything else in every page the server sends (a classic script, allowed by the CSP's 'self').
const captureJs = `(function () {
  if (window.__problems) return;
  var problems = (window.__problems = []);
  var text = function (value) {
    if (value instanceof Error) return value.name + ': ' + value.message;
    try { return typeof value === 'string' ? value : JSON.stringify(value); } catch (error) { return String(value); }
  };
  ['warn', 'error'].forEach(function (kind) {
    var original = console[kind];
    console[kind] = function () {
      problems.push('console.' + kind + ': ' + Array.prototype.map.call(arguments, text).join(' '));
      return original.apply(this, arguments);
    };
  });
  window.addEventListener('error', function (event) {
    var target = event.target;
    if (target && target !== window) problems.push('failed resource: ' + (target.src || target.href || target.tagName));
    else problems.push('pageerror: ' + (event.error ? text(event.error) : event.message));
  }, true);
  window.addEventListener('unhandledrejection', function (event) { problems.push('unhandled rejection: ' + text(event.reason)); });
  document.addEventListener('securitypolicyviolation', function (event) {
    problems.push('CSP violation: ' + event.violatedDirective + ' blocked ' + event.blockedURI);
  });
  if (window.Worker) {
    var NativeWorker = window.Worker;
    window.Worker = class extends NativeWorker {
      constructor(url, options) {
        super(url, options);
        this.addEventListener('error', function (event) { problems.push('worker error: ' + (event.message || 'an error in ' + url)); });
      }
    };
  }
  // The document that holds the lesson (a narrow window's frame, or this page), and the problems of this page
  // and its same-origin frames.
  window.__engines = {
    doc: function () {
      var frame = document.querySelector('iframe[data-engines-frame]');
      return frame ? frame.contentDocument : document;
    },
    problems: function () {
      var all = problems.slice();
      document.querySelectorAll('iframe').forEach(function (frame) {
        try { if (frame.contentWindow.__problems) all.push.apply(all, frame.contentWindow.__problems); } catch (error) { /* another origin */ }
      });
      return all;
    },
  };
})();
`;

// Every page sees an engine without service workers (no navigator.serviceWorker, as in Firefox with
// dom.serviceWorkers.enabled off), where the lesson registers nothing and says nothing (web/src/offline.ts): the
// lesson's worker would precache every file, both core variants too, while a check counts the page's own
// downloads (tests/browser/offline.test.mjs tests the real one, in Chromium).
const noServiceWorkersJs = 'delete Navigator.prototype.serviceWorker;\n';

// The page and the workers of /nosimd/… see an engine without WebAssembly SIMD: validate refuses any module
// with a SIMD opcode prefix (0xfd) that is as small as the lesson's probe (as tests/browser/wasm-variant does).
const refuseSimdJs = `{
  const validate = WebAssembly.validate.bind(WebAssembly);
  WebAssembly.validate = (bytes) => {
    const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    return view.length < 64 && view.includes(0xfd) ? false : validate(bytes);
  };
}
`;

// A window narrower than an engine allows (WebKitGTK's MiniBrowser keeps a 447 px viewport at least): the page
// in a frame of that width, the frame's document then being the lesson's viewport. Attributes only: no inline
// style under the CSP.
const framePage = (src, width, height) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A ${width} px window</title><link rel="icon" href="/favicon.svg"></head>
<body><iframe data-engines-frame title="Lesson" src="${src}" width="${width}" height="${height}" frameborder="0"></iframe></body></html>`;

// A course page that embeds embed.html in an iframe sized by qkv-embed-host.js (as a course would).
const embedHostPage = (query) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A course page</title><link rel="icon" href="/favicon.svg"></head>
<body><h1>Week 6</h1>
<iframe data-qkv-lesson src="/embed.html?${query}" title="Lesson" width="900" frameborder="0"></iframe>
<script src="/qkv-embed-host.js"></script></body></html>`;

// Serves `root` (dist/ or QKV_DIST) with scripts/serve.mjs, under the browser tests' CSP and without caching
// (each page's downloads are its own), with capture.js in every HTML page, and the test pages:
//   /__engines/frame.html?src=…&width=…&height=…  a narrow window (a frame of that size)
//   /__engines/embed-host.html?<embed query>        a course page with embed.html and qkv-embed-host.js
//   /nosimd/<path>                                   <path> in an engine without WebAssembly SIMD
// `requested` lists every path asked for, in order (clear it with requested.length = 0).
export async function startEngineServer({ root = dist } = {}) {
  assert.ok(existsSync(resolve(root, 'index.html')), `${root}/index.html is missing: build the site first (scripts/build.sh, or vite build into QKV_DIST)`);
  const requested = [];
  const route = (url) => {
    requested.push(url.pathname);
    if (url.pathname === '/__engines/capture.js') return { ext: '.js', body: captureJs + noServiceWorkersJs };
    if (url.pathname === '/__engines/refuse-simd.js') return { ext: '.js', body: refuseSimdJs };
    if (url.pathname === '/__engines/frame.html') {
      const { src, width, height } = Object.fromEntries(url.searchParams);
      return { ext: '.html', body: withCapture(framePage(encodeAttribute(src), Number(width), Number(height)), false) };
    }
    if (url.pathname === '/__engines/embed-host.html') return { ext: '.html', body: withCapture(embedHostPage(encodeAttribute(url.search.slice(1))), false) };
    if (url.pathname.startsWith('/nosimd/')) return { pathname: url.pathname.slice('/nosimd'.length) };
    return undefined;
  };
  const noSimd = (url) => url.pathname.startsWith('/nosimd/');
  const server = await serve({
    root,
    port: 0,
    csp,
    cache: false,
    route,
    inject: (html, url) => withCapture(html, noSimd(url)),
    transform: (path, text, url) => (noSimd(url) && /worker-[\w-]+\.js$/.test(path) ? refuseSimdJs + text : undefined),
  });
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { origin, url: `${origin}/`, requested, close: () => new Promise((done) => server.close(() => done())) };
}

const encodeAttribute = (text) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

function withCapture(html, noSimd) {
  const scripts = `<script src="/__engines/capture.js"></script>${noSimd ? '<script src="/__engines/refuse-simd.js"></script>' : ''}`;
  assert.match(html, /<head[^>]*>/, 'an HTML page with a <head>');
  return html.replace(/<head[^>]*>/, (head) => `${head}${scripts}`);
}

// --- the engines ----------------------------------------------------------------------------------------

// Launches one engine; `close()` ends it (and, for WebKit, its driver and display).
export async function launchEngine(name) {
  if (name === 'chromium') return launchChromium();
  if (name === 'firefox') return launchFirefox();
  if (name === 'webkit') return launchWebKit();
  throw new Error(`unknown engine "${name}" (chromium, firefox or webkit)`);
}

// Node-side polling of a condition in the page: the same in every engine (WebDriver classic has no
// waitForFunction). Fails with `message` and the condition's last value.
async function pollFor(evaluate, fn, arg, { timeout = 30000, interval = 100, message = 'condition' } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    last = await evaluate(fn, arg);
    if (last) return last;
    if (Date.now() > deadline) assert.fail(`${message}: not met within ${timeout} ms (last value ${JSON.stringify(last)})`);
    await new Promise((done) => setTimeout(done, interval));
  }
}

// What every page offers, around an engine's own evaluate/goto/screenshot. A width below `minWidth` opens the
// page in a frame of that width (see framePage).
function makePage({ engine, width, height, minWidth = 0, evaluate, goto, screenshot, driverProblems, close }) {
  const framed = width < minWidth;
  const page = {
    engine,
    framed,
    evaluate,
    async goto(url) {
      if (!framed) return goto(url);
      const frame = new URL('/__engines/frame.html', url);
      frame.search = new URLSearchParams({ src: url, width: String(width), height: String(height) }).toString();
      await goto(frame.href);
      await page.waitFor(() => window.__engines.doc()?.readyState === 'complete' && window.__engines.doc().URL !== 'about:blank', undefined, { message: 'the frame loaded' });
    },
    waitFor: (fn, arg, options) => pollFor(evaluate, fn, arg, options),
    screenshot,
    // The width the lesson's document is laid out in (a narrow window's frame, or the window).
    viewportWidth: () => evaluate(() => window.__engines.doc().defaultView.innerWidth),
    // Every problem recorded since the page opened: in the page (and its frames), and by the engine's driver.
    async problems() {
      const inPage = await evaluate(() => (window.__engines ? window.__engines.problems() : ['capture.js did not run in this page']));
      return [...inPage, ...driverProblems()];
    },
    close,
  };
  return page;
}

async function launchChromium() {
  const browser = await launchBrowser();
  return {
    name: 'chromium',
    version: browser.version(),
    async newPage({ width = 1280, height = 900 } = {}) {
      const context = await browser.newContext({ viewport: { width, height } });
      const page = await context.newPage();
      const problems = [];
      page.on('console', (message) => {
        if (isPreloadTimerWarning(message)) return; // a timer that fires under load (harness.mjs, openPage)
        if (message.type() === 'error' || message.type() === 'warning') problems.push(`console.${message.type()} (driver): ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`pageerror (driver): ${error.message}`));
      return makePage({
        engine: 'chromium',
        width,
        height,
        evaluate: (fn, arg) => page.evaluate(fn, arg),
        goto: async (url) => void (await page.goto(url)),
        screenshot: () => page.screenshot(),
        driverProblems: () => problems,
        close: () => context.close(),
      });
    },
    close: () => browser.close(),
  };
}

// Lines Firefox prints for warnings and errors of content: "JavaScript warning: <file>, line <n>: <message>".
// Only lines about the served pages (or with no file: the engine's own WebAssembly warnings) count; Firefox's own
// chrome (resource://, chrome://) logs its own troubles on the same stream.
const firefoxLine = /^JavaScript (warning|error): ([^,]*), line \d+: (.*)$/;

async function launchFirefox() {
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: firefoxPath,
    headless: true,
    extraPrefsFirefox: { 'devtools.console.stdout.content': true },
  });
  const printed = [];
  let partial = '';
  const read = (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop();
    for (const line of lines) {
      const match = firefoxLine.exec(line.trim());
      if (match && (match[2] === '' || match[2].startsWith('http://127.0.0.1:'))) printed.push(`${match[1]} (Firefox): ${match[3]}${match[2] ? ` (at ${match[2]})` : ''}`);
    }
  };
  browser.process()?.stdout?.on('data', read);
  browser.process()?.stderr?.on('data', read);
  return {
    name: 'firefox',
    version: await browser.version(),
    async newPage({ width = 1280, height = 900 } = {}) {
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      await page.setViewport({ width, height });
      const problems = [];
      const firstPrinted = printed.length;
      page.on('console', (message) => {
        if (['error', 'warn', 'warning'].includes(message.type())) problems.push(`console.${message.type()} (driver): ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`pageerror (driver): ${error.message}`));
      return makePage({
        engine: 'firefox',
        width,
        height,
        evaluate: (fn, arg) => page.evaluate(fn, arg),
        goto: async (url) => void (await page.goto(url)),
        screenshot: async () => Buffer.from(await page.screenshot()),
        driverProblems: () => [...problems, ...printed.slice(firstPrinted)],
        close: () => context.close(),
      });
    },
    close: () => browser.close(),
  };
}

const freePort = () =>
  new Promise((done, fail) => {
    const probe = createNetServer();
    probe.on('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => done(port));
    });
  });

// An X display of our own (Xvfb picks a free one and writes its number to fd 3), tall enough for any window.
async function startXvfb() {
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1920x1600x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  let errors = '';
  xvfb.stderr.on('data', (chunk) => (errors += chunk));
  const display = await new Promise((done, fail) => {
    let text = '';
    xvfb.stdio[3].on('data', (chunk) => {
      text += chunk;
      if (text.includes('\n')) done(`:${text.trim()}`);
    });
    xvfb.on('error', (error) => fail(new Error(`Xvfb did not start (${error.message}); scripts/setup.sh installs it (Debian package xvfb)`)));
    xvfb.on('exit', (code) => fail(new Error(`Xvfb ended with ${code}: ${errors}`)));
  });
  const stop = () => xvfb.kill();
  process.once('exit', stop); // a test run that ends early leaves no display behind
  return { display, stop };
}

async function launchWebKit() {
  assert.ok(existsSync(webkitDriverPath), `${webkitDriverPath} is missing: scripts/setup.sh installs it (Debian package webkit2gtk-driver)`);
  // Under xvfb-run (or any X display) the driver uses that display; otherwise one of our own.
  const xvfb = process.env.DISPLAY ? undefined : await startXvfb();
  const port = await freePort();
  const driverProcess = spawn(webkitDriverPath, [`--port=${port}`], {
    stdio: ['ignore', 'ignore', 'ignore'],
    env: { ...process.env, ...(xvfb ? { DISPLAY: xvfb.display } : {}) },
  });
  const stop = () => {
    driverProcess.kill();
    xvfb?.stop();
  };
  process.once('exit', stop);
  try {
    // The driver listens once /status answers.
    const deadline = Date.now() + 15000;
    for (;;) {
      const ready = await fetch(`http://127.0.0.1:${port}/status`).then((response) => response.ok, () => false);
      if (ready) break;
      if (Date.now() > deadline) throw new Error('WebKitWebDriver did not answer /status within 15 s');
      await new Promise((done) => setTimeout(done, 100));
    }
    const driver = await new Builder()
      .usingServer(`http://127.0.0.1:${port}`)
      .withCapabilities({ browserName: 'MiniBrowser', 'webkitgtk:browserOptions': { binary: miniBrowserPath, args: ['--automation'] } })
      .build();
    await driver.manage().setTimeouts({ script: 120000, pageLoad: 60000 });
    const first = await driver.getWindowHandle();
    const capabilities = await driver.getCapabilities();
    let opened = 0;
    return {
      name: 'webkit',
      version: `${capabilities.get('browserName')} ${capabilities.get('browserVersion')}`,
      async newPage({ width = 1280, height = 900 } = {}) {
        // A fresh window per page (WebDriver classic's way to a new page in one session).
        await driver.switchTo().newWindow('window');
        const handle = await driver.getWindowHandle();
        opened++;
        const minWidth = 447;
        // The window's frame takes some of its size: size it so the viewport is width × height.
        const target = { width: Math.max(width, minWidth), height };
        // A new window can report its old viewport for a moment after setRect (seen on a busy machine: the
        // 1280 px page's size, which made the correction negative); so the frame's share is the outer size
        // minus the viewport measured together, retried until the viewport is the one asked for.
        await driver.manage().window().setRect(target);
        for (let attempt = 0; attempt < 50; attempt++) {
          const inner = await driver.executeScript('return [window.innerWidth, window.innerHeight]');
          if (inner[0] === target.width && inner[1] === target.height) break;
          const outer = await driver.manage().window().getRect();
          const width = target.width + Math.max(0, outer.width - inner[0]);
          const heightAsked = target.height + Math.max(0, outer.height - inner[1]);
          await driver.manage().window().setRect({ width, height: heightAsked });
          await new Promise((done) => setTimeout(done, 100));
        }
        const evaluate = async (fn, arg) => {
          const result = await driver.executeAsyncScript(
            `const done = arguments[arguments.length - 1];
             Promise.resolve().then(() => (${fn})(arguments[0])).then(
               (value) => done({ value: value === undefined ? null : value }),
               (error) => done({ error: String(error && error.stack ? error.message + '\\n' + error.stack : error) }));`,
            arg ?? null,
          );
          if (result?.error) throw new Error(`in WebKit: ${result.error}`);
          return result?.value;
        };
        return makePage({
          engine: 'webkit',
          width,
          height,
          minWidth,
          evaluate,
          goto: (url) => driver.get(url),
          screenshot: async () => Buffer.from(await driver.takeScreenshot(), 'base64'),
          driverProblems: () => [],
          close: async () => {
            await driver.switchTo().window(handle);
            // One WebDriver session shares the origin's storage between its windows, where Chromium and Firefox
            // give each page a fresh context: so each page leaves it empty for the next (the lesson keeps a
            // learner's work in localStorage; one test's answers showed up in the next page's lesson).
            await driver.executeAsyncScript(`const done = arguments[arguments.length - 1];
              try { localStorage.clear(); sessionStorage.clear(); } catch {}
              const caches_ = self.caches ? caches.keys().then((keys) => Promise.all(keys.map((key) => caches.delete(key)))) : null;
              const workers = navigator.serviceWorker ? navigator.serviceWorker.getRegistrations().then((all) => Promise.all(all.map((one) => one.unregister()))) : null;
              Promise.allSettled([caches_, workers]).then(() => done(null));`);
            await driver.close();
            await driver.switchTo().window(first);
          },
        });
      },
      async close() {
        try {
          await driver.quit();
        } finally {
          stop();
        }
      },
      opened: () => opened,
    };
  } catch (error) {
    stop();
    throw error;
  }
}
