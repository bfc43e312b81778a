// "Why three projections": the numpy module's self-score experiment, recomputed by the C++ core with a
// generator bit-identical to numpy's legacy np.random. The page states only what the mathematics and the
// computation show.
import { h } from './dom';
import { renderExercise, type AnswerRecord, type ExerciseHandle, type Reveal } from './exercises';
import type { CoreError, QkvCore, ScoreSummary, SelfBiasResult, SelfScoreRequest } from './types';

const kinds = [
  { key: 'none', title: 'No projection: scores = X Xᵀ' },
  { key: 'separate', title: 'Separate projections: scores = (X W_q)(X W_k)ᵀ' },
  { key: 'tied', title: 'Tied projections: scores = (X W_q)(X W_q)ᵀ' },
] as const;

function hiddenText(text: string): HTMLElement {
  return h('span', { class: 'visually-hidden' }, text);
}

function list(rows: number[]): string {
  return rows.length === 0 ? 'none' : rows.map((row) => `${row}`).join(', ');
}

// One score matrix: the row maximum is marked with ▲ and bold text, the own-token cell with a dotted
// outline and ◆; both also in words for screen readers.
function scoreTable(key: string, title: string, summary: ScoreSummary, tokens: number): HTMLElement {
  const table = h('table', { class: 'matrix scores', 'data-scores': key }, h('caption', {}, `${title}, shape [${tokens},${tokens}]`));
  const head = h('tr', {}, h('th', { scope: 'col' }, 'query token'));
  for (let c = 0; c < tokens; c++) head.append(h('th', { scope: 'col' }, `key ${c}`));
  table.append(h('thead', {}, head));
  const body = h('tbody');
  let cell = 0;
  for (let r = 0; r < tokens; r++) {
    const row = h('tr', {}, h('th', { scope: 'row' }, `${r}`));
    for (let c = 0; c < tokens; c++) {
      const isMax = summary.argmax[r] === c;
      const isOwn = r === c;
      const td = h('td', { class: `${isMax ? 'row-max' : ''} ${isOwn ? 'own' : ''}`.trim() });
      td.title = summary.scores.text[cell];
      td.append(h('bdi', { dir: 'ltr' }, summary.scores.rounded[cell++]));
      if (isMax) td.append(h('span', { 'aria-hidden': 'true' }, ' ▲'), hiddenText(' (row maximum)'));
      if (isOwn) td.append(h('span', { 'aria-hidden': 'true' }, ' ◆'), hiddenText(' (own token)'));
      row.append(td);
    }
    body.append(row);
  }
  table.append(body);
  return h('div', { class: 'scroller', role: 'region', 'aria-label': title, tabindex: '0' }, table);
}

