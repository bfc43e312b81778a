// The slow phone of `npm run bench:phone` (bench/phone.mjs) and `node bench/compare-phone.mjs`: Lighthouse's mobile
// profile applied for real in Chromium, through the DevTools protocol.
export const profile = { cpuSlowdown: 4, downKbps: 1600, upKbps: 750, rttMs: 150, viewport: { width: 412, height: 823 } };

// A fresh context (no cache) with one page under the profile; the protocol session stays open for more listeners.
export async function openPhonePage(browser) {
  const context = await browser.newContext({ viewport: profile.viewport, deviceScaleFactor: 1.75, isMobile: true, hasTouch: true });
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

// Records, from the page's first script on, the long tasks and long animation frames (over 50 ms), ready, the first
// frame after it and data-laid-out; readLongWork gives them as times after ready. Also the lesson's own text on
// screen: the first animation frame in which the opening question (the prerendered one, or the element's at ready)
// has a box, one check a frame until then; what a learner first reads of the lesson, where the page's first
// contentful paint (also recorded) may be the page's own header. Call before page.goto.
export function watchLongWork(page) {
  return page.addInitScript(() => {
    const watched = (window.__longWork = { tasks: [], frames: [] });
    const openingShown = () => {
      const question = document.querySelector('qkv-lesson')?.shadowRoot?.querySelector('form[data-exercise="ch26-first-token"]');
      if (question && question.getBoundingClientRect().height > 0) watched.opening = performance.now();
      else requestAnimationFrame(openingShown);
    };
    requestAnimationFrame(openingShown);
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
  });
}

// What watchLongWork recorded: ready, the first frame, the opening question's first frame and the first contentful
// paint (ms after navigation), data-laid-out (ms after ready), the
// long tasks before and after ready, and each long frame's time after ready when over 50 ms (for the frame that
// spans ready, its end less ready), with its start after ready and what it ran.
export async function readLongWork(page) {
  const { ready, firstFrame, opening, firstContentfulPaint, laidOut, tasks, frames } = await page.evaluate(() => window.__longWork);
  const framesAfterReady = frames
    .map((frame) => ({ after: frame.start + frame.duration - Math.max(frame.start, ready), start: frame.start - ready, duration: frame.duration, ran: frame.ran }))
    .filter((frame) => frame.after > 50);
  return {
    ready,
    firstFrame,
    opening,
    firstContentfulPaint,
    laidOut: laidOut === undefined ? undefined : laidOut - ready,
    longTasksAfterReady: tasks.filter((task) => task.start >= ready),
    longTasksBeforeReady: tasks.filter((task) => task.start < ready),
    longFramesAfterReady: framesAfterReady,
  };
}
