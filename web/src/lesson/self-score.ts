// "Why three projections": the numpy module's self-score experiment, recomputed by the C++ core with a
// generator bit-identical to numpy's legacy np.random. The page states only what the mathematics and the
// computation show. The experiment and the seed searches run in a Web Worker (self-score-runner.ts), with
// progress and Cancel; above 16 tokens the core sends a summary (the 8 × 8 corner, counts, the first rows
// peaking elsewhere) instead of every score.
import type { ExperimentFacts, KindSummaryView as KindSummary, SelfScoreSummaryView as Summary } from './core-api';
import { fold } from './evidence-parts';
import { h, part } from './dom';
import { whenIdle, whenIdleNext } from './idle';
import { renderExercise, type ExerciseHandle, type ExerciseOptions } from './exercises';
import { createSelfScoreRunner } from './self-score-runner';
import { arrowTarget, focusCell } from './tables';
import type { CoreError, ExerciseView, QkvCore, SelfScoreRequest } from './types';

// The worker's summary: its doubles arrive as Float64Arrays (which the page never reads: C++ formatted them).
type KindSummaryView = KindSummary<Float64Array>;
type SelfScoreSummaryView = Summary<Float64Array>;

// The numpy module's own experiment (the core's kModuleExperiment).
const moduleSettings: SelfScoreRequest = { seed: '1', tokens: '5', dim: '8' };

// Each kind's scores, folded below the questions they answer (`asks`) until those are checked. The separate
// kind's question is pinned to the module's experiment (the core's facts for another seed carry no separate
// scores to grade it by), so its fold keeps the module's table whatever the settings (`pinned`); the others
// follow the settings, as their questions do.
const kinds = [
  { key: 'none', title: 'No projection: scores = X Xᵀ', what: 'the scores without projection', asks: ['qkv04-exercise-1'] },
  { key: 'separate', title: 'Separate projections: scores = (X W_q)(X W_k)ᵀ', what: 'the scores with separate projections', asks: ['qkv04-quiz-3'], pinned: true },
  { key: 'tied', title: 'Tied projections: scores = (X W_q)(X W_q)ᵀ', what: 'the scores with tied projections', asks: ['qkv04-exercise-3', 'qkv04-quiz-4'] },
] as const;

function hiddenText(text: string): HTMLElement {
  return h('span', { class: 'visually-hidden' }, text);
}

