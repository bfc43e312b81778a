// "The same layer at the size of real models": the learner picks a preset, and the core runs the Q/K/V layer
// forward and backward at that size in a Web Worker (scale-worker.ts) on the learner's machine, reporting the
// shapes, the parameter count, the multiply-adds, the time and GFLOP/s, a sentence on why the cost is linear
// in B, T, D and H (checked against the same run with T halved) and a few statistics of the values. The core
// computes and formats every number; this file only places its text. Nothing runs, and nothing of the
// section's own WebAssembly module (scale-core.ts) is downloaded, until a preset is chosen. Where workers are
// unavailable (a course page of another origin), the call runs on the page's thread after the busy message
// has been painted. If the section's engine cannot load, the section says so in words, with the reason as a
// detail, and offers to try again where another attempt can succeed. This file builds the section; what a
// choice does (scale-run.ts) is loaded on the first choice, outside the lesson's cold load.
import { h } from './dom';
import { importMended } from './failed-scripts';
import type { ScaleRun } from './scale-run';
// The buttons name the sizes in words only (scale-presets.json's `buttons`; its `presets`, the sizes the
// scale module is built with, stay out of the page's code): their shapes and counts are the core's, shown
// once it has run (its module is not loaded before a choice).
import { buttons as presetButtons } from './scale-presets.json';

export interface ScaleView {
  element: HTMLElement;
  // h4 inside the optional part ("Going deeper", an h3), h3 where the section stands alone.
  headingLevel(level: 3 | 4): void;
  // The lesson left the page: a running preset stops, and its worker (with the scale module) goes.
  release(): void;
}

// What a choice runs (scale-run.ts): a chunk of its own, loaded on the first choice (after any script that failed on
// an earlier load of this tab has been asked for past the cache). A chunk that arrived damaged (it does not parse: a
// SyntaxError) stays failed in this document, so it is noted for the next load to ask for past the cache
// (failed-scripts.ts), and the learner is asked to reload.
const importScaleRun = () => importMended(() => import('./scale-run'));

// What the section says when its code could not load: damaged (only a reload can load it again), or without the
// network (`tryAgain` imports it again).
function codeFailure(error: unknown, tryAgain: () => void): { said: string; parts: Node[] } {
  const reason = h('p', { class: 'scale-reason' }, `Reason: ${error instanceof Error ? error.message : String(error)}`);
  if (error instanceof SyntaxError) {
    const said = 'This section’s code arrived damaged (the download was cut short or changed on the way), so nothing was computed.';
    return { said, parts: [reason, h('p', {}, 'This page cannot load it again: reload the page to try again.')] };
  }
  // Offline before the first choice: this section's code is not here yet either.
  const retry = h('button', { type: 'button', class: 'scale-retry' }, 'Try again');
  retry.addEventListener('click', tryAgain);
  return { said: 'Running a preset needs the network: this section’s code could not be downloaded, so nothing was computed.', parts: [reason, h('p', {}, retry)] };
}

export function buildScale(idPrefix: string): ScaleView {
  const id = (name: string) => `${idPrefix}-scale-${name}`;
  const buttons = Object.entries(presetButtons).map(([preset, words]) => h('button', { type: 'button', 'data-preset': preset }, words));
  const status = h('p', { role: 'status', id: id('status') });
  // Shown only when the engine could not load: the reason, and what trying again does.
  const failure = h('div', { class: 'scale-failure', hidden: '' });
  const results = h('div', { class: 'scale-results', 'aria-live': 'polite' });
  let heading = h('h3', { id: id('title') }, 'The same layer at the size of real models');
  const section = h(
    'section',
    { class: 'scale', 'aria-labelledby': id('title') },
    heading,
    h('p', {}, 'Pick a size: the core runs the projection layer forward and backward at that size, here in your browser, once untimed as a warm-up, then timed.'),
    h('p', { class: 'scale-presets' }, ...buttons),
    status,
    failure,
    results,
  );

  let running: Promise<ScaleRun> | undefined;
  const choose = (preset: string): void => {
    section.dataset.busy = preset;
    status.textContent = 'Computing…';
    running ??= importScaleRun().then((imported) => imported.createScaleRun({ section, status, failure, results }));
    running.then(
      (scaleRun) => scaleRun.run(preset),
      (error: unknown) => {
        // A chunk that did not parse stays failed in this document: a later choice says so again, asking for nothing.
        if (!(error instanceof SyntaxError)) running = undefined;
        section.removeAttribute('data-busy');
        const { said, parts } = codeFailure(error, () => choose(preset));
        status.textContent = said;
        failure.replaceChildren(...parts);
        failure.hidden = false;
      },
    );
  };
  for (const button of buttons) button.addEventListener('click', () => choose(button.dataset.preset!));
  const headingLevel = (level: 3 | 4) => {
    if (heading.tagName === `H${level}`) return;
    const replacement = h(`h${level}`, { id: id('title') }, ...heading.childNodes);
    heading.replaceWith(replacement);
    heading = replacement;
  };
  return { element: section, headingLevel, release: () => void running?.then((scaleRun) => scaleRun.release(), () => undefined) };
}
