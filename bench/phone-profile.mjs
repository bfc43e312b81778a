// The slow phone of `npm run bench:phone` (bench/phone.mjs) and `node bench/compare-phone.mjs`: Lighthouse's mobile
// profile applied for real in Chromium, through the DevTools protocol, with every file sent gzipped at level 9 (what
// the measures were taken with; scripts/serve.mjs would send brotli, about 15% smaller, to a browser that
// accepts it).
import { loadavg } from 'node:os';
import { serve } from '../scripts/serve.mjs';
import { csp, launchBrowser, waitReady } from '../tests/browser/harness.mjs';
import { median } from './stats.mjs';

export const profile = { cpuSlowdown: 4, downKbps: 1600, upKbps: 750, rttMs: 150, viewport: { width: 412, height: 823 }, encoding: 'gzip' };

// What a learner sees of the lesson, found the same way by both measures below: its own text (the intro's heading,
// where the page's first contentful paint may be the page's own header), and the opening question.
export const shown = {
  lessonText: 'header.intro h2',
  opening: 'form[data-exercise="ch26-first-token"]',
};

// A fresh context (no cache) with one page under the profile; the protocol session stays open for more listeners.
export async function openPhonePage(browser) {
  const context = await browser.newContext({
    viewport: profile.viewport,
    deviceScaleFactor: 1.75,
    isMobile: true,
    hasTouch: true,
    extraHTTPHeaders: { 'Accept-Encoding': profile.encoding },
  });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: profile.rttMs,
    downloadThroughput: (profile.downKbps * 1000) / 8,
    uploadThroughput: (profile.upKbps * 1000) / 8,
  });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: profile.cpuSlowdown });
  return { context, page, cdp };
}

// Records, from the page's first script on, by the page's own clock (performance.now(), from navigation start): the
// long tasks and long animation frames (over 50 ms), ready, the first frame after it and data-laid-out (readLongWork
// gives them as times after ready); and the first animation frame in which each of `shown` has a box in the lesson
// (prerendered, or the element's at ready), one check a frame until then. Call before page.goto.
export function watchLongWork(page) {
  return page.addInitScript((selectors) => {
    const watched = (window.__longWork = { tasks: [], frames: [], shown: {} });
    for (const [name, selector] of Object.entries(selectors)) {
      const firstFrameWith = () => {
        const element = document.querySelector('qkv-lesson')?.shadowRoot?.querySelector(selector);
        if (element && element.getBoundingClientRect().height > 0) watched.shown[name] = performance.now();
        else requestAnimationFrame(firstFrameWith);
      };
      requestAnimationFrame(firstFrameWith);
    }
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (entry.name === 'first-contentful-paint') watched.firstContentfulPaint = entry.startTime;
    }).observe({ type: 'paint', buffered: true });
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) watched.tasks.push({ start: entry.startTime, duration: entry.duration });
    }).observe({ type: 'longtask', buffered: true });
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        // What the frame ran: each script's entry point and its ms, then the frame's rendering (style, layout, paint).
        const scripts = entry.scripts.map((script) => `${script.invoker} ${Math.round(script.duration)}`);
        const rendering = entry.renderStart ? `rendering ${Math.round(entry.startTime + entry.duration - entry.renderStart)}` : 'no rendering';
        watched.frames.push({ start: entry.startTime, duration: entry.duration, ran: [...scripts, rendering].join(', ') });
      }
    }).observe({ type: 'long-animation-frame', buffered: true });
    document.addEventListener('qkv-lesson-ready', () => {
      watched.ready = performance.now();
      requestAnimationFrame(() => (watched.firstFrame = performance.now()));
    });
    document.addEventListener('qkv-lesson-laid-out', () => (watched.laidOut = performance.now()));
  }, shown);
}

// What watchLongWork recorded: ready, the first frame, the lesson's text's and the opening question's first frames
// and the first contentful paint (ms after navigation), data-laid-out (ms after ready), the
// long tasks before and after ready, and each long frame's time after ready when over 50 ms (for the frame that
// spans ready, its end less ready), with its start after ready and what it ran.
export async function readLongWork(page) {
  const { ready, firstFrame, shown: seen, firstContentfulPaint, laidOut, tasks, frames } = await page.evaluate(() => window.__longWork);
  const framesAfterReady = frames
    .map((frame) => ({ after: frame.start + frame.duration - Math.max(frame.start, ready), start: frame.start - ready, duration: frame.duration, ran: frame.ran }))
    .filter((frame) => frame.after > 50);
  return {
    ready,
    firstFrame,
    lessonText: seen.lessonText,
    opening: seen.opening,
    firstContentfulPaint,
    laidOut: laidOut === undefined ? undefined : laidOut - ready,
    longTasksAfterReady: tasks.filter((task) => task.start >= ready),
    longTasksBeforeReady: tasks.filter((task) => task.start < ready),
    longFramesAfterReady: framesAfterReady,
  };
}