// One score matrix, or its top-left corner: the row maximum is marked with ▲ and bold text, the own-token
// cell with a dotted outline and ◆; both also in words for screen readers.
function scoreTable(key: string, title: string, summary: KindSummaryView, result: SelfScoreSummaryView): HTMLElement {
  const shape = result.complete
    ? `shape [${result.tokens},${result.tokens}]`
    : `the first ${result.shown} of ${result.tokens} rows and columns`;
  // The caption is read by screen readers; the same words show above the scrolling box, so that a narrow
  // screen never cuts them off.
  const table = h('table', { class: 'matrix scores heatmap', 'data-scores': key }, h('caption', { class: 'visually-hidden' }, `${title}, ${shape}`));
  const head = h('tr', {}, h('th', { scope: 'col' }, 'query token'));
  for (let c = 0; c < result.shown; c++) head.append(h('th', { scope: 'col' }, `key ${c}`));
  table.append(h('thead', {}, head));
  const body = h('tbody');
  let cell = 0;
  for (let r = 0; r < result.shown; r++) {
    const row = h('tr', {}, h('th', { scope: 'row' }, `${r}`));
    for (let c = 0; c < result.shown; c++) {
      const isMax = summary.argmax[r] === c;
      const isOwn = r === c;
      // One tab stop per table (a roving tabindex); the arrow keys move between scores.
      const td = h('td', { class: `${isMax ? 'row-max' : ''} ${isOwn ? 'own' : ''}`.trim(), 'data-heat': `${summary.heat[cell]}`, 'data-query': `${r}`, 'data-key': `${c}`, tabindex: cell === 0 ? '0' : '-1' });
      td.title = summary.scores.text[cell];
      td.append(h('bdi', { dir: 'ltr' }, summary.scores.rounded[cell++]));
      if (isMax) td.append(h('span', { 'aria-hidden': 'true' }, ' ▲'), hiddenText(' (row maximum)'));
      if (isOwn) td.append(h('span', { 'aria-hidden': 'true' }, ' ◆'), hiddenText(' (own token)'));
      row.append(td);
    }
    body.append(row);
  }
  table.append(body);
  // A tap or a focus shows a score's full value (a title shows only on hover).
  const full = h('p', { class: 'note full-value', 'aria-live': 'polite' });
  const showFull = (event: Event) => {
    const td = (event.target as HTMLElement).closest('td');
    if (td?.title) full.textContent = `${title}, query token ${td.dataset.query} with key ${td.dataset.key}, full value: ${td.title}`;
  };
  table.addEventListener('click', showFull);
  table.addEventListener('focusin', showFull);
  table.addEventListener('keydown', (event) => {
    if (!(event.target instanceof HTMLElement) || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const target = arrowTarget(event.target, event.key);
    if (!target) return;
    event.preventDefault();
    focusCell(target);
  });
  return h(
    'div',
    { class: 'score-block' },
    h('p', { class: 'table-title', 'aria-hidden': 'true' }, `${title}, ${shape}`),
    h('div', { class: 'scroller', role: 'region', 'aria-label': title, tabindex: '0' }, table),
    full,
  );
}

// What ▲, ◆, the dotted outline and the colours mean, shown once above the tables.
function scoreLegend(): HTMLElement {
  return h(
    'p',
    { class: 'score-legend' },
    h('span', { class: 'legend-max' }, '▲ bold: the row’s maximum'),
    ' · ',
    h('span', { class: 'legend-own' }, '◆ dotted outline: the token’s score with itself'),
    ' · ',
    h('span', { class: 'legend-heat' }, h('span', { class: 'swatch', 'data-heat': '-4' }), ' negative … ', h('span', { class: 'swatch', 'data-heat': '4' }), ' positive (relative to the largest score shown); tap a score for its full value'),
  );
}

// What a kind's scores show besides the table: every row maximum when the table is complete, else the
// first rows that peak elsewhere.
function kindFacts(key: string, summary: KindSummaryView, result: SelfScoreSummaryView): HTMLElement {
  const facts = h('dl', { class: 'facts' });
  if (result.complete) facts.append(h('dt', {}, 'Row maxima (argmax)'), h('dd', {}, h('bdi', { dir: 'ltr' }, `[${summary.argmax.join(', ')}]`)));
  facts.append(
    h('dt', {}, 'Rows peaking on their own token'),
    h('dd', {}, result.complete ? `${summary.diagonal_count} of ${result.tokens}: ${summary.diagonal_rows_text}` : `${summary.diagonal_count} of ${result.tokens}`),
  );
  if (!result.complete) {
    const elsewhere = summary.off_diagonal.map((row) => `row ${row.row} peaks at token ${row.argmax} (${row.peak}; its own score ${row.own})`);
    const shown = summary.off_diagonal.length === summary.off_diagonal_count ? '' : `, the first ${summary.off_diagonal.length}`;
    facts.append(
      h('dt', {}, `Rows peaking elsewhere: ${summary.off_diagonal_count}${shown}`),
      h('dd', { 'data-off-diagonal': key }, summary.off_diagonal.length === 0 ? 'none' : h('bdi', { dir: 'ltr' }, elsewhere.join('; '))),
    );
  }
  facts.append(
    h('dt', {}, 'Rows guaranteed by Cauchy–Schwarz'),
    h('dd', {}, key === 'separate' ? 'none: W_q and W_k differ, so there is no guarantee' : `${summary.guaranteed_rows_text} (at least as long as every other row, and equal to none)`),
  );
  return facts;
}

// The core sends the summary with every experiment it accepts.
function summaryOf(response: { result?: SelfScoreSummaryView }): SelfScoreSummaryView {
  if (!response.result) throw new Error('the lesson’s engine accepted the experiment but sent no summary of it');
  return response.result;
}

function numpyCode(r: SelfScoreSummaryView): string {
  return [
    'import numpy as np',
    `np.random.seed(${r.seed})`,
    `X = np.random.randn(${r.tokens}, ${r.dim})`,
    `Wq = np.random.randn(${r.dim}, ${r.dim})`,
    `Wk = np.random.randn(${r.dim}, ${r.dim})`,
    'scores = {"none": X @ X.T, "separate": (X @ Wq) @ (X @ Wk).T, "tied": (X @ Wq) @ (X @ Wq).T}',
    'for name, s in scores.items():',
    '    print(name, np.round(s, 2), np.argmax(s, axis=1), sep="\\n")',
    'print("row norms", np.linalg.norm(X, axis=1))',
  ].join('\n');
}

export interface SelfScoreSectionView {
  element: HTMLElement;
  // The lesson joined the page (again): the experiment is computed once the browser is idle, unless shown.
  connect(): void;
  // The lesson left the page: nothing is scheduled, and no worker stays behind.
  release(): void;
  // Optional reading: the Cauchy–Schwarz drills and the experiment in numpy. The lesson puts it in its optional
  // part when that is shown, else at the end of this section.
  further: HTMLElement;
  // Its questions, for saved progress, and the free-text challenge with its model answer.
  exercises: ReadonlyMap<string, ExerciseHandle>;
  challenge: { text: HTMLTextAreaElement; modelAnswer: HTMLDetailsElement; question: string };
}

// The section edits the experiment's settings; their owner (the lesson's controller) keeps them, and grades
// and lists the questions against them.
export interface SelfScoreSectionOptions extends ExerciseOptions {
  views: ExerciseView[]; // its questions (qkv04-…), as listed for the settings it starts from
  settings(): SelfScoreRequest; // the settings accepted last (where it starts: the link's, or the default)
  // The worker accepted new settings and computed these facts about them: the owner keeps both, and lists
  // the questions again for them.
  accept(request: SelfScoreRequest, facts: ExperimentFacts): ExerciseView[];
}

// The controls, results and exercises; every number is typed text that the core reads.
export function buildSelfScoreSection(core: QkvCore, options: SelfScoreSectionOptions): SelfScoreSectionView {
  const { idPrefix } = options;
  const initial = options.settings();
  const id = (name: string) => `${idPrefix}-sb-${name}`;
  const field = (name: 'seed' | 'tokens' | 'dim', label: string) => {
    const input = h('input', { id: id(name), type: 'text', inputmode: 'numeric', autocomplete: 'off', value: initial[name], 'aria-describedby': id('error') });
    return { input, field: h('p', { class: 'size' }, h('label', { for: id(name) }, label), input) };
  };
  const seed = field('seed', 'Seed (0 to 4,294,967,295)');
  const tokens = field('tokens', 'Tokens T (1 to 512)');
  const dim = field('dim', 'Width d (1 to 512)');
  const inputs: Record<string, HTMLInputElement> = { seed: seed.input, tokens: tokens.input, dim: dim.input };
  const error = h('p', { class: 'field-error', id: id('error'), hidden: true });
  const results = h('div', { class: 'self-score-results', 'aria-live': 'polite' });
  const search = h('button', { type: 'button' }, 'Find the next seed where some row of X Xᵀ does not peak on its own token');
  const searchTied = h('button', { type: 'button' }, 'Find the next one for tied projections');
  const searchResult = h('p', { role: 'status' });
  // Shown while the worker computes for more than a moment: what it is doing, how far it got, and Cancel.
  const busyText = h('span', {});
  const meter = h('progress', {});
  const cancel = h('button', { type: 'button' }, 'Cancel');
  const busy = h('div', { class: 'self-score-busy', role: 'status', hidden: true }, busyText, ' ', meter, ' ', cancel);
  const request = (): SelfScoreRequest => ({ seed: seed.input.value, tokens: tokens.input.value, dim: dim.input.value });
  const runner = createSelfScoreRunner(core);
  let busyTimer: ReturnType<typeof setTimeout> | undefined;
  let element: HTMLElement;
  // The module's experiment is small (5 × 8): computed on this thread, once, when first drawn.
  let pinnedResult: SelfScoreSummaryView | undefined;
  const moduleResult = (): SelfScoreSummaryView => {
    if (!pinnedResult) {
      const computed = core.selfScoreSummary(moduleSettings);
      if (!computed.ok) throw new Error(`the module's experiment failed: ${computed.error.message}`);
      pinnedResult = summaryOf(computed);
    }
    return pinnedResult;
  };

  // Marks the section busy at once (tests and assistive technology can tell), and shows the message with
  // progress and Cancel if the work is still going after 100 ms.
  const startBusy = (kind: 'summary' | 'search', text: string, max?: string) => {
    element.dataset.busy = kind;
    busyText.textContent = text;
    if (max === undefined) meter.removeAttribute('value');
    else {
      meter.setAttribute('max', max);
      meter.setAttribute('value', '0');
    }
    clearTimeout(busyTimer);
    busyTimer = setTimeout(() => (busy.hidden = false), 100);
  };
  const endBusy = () => {
    delete element.dataset.busy;
    clearTimeout(busyTimer);
    busy.hidden = true;
  };

  // The experiment's results: a line naming the settings, then each kind's table and facts in its fold,
  // then the lengths and the numpy code. The folds stay open or closed across recomputations.
  const kindBodies = new Map(kinds.map(({ key }) => [key, h('div', { class: 'self-score-kind' })]));
  const details = h('div', { class: 'self-score-details' });
  const numpy = h('div', { class: 'self-score-numpy' });
  // Drawn in the idle moment after the worker's answer, whose task takes the facts for the exercises: together
  // they made a frame of over 50 ms on a slow phone. data-shown (the settings shown) is set once all is drawn, and
  // then `drawn` runs (a search's status), unless newer results replaced these first.
  let cancelDrawing: (() => void) | undefined;
  const render = (result: SelfScoreSummaryView, drawn?: () => void) => {
    error.hidden = true;
    for (const input of Object.values(inputs)) input.removeAttribute('aria-invalid');
    cancelDrawing?.();
    cancelDrawing = whenIdleNext(() => {
      cancelDrawing = undefined;
      draw(result);
      drawn?.();
    });
  };
  const draw = (result: SelfScoreSummaryView) => {
    const lengths = result.complete ? '' : ` (the first ${result.shown} of ${result.tokens})`;
    results.replaceChildren(
      h('p', {}, `Seed ${result.seed}, ${result.tokens} tokens of width ${result.dim}.`),
      ...(result.complete
        ? []
        : [h('p', { class: 'note' }, `Above 16 tokens the tables show the first ${result.shown} rows and columns of the ${result.tokens} × ${result.tokens} scores; the counts and rows listed under each are over all of them.`)]),
      scoreLegend(),
    );
    for (const kind of kinds) {
      const shown = 'pinned' in kind ? moduleResult() : result;
      const title = 'pinned' in kind ? `${kind.title} at the numpy module’s seed ${shown.seed}, ${shown.tokens} tokens, width ${shown.dim} (not the settings above)` : kind.title;
      const summary = shown[kind.key];
      kindBodies.get(kind.key)!.replaceChildren(h('section', { class: 'card', 'data-kind': kind.key }, scoreTable(kind.key, title, summary, shown), kindFacts(kind.key, summary, shown)));
    }
    details.replaceChildren(
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, `Lengths |x_i| of the rows of X${lengths}`),
        h('dd', {}, h('bdi', { dir: 'ltr' }, result.norms.rounded.join(', '))),
        h('dt', {}, `Lengths |x_i W_q|${lengths}`),
        h('dd', {}, h('bdi', { dir: 'ltr' }, result.projected_norms.rounded.join(', '))),
      ),
      h('p', { class: 'note' }, 'Scores and lengths are shown to two decimals; row maxima and guarantees are decided on the full values.'),
    );
    numpy.replaceChildren(
      h('p', {}, `The self-score experiment at seed ${result.seed}, ${result.tokens} tokens of width ${result.dim}, in numpy: its random draws are the ones in the experiment’s tables, bit for bit; its scores agree to the last digit or two only, because numpy adds the products in another order.`),
      h('pre', { class: 'code' }, h('code', {}, numpyCode(result))),
    );
    results.dataset.shown = `${result.seed} ${result.tokens} ${result.dim}`;
  };
  const reject = (problem: CoreError) => {
    error.hidden = false;
    error.textContent = `Rejected: ${problem.message}. The tables still show the last accepted settings.`;
    inputs[problem.field]?.setAttribute('aria-invalid', 'true');
  };

  // The exercises follow the settings: their answers and explanations are the core's for this seed. The
  // core grades them from the facts the worker computed, so the page's thread never recomputes the
  // experiment (until they arrive, the two exercises about a large experiment say it is being computed).
  const handles = new Map<string, ExerciseHandle>();
  const forms = new Map<string, HTMLFormElement>();
  for (const view of options.views) {
    const handle = renderExercise(view, options);
    handles.set(view.id, handle);
    forms.set(view.id, handle.form);
  }
  const challengeQuestion =
    'A researcher ties W_q = W_k to save parameters. In two or three sentences: what behaviour does the constraint favour, and is it a reasonable simplification?';
  const challengeText = h('textarea', { id: `${idPrefix}-challenge`, rows: '4', 'data-challenge': '' });
  const challengeModel = h(
    'details',
    {},
    h('summary', {}, 'A model answer'),
    h(
      'p',
      {},
      'Tied scores x_i W·x_j W form a symmetric matrix (i scores j exactly as j scores i) whose diagonal holds the squared lengths of the projected tokens, so a token whose projection is longer than every other is sure to score itself highest. Tasks that need asymmetric lookups (a pronoun fetching its antecedent) pay for that constraint; copy-like tasks may not.',
    ),
  );
  // Each kind's questions, then its folded scores; the questions no table answers come after them.
  const foldedIds = new Set<string>(kinds.flatMap(({ asks }) => [...asks]));
  const askedForms = kinds.flatMap(({ key, what, asks }) => [...asks.map((exerciseId) => forms.get(exerciseId)), fold([...asks], what, kindBodies.get(key)!)]);
  // The Cauchy–Schwarz drills are optional reading (issue 38, a shorter main path).
  const drillIds = new Set(['qkv04-exercise-2', 'qkv04-quiz-6']);
  const drills = [...forms].filter(([exerciseId]) => drillIds.has(exerciseId)).map(([, form]) => form);
  const otherForms = [...forms].filter(([exerciseId]) => !foldedIds.has(exerciseId) && !drillIds.has(exerciseId)).map(([, form]) => form);
  const further = part(h('h4', {}, 'Cauchy–Schwarz, applied, and the experiment in numpy'), h('div', { class: 'self-score-quiz' }, ...drills), numpy);

  // Every edit asks the worker again; a newer edit (or Cancel) stops the computation before it.
  const compute = async (drawn?: () => void) => {
    const asked = request();
    startBusy('summary', `Computing the experiment for seed ${asked.seed}, ${asked.tokens} tokens of width ${asked.dim}…`);
    const outcome = await runner.summary(asked);
    results.dataset.ranIn = runner.ranIn() ?? '';
    if (!outcome.done) {
      if (outcome.reason === 'superseded') return;
      endBusy();
      if (outcome.reason === 'cancelled') searchResult.textContent = 'Cancelled. The tables still show the last accepted settings.';
      else searchResult.textContent = `The computation failed: ${outcome.message ?? 'unknown error'}.`;
      return;
    }
    endBusy();
    const computed = outcome.response;
    if (!computed.ok) return reject(computed.error);
    const result = summaryOf(computed);
    render(result, drawn);
    for (const view of options.accept(asked, result.facts)) handles.get(view.id)?.update(view);
  };
  for (const input of Object.values(inputs)) input.addEventListener('input', () => void compute());
  cancel.addEventListener('click', () => runner.cancel());

  // Each search starts after the current seed (wrapping), so pressing again finds the next one. The core
  // refuses a search whose work would exceed its budget, naming the limit.
  const count = '1000'; // seeds one search tries (the core's CounterexampleSearch default)
  const searchFor = async (kind: 'none' | 'tied') => {
    const from = options.settings();
    searchResult.textContent = '';
    startBusy('search', `Searching the ${count} seeds after seed ${from.seed}: `, count);
    const outcome = await runner.search({ kind, after: from.seed, count, tokens: from.tokens, dim: from.dim }, (tried) => {
      busyText.textContent = `Searching the ${count} seeds after seed ${from.seed}: ${tried} tried `;
      meter.value = tried;
    });
    searchResult.dataset.ranIn = runner.ranIn() ?? '';
    if (!outcome.done) {
      if (outcome.reason === 'superseded') return;
      endBusy();
      searchResult.textContent = outcome.reason === 'cancelled' ? `Search cancelled; the seed is still ${from.seed}.` : `The search failed: ${outcome.message ?? 'unknown error'}.`;
      return;
    }
    endBusy();
    const found = outcome.response;
    if (!found.ok) {
      searchResult.textContent = `Not searched: ${found.error.message}.`;
      return;
    }
    if (!found.found) {
      searchResult.textContent = `No such seed among the ${count} after seed ${from.seed} for these sizes.`;
      return;
    }
    seed.input.value = `${found.seed}`;
    // The status names a row of the table: it is written once that table is drawn.
    await compute(() => {
      searchResult.textContent =
        kind === 'none'
          ? `Seed ${found.seed}: row ${found.row} of X Xᵀ peaks at token ${found.argmax}, not on itself. Its vector is not at least as long as every other, so Cauchy–Schwarz promised nothing.`
          : `Seed ${found.seed}: row ${found.row} of the tied scores peaks at token ${found.argmax}, not on itself. Its projected vector is not at least as long as every other, so tying promised nothing for it.`;
    });
  };
  search.addEventListener('click', () => void searchFor('none'));
  searchTied.addEventListener('click', () => void searchFor('tied'));

  element = h(
    'section',
    { class: 'self-score', 'aria-labelledby': id('title') },
    // Parts (laid-out.ts): the section whole took one frame of over 50 ms on a slow phone.
    part(
      h('h3', { id: id('title') }, 'Why separate query and key projections? The self-score experiment'),
      h(
        'p',
        {},
        'Without projections a token’s query and key are the same vector x, and its own score is x·x = |x|². By the Cauchy–Schwarz inequality x·y ≤ |x| |y|, with equality only when y is a non-negative multiple of x (or one of them is zero): a token is sure to peak on itself when its vector is at least as long as every other token’s and equal to none. Other tokens may or may not.',
      ),
      h(
        'p',
        {},
        'With tied weights (W_q = W_k = W) the scores are x_i W · x_j W: token i scores j exactly as j scores i. Separate W_q and W_k give scores that need not be symmetric.',
      ),
    ),
    part(
      h('fieldset', { class: 'sizes' }, h('legend', {}, `The experiment (the numpy module used seed ${moduleSettings.seed}, ${moduleSettings.tokens} tokens, width ${moduleSettings.dim})`), seed.field, tokens.field, dim.field),
      error,
      busy,
      results,
    ),
    part(
      h('div', { class: 'self-score-quiz' }, h('h4', {}, 'Predict, then look'), ...askedForms),
      details,
      h('p', {}, 'Look for a seed where the guarantee is not there:'),
      h('p', { class: 'searches' }, search, ' ', searchTied),
      searchResult,
    ),
    part(
      h(
        'div',
        { class: 'self-score-quiz' },
        h('h4', {}, 'Quiz and challenge'),
        ...otherForms,
        h(
          'section',
          { class: 'card' },
          h('h5', {}, 'Independent challenge'),
          h('p', {}, challengeQuestion),
          h('label', { for: `${idPrefix}-challenge` }, 'Your answer'),
          challengeText,
          challengeModel,
        ),
      ),
    ),
  );
  // Below the fold: compute when the browser is idle after the lesson is ready, not before, or 2 s after at the
  // latest (whenIdle).
  let cancelIdle: (() => void) | undefined;
  return {
    element,
    further,
    exercises: handles,
    challenge: { text: challengeText, modelAnswer: challengeModel, question: challengeQuestion },
    connect() {
      if (cancelIdle || results.dataset.shown !== undefined) return;
      cancelIdle = whenIdle(() => {
        cancelIdle = undefined;
        void compute();
      });
    },
    release() {
      cancelIdle?.();
      cancelIdle = undefined;
      endBusy();
      runner.release();
    },
  };
}
