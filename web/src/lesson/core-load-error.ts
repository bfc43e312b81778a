// What the lesson shows in its error region when its engine could not load: what failed, in words that name
// the file and the reason (core.ts's CoreLoadError), and a Retry button that tries again without reloading
// the page (a download that failed because the learner was offline for a moment, say; the engine's script too:
// core-instance.ts imports it again by a URL the document has not seen where the browser keeps the failure).
import { CoreLoadError } from './core';
import { h } from './dom';

// `retry` starts another attempt; the element replaces this region with the lesson, or with a new error.
// A script that arrived damaged cannot be loaded again by this page: its button reloads the page instead.
export function coreLoadError(error: unknown, retry: () => void): HTMLElement {
  const reload = error instanceof CoreLoadError && error.reloadNeeded;
  const button = h('button', { type: 'button', class: 'retry' }, reload ? 'Reload the page' : 'Retry');
  button.addEventListener('click', () => {
    button.disabled = true; // one attempt at a time
    if (reload) location.reload();
    else retry();
  });
  const named = error instanceof CoreLoadError;
  const reason = error instanceof Error ? error.message : String(error);
  return h(
    'div',
    { class: 'load-error', role: 'alert' },
    h('p', {}, named ? reason : 'The lesson could not start: its computation engine (WebAssembly) did not load.'),
    named ? null : h('p', {}, `Reason: ${reason}`),
    h('p', {}, 'The lesson needs this file to compute anything. ', button),
  );
}
