// Lesson iframes that start below the fold get their height without being seen (issue 17, item 2). Chromium
// does not render a cross-origin frame far from the viewport: no animation frames, no ResizeObserver callbacks
// there. The lesson lays out the rest of itself without an animation frame, embed.ts reports the height once it
// is laid out, and qkv-embed-host.js asks each frame for its height on load and as it nears the viewport.
//   QKV_DIST=<build> node --test --test-concurrency=1 tests/browser/offscreen-frames.test.mjs
//
// Without the fix the frame's height never arrives (it keeps its 56 px loading height until scrolled to); with it
// the lesson lays itself out 500 ms after ready and posts its height. The tests wait for those messages, not for
// a clock: how long ready → height took on the course page's clock is printed by test 1, never asserted (issue 17
// asked for 2 s; a busy 2-core machine took 2.2 s once, which is no fault of the lesson: see npm run bench:phone).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { serve } from '../../scripts/serve.mjs';
import { assertNoProblems, csp, dist, eventually, frameHeights, launchBrowser, openPage } from './harness.mjs';

let browser;
let lessonServer; // dist/ as http://localhost:<port>: another site than the course page's 127.0.0.1
let lessonOrigin;
let hostServer;
let hostOrigin;

const loadingHeight = 56; // the frame's height while the lesson loads (what the course author saw stay)
const spacer = 3000; // px of course page above the frames: more than the viewport (900) and the host's margin (one viewport) together
const loads = 10;

// The course page records, on its own clock (performance.now()), every message from a lesson frame and every
// height the host script gives a frame.
const recorderJs = `
window.__messages = [];
window.__heights = [];
const frameIndex = (win) => [...document.querySelectorAll('iframe')].findIndex((frame) => frame.contentWindow === win);
window.addEventListener('message', (event) => {
  window.__messages.push({ index: frameIndex(event.source), data: event.data, at: performance.now() });
});
new MutationObserver((records) => {
  const at = performance.now();
  for (const record of records) {
    window.__heights.push({ index: [...document.querySelectorAll('iframe')].indexOf(record.target), height: record.target.style.height, at });
  }
}).observe(document, { subtree: true, attributeFilter: ['style'] });
`;

const hostCss = `
.spacer { height: ${spacer}px }
iframe { width: 100%; border: 0; display: block }
`;

// The course pages. The 2 s pages show no self-score section: its first result is computed in a worker when
// the browser is idle after ready (CPU work, not a message), and test 3 follows it instead.
const noWorker = encodeURIComponent('prediction rule diagram scale exercises next');
const pages = {
  '/course.html': [`?sections=${noWorker}`, '?sections=diagram'],
  '/course-full.html': [''],
};

function hostHtml(queries) {
  const frames = queries.map((query, i) => `<iframe data-qkv-lesson src="${lessonOrigin}/embed.html${query}" title="Lesson ${i + 1}"></iframe>`);
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Course page with two lessons below the fold</title>
    <link rel="stylesheet" href="/host.css" />
    <script src="/recorder.js"></script>
  </head>
  <body>
    <h1>A long course page</h1>
    <div class="spacer"></div>
    ${frames.join('\n    ')}
    <script src="${lessonOrigin}/qkv-embed-host.js"></script>
  </body>
</html>`;
}

function startHost() {
  const policy = ["default-src 'self'", `script-src 'self' ${lessonOrigin}`, `frame-src ${lessonOrigin}`, "style-src 'self'"].join('; ');
  const files = { '/host.css': ['text/css', hostCss], '/recorder.js': ['text/javascript', recorderJs] };
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (pages[path]) {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': policy });
      response.end(hostHtml(pages[path]));
    } else if (files[path]) {
      response.writeHead(200, { 'Content-Type': `${files[path][0]}; charset=utf-8` });
      response.end(files[path][1]);
    } else if (path === '/favicon.ico') {
      response.writeHead(204).end();
    } else {
      response.writeHead(404).end('not found');
    }
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

const close = (server) => new Promise((done) => (server ? server.close(() => done()) : done()));

before(async () => {
  [lessonServer, browser] = await Promise.all([serve({ root: dist, port: 0, csp, headers: { 'Access-Control-Allow-Origin': '*' } }), launchBrowser()]);
  lessonOrigin = `http://localhost:${lessonServer.address().port}`;
  hostServer = await startHost();
  hostOrigin = `http://127.0.0.1:${hostServer.address().port}`;
});
after(async () => {
  await browser?.close();
  await close(hostServer);
  await close(lessonServer);
});

