// What the scale section does once a preset is chosen (scale.ts builds the section and loads this file on the
// first choice, so the lesson's cold load does not carry it): run the preset in the section's worker, or on the
// page's thread where no worker can start, and place the core's text, or say why nothing was computed.
import { h } from './dom';
import type { ScaleResponse } from './scale-api';
import { startWorkerViaPolicy } from './trusted-types';
import { loadScaleCore } from './scale-core';
import { createRunner } from './worker-runner';

// A table in a named, focusable region that scrolls sideways on a narrow screen (with a fade on the side
// that has more, styles.css), so that the page itself never does.
function table(caption: string, head: string[], rows: string[][]): HTMLElement {
  return h(
    'div',
    { class: 'scroller', role: 'region', 'aria-label': caption, tabindex: '0' },
    h(
      'table',
      { class: 'scale-table' },
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, ...head.map((text) => h('th', { scope: 'col' }, text)))),
      h('tbody', {}, ...rows.map(([first, ...rest]) => h('tr', {}, h('th', { scope: 'row' }, first), ...rest.map((text) => h('td', {}, text))))),
    ),
  );
}

function render(response: Extract<ScaleResponse, { ok: true }>): Node[] {
  const runs = [response.run, response.smaller];
  return [
    h('p', {}, `For ${response.label}: X is ${response.input_shape}, each of W_Q, W_K and W_V is ${response.weight_shape} (${response.parameters} parameters in all), and Q, K and V are ${response.output_shape}.`),
    table(
      'Forward and backward on this machine',
      ['shape [B, T, D] → H', 'multiply-adds', 'time', 'GFLOP/s', 'runs averaged'],
      runs.map((run) => [run.shape, run.multiply_adds, run.seconds, run.gflops, run.runs]),
    ),
    h('p', { class: 'scale-linear' }, response.linear),
    table(
      'The values, summarised (seeded data: weights Xavier-uniform, X and the upstream gradients uniform in [−1, 1))',
      ['tensor', 'shape', 'mean', 'RMS', 'min', 'max'],
      response.summaries.map((s) => [s.name, s.shape, s.mean, s.rms, s.min, s.max]),
    ),
  ];
}

// The section's parts this file fills in (built by scale.ts).
export interface ScaleParts {
  section: HTMLElement;
  status: HTMLElement;
  failure: HTMLElement;
  results: HTMLElement;
}

export interface ScaleRun {
  run(preset: string): Promise<void>;
  release(): void;
}

export function createScaleRun({ section, status, failure, results }: ScaleParts): ScaleRun {
  const runner = createRunner<string, ScaleResponse>(
    () => startWorkerViaPolicy(() => new Worker(new URL('./scale-worker.ts', import.meta.url), { type: 'module' })),
    // On the page's thread only where no worker can start (this file, and so the loader, is itself loaded on a choice).
    (preset) => loadScaleCore().then((core) => core.scale({ preset })),
    { pageHasEngine: false }, // the page loads the scale module only where no worker can
  );
  const clearFailure = () => {
    failure.hidden = true;
    failure.replaceChildren();
  };
  const show = (response: ScaleResponse) => {
    section.removeAttribute('data-busy');
    status.textContent = response.ok ? '' : (response.error?.sentence ?? '');
    results.replaceChildren(...(response.ok ? render(response) : []));
    // data-shown names the preset whose results are on screen, and none once a refusal has emptied them.
    if (response.ok) results.dataset.shown = response.preset;
    else delete results.dataset.shown;
    results.dataset.ranIn = runner.ranIn() ?? ''; // in the worker, or on the page's thread (a fact the tests check)
  };
  // What another attempt can do: a fresh worker imports the module and fetches its .wasm anew; on the page's
  // thread the .wasm is fetched anew, but a module script that failed to import stays failed until a reload.
  const showUnavailable = (preset: string, message: string | undefined, reloadNeeded: boolean, network: boolean) => {
    // The section's engine is downloaded only when a preset runs: without the network, say so plainly.
    status.textContent = network
      ? 'Running a preset needs the network: this section’s engine could not be downloaded, so nothing was computed.'
      : 'The engine of this section could not load, so nothing was computed.';
    const reason = h('p', { class: 'scale-reason' }, `Reason: ${message ?? 'unknown'}`);
    if (reloadNeeded) {
      failure.replaceChildren(reason, h('p', {}, 'This page cannot load it again: reload the page to try again.'));
    } else {
      const retry = h('button', { type: 'button', class: 'scale-retry' }, 'Try again');
      retry.addEventListener('click', () => run(preset));
      const how = runner.ranIn() === 'worker' ? 'Try again starts a fresh worker, which downloads the engine again.' : 'Try again downloads the engine’s .wasm again.';
      failure.replaceChildren(reason, h('p', {}, `${how} `, retry));
    }
    failure.hidden = false;
  };
  const run = async (preset: string) => {
    section.dataset.busy = preset;
    status.textContent = 'Computing…';
    clearFailure();
    const outcome = await runner.run(preset);
    if (outcome.done) return show(outcome.response);
    if (outcome.reason === 'superseded') return; // a newer choice is running
    section.removeAttribute('data-busy');
    if (outcome.reason === 'unavailable') return showUnavailable(preset, outcome.message, outcome.reloadNeeded === true, outcome.network === true);
    status.textContent = `The computation could not run: ${outcome.message ?? outcome.reason}`;
  };
  return { run, release: () => runner.release() };
}