function numpyCode(r: SelfBiasResult): string {
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

export interface SelfBiasView {
  element: HTMLElement;
}

// The controls, results and exercises; every number is typed text that the core reads.
export function buildSelfBias(
  core: QkvCore,
  idPrefix: string,
  initial: SelfScoreRequest,
  reveal: () => Reveal,
  onAnswer: (record: AnswerRecord, replayed: boolean) => void,
  onSettings: (request: SelfScoreRequest) => void,
): SelfBiasView {
  const id = (name: string) => `${idPrefix}-sb-${name}`;
  const field = (name: keyof SelfScoreRequest, label: string) => {
    const input = h('input', { id: id(name), type: 'text', inputmode: 'numeric', autocomplete: 'off', value: initial[name], 'aria-describedby': id('error') });
    return { input, field: h('p', { class: 'size' }, h('label', { for: id(name) }, label), input) };
  };
  const seed = field('seed', 'Seed (0 to 4294967295)');
  const tokens = field('tokens', 'Tokens n (1 to 512)');
  const dim = field('dim', 'Width d (1 to 512)');
  const inputs: Record<string, HTMLInputElement> = { seed: seed.input, tokens: tokens.input, dim: dim.input };
  const error = h('p', { class: 'field-error', id: id('error'), hidden: true });
  const results = h('div', { class: 'self-bias-results', 'aria-live': 'polite' });
  const search = h('button', { type: 'button' }, 'Find the next seed where some row of X Xᵀ does not peak on its own token');
  const searchTied = h('button', { type: 'button' }, 'Find the next one for tied projections');
  const searchResult = h('p', { role: 'status' });
  const request = (): SelfScoreRequest => ({ seed: seed.input.value, tokens: tokens.input.value, dim: dim.input.value });
  let accepted: SelfScoreRequest = initial;

  const render = (result: SelfBiasResult) => {
    error.hidden = true;
    for (const input of Object.values(inputs)) input.removeAttribute('aria-invalid');
    results.replaceChildren(
      h(
        'p',
        {},
        `Seed ${result.seed}, ${result.tokens} tokens of width ${result.dim}. Rows of the score matrix peaking on their own token: `,
        h('strong', {}, `${result.none.diagonal_rows.length} of ${result.tokens}`),
        ' without projection, ',
        h('strong', {}, `${result.separate.diagonal_rows.length} of ${result.tokens}`),
        ' with separate projections, ',
        h('strong', {}, `${result.tied.diagonal_rows.length} of ${result.tokens}`),
        ' with tied projections.',
      ),
      ...kinds.map(({ key, title }) => {
        const summary = result[key];
        return h(
          'section',
          { class: 'card', 'data-kind': key },
          scoreTable(key, title, summary, result.tokens),
          h(
            'dl',
            { class: 'facts' },
            h('dt', {}, 'Row maxima (argmax)'),
            h('dd', {}, h('bdi', { dir: 'ltr' }, `[${summary.argmax.join(', ')}]`)),
            h('dt', {}, 'Rows peaking on their own token'),
            h('dd', {}, `${summary.diagonal_rows.length} of ${result.tokens}: ${list(summary.diagonal_rows)}`),
            h('dt', {}, 'Rows guaranteed by Cauchy–Schwarz'),
            h('dd', {}, key === 'separate' ? 'none: W_q and W_k differ, so there is no guarantee' : `${list(summary.guaranteed_rows)} (at least as long as every other row, and equal to none)`),
          ),
        );
      }),
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, 'Lengths |x_i| of the rows of X'),
        h('dd', {}, h('bdi', { dir: 'ltr' }, result.norms.rounded.join(', '))),
        h('dt', {}, 'Lengths |x_i W_q|'),
        h('dd', {}, h('bdi', { dir: 'ltr' }, result.projected_norms.rounded.join(', '))),
      ),
      h('p', { class: 'note' }, 'Scores and lengths are shown to two decimals; hover a score for its full value. Row maxima and guarantees are decided on the full values.'),
      h('p', {}, 'The same experiment in numpy. Its random draws are the ones above, bit for bit; its scores agree to the last digit or two only, because numpy adds the products in another order.'),
      h('pre', { class: 'code' }, h('code', {}, numpyCode(result))),
    );
  };
  const reject = (problem: CoreError) => {
    error.hidden = false;
    error.textContent = `Rejected: ${problem.message}. The tables still show the last accepted settings.`;
    inputs[problem.field]?.setAttribute('aria-invalid', 'true');
  };

  // The exercises follow the settings: their answers and explanations are the core's for this seed.
  const handles = new Map<string, ExerciseHandle>();
  const check = (exerciseId: string, responses: string[]) => core.checkAnswer({ id: exerciseId, responses, self_score: accepted });
  const listed = core.exercises(initial);
  const quizForms = listed.ok
    ? listed.exercises
        .filter((view) => view.id.startsWith('qkv04-'))
        .map((view) => {
          const handle = renderExercise(view, { idPrefix, number: 0, check, reveal, onAnswer });
          handles.set(view.id, handle);
          return handle.form;
        })
    : [];

  const compute = () => {
    const asked = request();
    const computed = core.selfScore(asked);
    if (!computed.ok) return reject(computed.error);
    accepted = asked;
    render(computed.result);
    onSettings(asked);
    const fresh = core.exercises(asked);
    if (fresh.ok) for (const view of fresh.exercises) handles.get(view.id)?.update(view);
  };
  for (const input of Object.values(inputs)) input.addEventListener('input', compute);
  // Each search starts after the current seed (wrapping), so pressing again finds the next one.
  const searchFor = (kind: 'none' | 'tied') => {
    const found = core.findSeed({ kind, after: accepted.seed, count: '1000', tokens: accepted.tokens, dim: accepted.dim });
    if (!found.ok) return reject(found.error);
    if (!found.found) {
      searchResult.textContent = `No such seed among the 1000 after seed ${accepted.seed} for these sizes.`;
      return;
    }
    seed.input.value = `${found.seed}`;
    compute();
    searchResult.textContent =
      kind === 'none'
        ? `Seed ${found.seed}: row ${found.row} of X Xᵀ peaks at token ${found.argmax}, not on itself. Its vector is not at least as long as every other, so Cauchy–Schwarz promised nothing.`
        : `Seed ${found.seed}: row ${found.row} of the tied scores peaks at token ${found.argmax}, not on itself. Its projected vector is not at least as long as every other, so tying promised nothing for it.`;
  };
  search.addEventListener('click', () => searchFor('none'));
  searchTied.addEventListener('click', () => searchFor('tied'));

  const element = h(
    'section',
    { class: 'self-bias', 'aria-labelledby': id('title') },
    h('h3', { id: id('title') }, 'Why separate query and key projections? The self-score experiment'),
    h(
      'p',
      {},
      'Score every token against every other with a dot product. Without projections the query and the key of a token are the same vector x, and its own score is x·x = |x|². The Cauchy–Schwarz inequality says x·y ≤ |x| |y| for any y, with equality only when y is a non-negative multiple of x (or one of them is zero). So x·x ≥ x·y is guaranteed when |y| ≤ |x|, not for every y: a token is sure to peak on itself when its vector is at least as long as every other token’s and no other token equals it. Other tokens may or may not peak on themselves.',
    ),
    h(
      'p',
      {},
      'With tied weights (W_q = W_k = W) the scores are x_i W · x_j W: a symmetric (Gram) matrix whose diagonal holds the squared lengths of the projected tokens, so the same conditional bias returns and token i scores j exactly as j scores i. Separate W_q and W_k break both: the scores need not be symmetric, and no row is promised its own token.',
    ),
    h('fieldset', { class: 'sizes' }, h('legend', {}, 'The experiment (the numpy module used seed 1, 5 tokens, width 8)'), seed.field, tokens.field, dim.field),
    error,
    h('p', { class: 'searches' }, search, ' ', searchTied),
    searchResult,
    results,
    h(
      'div',
      { class: 'self-bias-quiz' },
      h('h4', {}, 'Exercises and quiz'),
      ...quizForms,
      h(
        'section',
        { class: 'card' },
      h('h5', {}, 'Independent challenge'),
      h('p', {}, 'A researcher ties W_q = W_k to save parameters. In two or three sentences: what behaviour does the constraint favour, and is it a reasonable simplification?'),
      h('label', { for: `${idPrefix}-challenge` }, 'Your answer'),
      h('textarea', { id: `${idPrefix}-challenge`, rows: '4' }),
      h(
        'details',
        {},
        h('summary', {}, 'A model answer'),
        h(
          'p',
          {},
          'Tied scores are x_i W·x_j W, a symmetric matrix whose diagonal holds the squared lengths of the projected tokens. A token whose projection is longer than every other is sure to score itself highest, and the scores are symmetric: i scores j exactly as j scores i. Tasks that need asymmetric, cross-token lookups (a pronoun fetching its antecedent) pay for that constraint; copy-like tasks may not.',
        ),
      ),
    ),
    ),
  );
  // Below the fold: compute when the browser is idle after the lesson is ready, not before.
  const idle = window.requestIdleCallback ?? ((callback: () => void) => setTimeout(callback, 50));
  idle(() => compute());
  return { element };
}
