// What a cold load downloads, counted one way for bench/budgets.mjs and bench/phone.mjs: every response of the
// page and of its workers (a Playwright context sees both), but not the service worker's, whose precache (the
// whole build, both core variants and the scale modules for offline use) is fetched in the background once the
// lesson is laid out, after the load these measure. Call it on a fresh context before the page navigates.
export function watchDownloads(context) {
  const responses = [];
  context.on('response', (response) => {
    if (!response.request().serviceWorker()) responses.push(response);
  });
  return {
    responses,
    // The .wasm downloads so far (the goal is one: the self-score worker gets the page's compiled module).
    wasmDownloads: () => responses.filter((response) => new URL(response.url()).pathname.endsWith('.wasm')).map((response) => response.url()),
  };
}
