// The self-score experiment's results: a line naming the settings, the legend, each kind's score table and facts
// (in the folds the section places under its questions), the rows' lengths, and the experiment in numpy. Every
// number is the core's text; the tables mark each row's maximum and each token's own score.
import type { KindSummaryView as KindSummary, SelfScoreSummaryView as Summary } from './core-api';
import { h } from './dom';
import { arrowTarget, focusCell } from './tables';
import type { QkvCore, SelfScoreRequest } from './types';

// The worker's summary: its doubles arrive as Float64Arrays (which the page never reads: C++ formatted them).
type KindSummaryView = KindSummary<Float64Array>;
export type SelfScoreSummaryView = Summary<Float64Array>;

// The numpy module's own experiment (the core's kModuleExperiment).
export const moduleSettings: SelfScoreRequest = { seed: '1', tokens: '5', dim: '8' };

// Each kind's scores, folded below the questions they answer (`asks`) until those are checked. The separate
// kind's question is pinned to the module's experiment (the core's facts for another seed carry no separate
// scores to grade it by), so its fold keeps the module's table whatever the settings (`pinned`); the others
// follow the settings, as their questions do.
export const kinds = [
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
export function summaryOf(response: { result?: SelfScoreSummaryView }): SelfScoreSummaryView {
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

export interface SelfScoreResults {
  results: HTMLElement; // the settings' line, the note on large experiments and the legend
  kindBodies: Map<(typeof kinds)[number]['key'], HTMLElement>; // each kind's card, in its fold
  details: HTMLElement; // the rows' lengths
  numpy: HTMLElement; // the experiment in numpy (optional reading)
  draw(result: SelfScoreSummaryView): void;
}

// The results' containers, which stay in place (and their folds open or closed) across recomputations.
export function selfScoreResults(core: QkvCore): SelfScoreResults {
  const results = h('div', { class: 'self-score-results', 'aria-live': 'polite' });
  const kindBodies = new Map(kinds.map(({ key }) => [key, h('div', { class: 'self-score-kind' })]));
  const details = h('div', { class: 'self-score-details' });
  const numpy = h('div', { class: 'self-score-numpy' });
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
  const draw = (result: SelfScoreSummaryView) => {
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
    details.replaceChildren(...lengths(result));
    numpy.replaceChildren(
      h('p', {}, `The self-score experiment at seed ${result.seed}, ${result.tokens} tokens of width ${result.dim}, in numpy: its random draws are the ones in the experiment’s tables, bit for bit; its scores agree to the last digit or two only, because numpy adds the products in another order.`),
      h('pre', { class: 'code' }, h('code', {}, numpyCode(result))),
    );
    results.dataset.shown = `${result.seed} ${result.tokens} ${result.dim}`;
  };
  return { results, kindBodies, details, numpy, draw };
}

// The lengths of X's rows and of their projections, which decide what Cauchy–Schwarz guarantees.
function lengths(result: SelfScoreSummaryView): Node[] {
  const which = result.complete ? '' : ` (the first ${result.shown} of ${result.tokens})`;
  return [
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, `Lengths |x_i| of the rows of X${which}`),
      h('dd', {}, h('bdi', { dir: 'ltr' }, result.norms.rounded.join(', '))),
      h('dt', {}, `Lengths |x_i W_q|${which}`),
      h('dd', {}, h('bdi', { dir: 'ltr' }, result.projected_norms.rounded.join(', '))),
    ),
    h('p', { class: 'note' }, 'Scores and lengths are shown to two decimals; row maxima and guarantees are decided on the full values.'),
  ];
}
