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