// In each lesson frame: post a mark to the course page at ready (its time there is the start of the 2 s) and
// when laid out (heights posted between the two would be estimates), count the animation frames after ready
// (the scenario is a frame that gets none), and keep the height requests that reach the frame.
function frameScript() {
  if (window === window.top) return;
  window.__requests = [];
  window.__animationFrames = 0;
  window.addEventListener('message', (event) => {
    if (event.data?.type === 'qkv-lesson:height-request') window.__requests.push(performance.now());
  });
  // Captured at the window: posted before the frame's own height message (the lesson's listener comes later).
  window.addEventListener('qkv-lesson-laid-out', () => window.parent.postMessage({ type: 'test:laid-out' }, '*'), true);
  document.addEventListener('qkv-lesson-ready', () => {
    window.parent.postMessage({ type: 'test:ready' }, '*');
    requestAnimationFrame(() => window.__animationFrames++);
  });
}

// Opens a course page and returns each lesson frame at its index among the page's iframes.
async function openCourse(path = '/course.html') {
  const opened = await openPage(browser);
  await opened.page.addInitScript(frameScript);
  await opened.goto(`${hostOrigin}${path}`);
  const frames = [];
  for (const frame of opened.page.frames()) {
    if (!frame.url().startsWith(lessonOrigin)) continue;
    const index = await (await frame.frameElement()).evaluate((element) => [...document.querySelectorAll('iframe')].indexOf(element));
    frames[index] = frame;
  }
  assert.equal(frames.filter(Boolean).length, pages[path].length, `${path} has ${pages[path].length} lesson frames`);
  return { ...opened, frames };
}

// Waits until every frame has been given a height by the course page after its lesson laid itself out (the
// messages and heights the course page recorded), and each iframe is as tall as its content. No clock: how long
// that takes is printed by test 1, not asserted (a busy machine is not a fault of the lesson).
async function waitSettled(page, frames) {
  await page.waitForFunction(
    (count) => {
      const laidOut = window.__messages.filter((message) => message.data?.type === 'test:laid-out');
      return laidOut.length === count && laidOut.every((mark) => window.__heights.some((height) => height.index === mark.index && height.at >= mark.at));
    },
    frames.length,
    { timeout: 30000, polling: 100 },
  );
  for (const [index, frame] of frames.entries()) {
    await eventually(
      async () => {
        const outer = await (await frame.frameElement()).evaluate((iframe) => iframe.getBoundingClientRect().height);
        const body = await frame.evaluate(() => document.body.getBoundingClientRect().height);
        return Math.abs(outer - body) <= 1;
      },
      { timeout: 10000, message: `frame ${index + 1} as tall as its content` },
    );
  }
}

test(`1. two cross-origin lessons below the fold reach their content height, unscrolled and unrendered (${loads} loads)`, async () => {
  const seen = [];
  for (let load = 1; load <= loads; load++) {
    const { page, problems, frames, close } = await openCourse();
    try {
      await waitSettled(page, frames);
      const course = await page.evaluate(() => ({
        messages: window.__messages,
        heights: window.__heights,
        scrollY: window.scrollY,
        viewport: window.innerHeight,
        frames: [...document.querySelectorAll('iframe')].map((frame) => ({ top: frame.getBoundingClientRect().top, height: frame.getBoundingClientRect().height })),
      }));
      for (const [index, frame] of frames.entries()) {
        const where = `load ${load}, frame ${index + 1}`;
        const inside = await frame.evaluate(() => ({ body: document.body.getBoundingClientRect().height, animationFrames: window.__animationFrames, laidOut: document.querySelector('qkv-lesson').dataset.laidOut !== undefined }));
        const outer = course.frames[index];
        const readyAt = course.messages.find((message) => message.index === index && message.data?.type === 'test:ready').at;
        // The scenario: the frame stayed far below the viewport, the browser rendered nothing in it.
        assert.equal(course.scrollY, 0, `${where}: the course page was not scrolled`);
        assert.ok(outer.top > 2 * course.viewport, `${where}: the frame is beyond the host script's margin (top ${outer.top} px)`);
        assert.equal(inside.animationFrames, 0, `${where}: the scenario is a frame Chromium does not render (it got an animation frame)`);
        assert.ok(inside.laidOut, `${where}: the lesson laid itself out without an animation frame`);
        // Its height: the content's, far above the loading height (the lesson is thousands of px tall at 1280 px wide).
        assert.ok(inside.body > 1000, `${where}: the lesson's body is ${inside.body} px tall (loading: ${loadingHeight} px)`);
        assert.ok(Math.abs(outer.height - inside.body) <= 1, `${where}: the iframe is ${outer.height} px tall, its content ${inside.body} px`);
        // The frame's present height is the last one the host script set.
        const last = course.heights.filter((height) => height.index === index).at(-1);
        assert.equal(last?.height, `${outer.height}px`, `${where}: the host script set the present height`);
        // No estimate on the way: no height message between the marks of ready and of the lesson laid out.
        const mine = course.messages.filter((message) => message.index === index);
        const ready = mine.findIndex((message) => message.data?.type === 'test:ready');
        const laidOut = mine.findIndex((message) => message.data?.type === 'test:laid-out');
        assert.ok(laidOut > ready, `${where}: the laid-out mark came after the ready mark`);
        const estimates = mine.slice(ready, laidOut).filter((message) => message.data?.type === 'qkv-lesson:height');
        assert.deepEqual(estimates.map((message) => message.data.height), [], `${where}: heights posted while the lesson held estimates`);
        seen.push(Math.round(last.at - readyAt));
      }
      assertNoProblems(problems, `load ${load}`);
    } finally {
      await close();
    }
  }
  console.log(`ready → height on the course page (ms): ${seen.join(', ')}`);
});