// The same three figures by another method and another clock: Playwright's waitForFunction (its own poller, once
// an animation frame, started before the navigation so that it watches the new page from its start) returns the
// wall-clock time (Date.now()) at which it saw each of `shown` with a box, and data-state="ready" (so, the first
// frame after ready); each is taken from the wall-clock time at which the browser's network stack sent the page's
// request (the DevTools protocol's Network.requestWillBeSent). Nothing of the page's performance timeline is read.
// Not Node's clock: on a loaded machine Node heard of each figure 10–320 ms after the page saw it, and Node's time
// before page.goto came 40–180 ms before the browser started the navigation. Call before page.goto.
export function watchFromOutside(page, cdp) {
  const requestSent = new Promise((sent) => {
    const onRequest = ({ type, wallTime }) => {
      if (type !== 'Document') return;
      cdp.off('Network.requestWillBeSent', onRequest);
      sent(wallTime * 1000);
    };
    cdp.on('Network.requestWillBeSent', onRequest);
  });
  const seenAt = (predicate, arg) =>
    page.waitForFunction(predicate, arg, { polling: 'raf', timeout: 60000 }).then(async (handle) => (await handle.jsonValue()) - (await requestSent));
  const hasBox = (selector) => ((document.querySelector('qkv-lesson')?.shadowRoot?.querySelector(selector)?.getBoundingClientRect().height ?? 0) > 0 ? Date.now() : false);
  return Promise.all([
    seenAt(hasBox, shown.lessonText),
    seenAt(hasBox, shown.opening),
    seenAt(() => (document.querySelector('qkv-lesson')?.dataset.state === 'ready' ? Date.now() : false)),
  ]).then(([lessonText, opening, ready]) => ({ lessonText, opening, ready }));
}

// One cold load of `url` on the phone: the page's own figures (readLongWork), the same figures measured from
// outside, and the machine's 1-minute load average at its end. `extra({ context, page, cdp })`, called before the
// navigation, may return a function whose result (read before the context closes) joins the sample.
export async function measureLoad(browser, url, extra) {
  const { context, page, cdp } = await openPhonePage(browser);
  try {
    const readExtra = extra?.({ context, page, cdp });
    await watchLongWork(page);
    const outside = watchFromOutside(page, cdp);
    outside.catch(() => {}); // awaited below; if the load fails first, its own error is the one to report
    await page.goto(url, { waitUntil: 'commit' });
    await waitReady(page, 60000);
    const independent = await outside;
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(2000);
    const own = await readLongWork(page);
    return { ...own, independent, loadAverage: loadavg()[0], ...(await readExtra?.()) };
  } finally {
    await context.close();
  }
}

// Cold loads of each URL in turn, the order reversed every round, so that the machine's drift falls on all alike.
export async function alternateLoads(browser, urls, loads, measure) {
  const samples = urls.map(() => []);
  for (let load = 0; load < loads; load++) {
    const order = urls.map((_, which) => which);
    for (const which of load % 2 ? order : order.reverse()) samples[which].push(await measure(browser, urls[which]));
  }
  return samples;
}

// Serves each built folder (under the lesson's CSP, compressed as `npm start`'s server does), measures `loads`
// alternating cold loads of each in one browser with `measure`, and closes the browser and the servers: the samples,
// one list per folder.
export async function alternateBuilds(roots, loads, measure = measureLoad) {
  const servers = await Promise.all(roots.map((root) => serve({ root, port: 0, csp })));
  const browser = await launchBrowser();
  try {
    return await alternateLoads(browser, servers.map((server) => `http://127.0.0.1:${server.address().port}/`), loads, measure);
  } finally {
    await browser.close();
    await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
  }
}

// The figures both measures give, per build: each one's median, the outside one's ÷ the page's own, and the load
// averages the loads ended at. The page's "ready" is its first frame after ready, as the outside one's is.
export function bothMeasures(samples) {
  const figure = (own, outside) => {
    const ownMedian = median(samples.map(own));
    const outsideMedian = median(samples.map(outside));
    return { ownMs: Math.round(ownMedian), outsideMs: Math.round(outsideMedian), ratio: Math.round((outsideMedian / ownMedian) * 1000) / 1000 };
  };
  const loads = samples.map((sample) => sample.loadAverage);
  return {
    lessonText: figure((s) => s.lessonText, (s) => s.independent.lessonText),
    opening: figure((s) => s.opening, (s) => s.independent.opening),
    ready: figure((s) => s.firstFrame, (s) => s.independent.ready),
    firstContentfulPaintMs: Math.round(median(samples.map((s) => s.firstContentfulPaint))),
    loadAverage: { median: Math.round(median(loads) * 100) / 100, min: Math.min(...loads), max: Math.max(...loads) },
    // Each load's figures, [page, outside] in ms, and its load average.
    perLoad: samples.map((s) => ({
      lessonText: [s.lessonText, s.independent.lessonText].map(Math.round),
      opening: [s.opening, s.independent.opening].map(Math.round),
      ready: [s.firstFrame, s.independent.ready].map(Math.round),
      loadAverage: s.loadAverage,
    })),
  };
}

// bothMeasures as lines of a table, for one build.
export function bothMeasuresLines(label, figures, goals = {}) {
  const goal = (name) => (goals[name] === undefined ? '' : `   goal ≤ ${goals[name]} ms: ${figures[name].ownMs <= goals[name] && figures[name].outsideMs <= goals[name] ? 'met' : 'NOT met'}`);
  const row = (title, name) => `  ${title.padEnd(46)} ${String(figures[name].ownMs).padStart(6)} ms  ${String(figures[name].outsideMs).padStart(6)} ms  ${figures[name].ratio.toFixed(3).padStart(6)}×${goal(name)}`;
  const { median: load, min, max } = figures.loadAverage;
  return [
    `${label}: medians; load average ${load} (${min}–${max}) at the loads' ends`,
    `  ${'figure'.padEnd(46)} ${'page'.padStart(9)}  ${'outside'.padStart(9)}  outside ÷ page`,
    row("the lesson's own text's first frame", 'lessonText'),
    row("the opening question's first frame", 'opening'),
    row('ready: the first frame after data-state=ready', 'ready'),
    `  ${"first contentful paint (the page's, any text)".padEnd(46)} ${String(figures.firstContentfulPaintMs).padStart(6)} ms`,
  ];
}