test('2. qkv-embed-host.js asks each frame for its height on load, and again as the frame nears the viewport', async () => {
  const { page, problems, frames, close } = await openCourse();
  try {
    await waitSettled(page, frames);
    const first = frames[0];
    const onLoad = await first.evaluate(() => window.__requests.length);
    assert.ok(onLoad >= 1, 'the frame was asked for its height when it loaded');
    // Half a viewport below the viewport: within the host script's margin (one viewport), still unseen.
    const viewport = await page.evaluate(() => window.innerHeight);
    await page.evaluate((y) => window.scrollTo(0, y), spacer - 1.5 * viewport);
    await first.waitForFunction((before) => window.__requests.length > before, onLoad, { timeout: 10000, polling: 100 });
    assert.ok((await page.evaluate(() => document.querySelector('iframe').getBoundingClientRect().top)) > viewport, 'the frame was asked before it came into view');
    assertNoProblems(problems, 'scrolled near');
  } finally {
    await close();
  }
});

test('3. a whole lesson below the fold that changes unseen (another sections value) reports its new height', async () => {
  const { page, problems, frames, close } = await openCourse('/course-full.html');
  const [frame] = frames;
  // The iframe as tall as its content (the frame is never rendered, so its own viewport keeps its first size):
  // returns the content's height.
  const waitFits = async (what) => {
    const fits = async () => {
      const { client, body } = await frameHeights(page, frame);
      return Math.abs(client - body) <= 1 && body;
    };
    return eventually(fits, { timeout: 10000, message: `${what}: the iframe to follow its content` });
  };
  try {
    // Settled: laid out, with the self-score section's first result (computed in a worker once the browser is
    // idle after ready). Playwright polls on animation frames by default, and this frame gets none.
    await frame.waitForFunction(() => {
      const lesson = document.querySelector('qkv-lesson');
      return lesson.dataset.laidOut !== undefined && lesson.shadowRoot.querySelector('.self-score-results[data-shown]');
    }, undefined, { timeout: 30000, polling: 100 });
    const full = await waitFits('with the self-score result');
    await frame.evaluate(() => document.querySelector('qkv-lesson').setAttribute('sections', 'diagram'));
    await frame.waitForFunction((full) => Math.abs(document.body.scrollHeight - full) > 100, full, { polling: 100 });
    const diagram = await waitFits('after sections="diagram"');
    assert.ok(diagram < full - 100, `the diagram alone (${diagram} px) is shorter than the whole lesson (${full} px)`);
    assert.equal(await frame.evaluate(() => window.__animationFrames), 0, 'the frame was never rendered meanwhile');
    const place = await page.evaluate(() => ({ top: document.querySelector('iframe').getBoundingClientRect().top, viewport: window.innerHeight }));
    assert.ok(place.top > 2 * place.viewport, `the frame stayed beyond the host script's margin (top ${place.top} px)`);
    assertNoProblems(problems, 'full lesson below the fold');
  } finally {
    await close();
  }
});
