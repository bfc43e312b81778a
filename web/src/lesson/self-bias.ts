// "Why three projections": the numpy module's self-score experiment, recomputed by the C++ core with a
// generator bit-identical to numpy's legacy np.random. The page states only what the mathematics and the
// computation show.
import { h } from './dom';
import { renderExercise, type ExerciseSpec, type Reveal } from './exercises';
import type { CoreError, ExerciseCheck, ScoreSummary, SelfBiasCore, SelfBiasResult } from './types';

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
  render(result: SelfBiasResult): void;
  reject(error: CoreError): void;
}

// The controls and results; `compute` runs the core for the typed seed, tokens and width.
export function buildSelfBias(
  core: SelfBiasCore,
  idPrefix: string,
  reveal: () => Reveal,
  onAnswer: (id: string, question: string, responses: string[], correct: boolean) => void,
): SelfBiasView {
  const id = (name: string) => `${idPrefix}-sb-${name}`;
  const number = (name: string, label: string, value: string, max: string) => {
    const input = h('input', { id: id(name), type: 'number', min: name === 'seed' ? '0' : '1', max, step: '1', value, 'aria-describedby': id('error') });
    return { input, field: h('p', { class: 'size' }, h('label', { for: id(name) }, label), input) };
  };
  const seed = number('seed', 'Seed', '1', '4294967295');
  const tokens = number('tokens', 'Tokens n', '5', '512');
  const dim = number('dim', 'Width d', '8', '512');
  const error = h('p', { class: 'field-error', id: id('error'), hidden: true });
  const results = h('div', { class: 'self-bias-results', 'aria-live': 'polite' });
  const search = h('button', { type: 'button' }, 'Find a seed where some row of X Xᵀ does not peak on its own token');
  const searchTied = h('button', { type: 'button' }, 'Find one for tied projections');
  const searchResult = h('p', { role: 'status' });

  let current: SelfBiasResult | undefined;
  // The module's own settings, for the quiz (computed when the section is first needed, like the tables).
  let module: ReturnType<SelfBiasCore['selfBias']> | undefined;
  const moduleResult = () => {
    module ??= core.selfBias(1, 5, 8);
    return module.ok ? module.result : undefined;
  };

  const view: SelfBiasView = {
    element: h('div'),
    render(result) {
      current = result;
      error.hidden = true;
      for (const input of [seed.input, tokens.input, dim.input]) input.removeAttribute('aria-invalid');
      results.replaceChildren(
        h(
          'p',
          {},
          `Seed ${result.seed}, ${result.tokens} tokens of width ${result.dim}. Rows of X peaking on their own token: `,
          h('strong', {}, `${result.none.diagonalRows.length} of ${result.tokens}`),
          ' without projection, ',
          h('strong', {}, `${result.separate.diagonalRows.length} of ${result.tokens}`),
          ' with separate projections, ',
          h('strong', {}, `${result.tied.diagonalRows.length} of ${result.tokens}`),
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
              h('dd', {}, `${summary.diagonalRows.length} of ${result.tokens}: ${list(summary.diagonalRows)}`),
              h('dt', {}, 'Rows guaranteed by Cauchy–Schwarz'),
              h('dd', {}, key === 'separate' ? 'none: W_q and W_k differ, so there is no guarantee' : `${list(summary.guaranteedRows)} (longer than every other row)`),
            ),
          );
        }),
        h(
          'dl',
          { class: 'facts' },
          h('dt', {}, 'Lengths |x_i| of the rows of X'),
          h('dd', {}, h('bdi', { dir: 'ltr' }, result.norms.rounded.join(', '))),
          h('dt', {}, 'Lengths |x_i W_q|'),
          h('dd', {}, h('bdi', { dir: 'ltr' }, result.projectedNorms.rounded.join(', '))),
        ),
        h('p', { class: 'note' }, 'Scores and lengths are shown to two decimals; hover a score for its full value. Row maxima and guarantees are decided on the full values.'),
        h('p', {}, 'The same numbers in numpy (legacy np.random, which this page reproduces bit for bit):'),
        h('pre', { class: 'code' }, h('code', {}, numpyCode(result))),
      );
    },
    reject(problem) {
      error.hidden = false;
      error.textContent = `Rejected: ${problem.message}. The tables still show the last accepted settings.`;
      const inputs: Record<string, HTMLInputElement> = { seed: seed.input, tokens: tokens.input, dim: dim.input };
      if (problem.field) inputs[problem.field]?.setAttribute('aria-invalid', 'true');
    },
  };

  // The browser reads the number inputs (valueAsNumber); the core judges them.
  const compute = () => {
    const computed = core.selfBias(seed.input.valueAsNumber, tokens.input.valueAsNumber, dim.input.valueAsNumber);
    if (computed.ok) view.render(computed.result);
    else view.reject(computed.error);
  };
  for (const input of [seed.input, tokens.input, dim.input]) input.addEventListener('input', compute);
  // The search starts at seed 0 and checks up to 1000 seeds with the current sizes, in C++.
  const searchFor = (kind: 'none' | 'tied') => {
    const found = core.findOffDiagonalSeed(kind, 0, 1000, tokens.input.valueAsNumber, dim.input.valueAsNumber);
    if (!found.ok) {
      view.reject(found.error);
      return;
    }
    if (!found.found || found.seed === null) {
      searchResult.textContent = 'No such seed among the first 1000 for these sizes.';
      return;
    }
    seed.input.value = `${found.seed}`;
    compute();
    searchResult.textContent =
      kind === 'none'
        ? `Seed ${found.seed}: row ${found.row} of X Xᵀ peaks at token ${found.argmax}, not on itself. Its vector is not longer than every other, so Cauchy–Schwarz promised nothing.`
        : `Seed ${found.seed}: row ${found.row} of the tied scores peaks at token ${found.argmax}, not on itself. Its projected vector is not longer than every other, so tying promised nothing for it.`;
  };
  search.addEventListener('click', () => searchFor('none'));
  searchTied.addEventListener('click', () => searchFor('tied'));

  const quiz = buildQuiz(moduleResult, () => current, onAnswer, idPrefix, reveal);
  view.element = h(
    'section',
    { class: 'self-bias', 'aria-labelledby': id('title') },
    h('h3', { id: id('title') }, 'Why separate query and key projections? The self-score experiment'),
    h(
      'p',
      {},
      'Score every token against every other with a dot product. Without projections the query and the key of a token are the same vector x, and its own score is x·x = |x|². The Cauchy–Schwarz inequality says x·y ≤ |x| |y| for any y, with equality only when y is a non-negative multiple of x (or one of them is zero). So x·x ≥ x·y is guaranteed when |y| ≤ |x|, not for every y: a token is sure to peak on itself only if its vector is longer than every other token’s. Other tokens may or may not peak on themselves.',
    ),
    h('fieldset', { class: 'sizes' }, h('legend', {}, 'The experiment (the module used seed 1, 5 tokens, width 8)'), seed.field, tokens.field, dim.field),
    error,
    h('p', { class: 'searches' }, search, ' ', searchTied),
    searchResult,
    results,
    quiz,
  );
  // Below the fold: compute when the browser is idle after the lesson is ready, not before.
  const idle = window.requestIdleCallback ?? ((callback: () => void) => setTimeout(callback, 50));
  idle(() => {
    if (!current) compute();
  });
  return view;
}

// An exercise of this section, and how to compute its answer.
type QuizItem = ExerciseSpec & { answer: () => string | undefined };

function buildQuiz(
  moduleResult: () => SelfBiasResult | undefined,
  current: () => SelfBiasResult | undefined,
  onAnswer: (id: string, question: string, responses: string[], correct: boolean) => void,
  idPrefix: string,
  reveal: () => Reveal,
): HTMLElement {
  const items: QuizItem[] = [
    {
      id: 'qkv04-exercise-1',
      question: 'Exercise 1: for the seed and sizes above, does every row of X Xᵀ peak on its own token?',
      choices: [
        { id: 'yes', label: 'Yes' },
        { id: 'no', label: 'No' },
      ],
      answer: () => {
        const r = current();
        return r ? (r.none.diagonalRows.length === r.tokens ? 'yes' : 'no') : undefined;
      },
      why: 'Read the “rows peaking on their own token” line of the first table. Try the search button for a seed where the answer is no.',
    },
    {
      id: 'qkv04-exercise-2',
      question: 'Exercise 2: for which vectors y does x·y equal x·x?',
      choices: [
        { id: 'projection', label: 'Exactly when y·x = |x|², e.g. y = x; among vectors of the same length as x, only y = x.' },
        { id: 'any-longer', label: 'Whenever |y| > |x|.' },
        { id: 'never', label: 'Never: x·x is always strictly larger.' },
      ],
      answer: () => 'projection',
      why: 'x·y = x·x means y − x is orthogonal to x. With |y| = |x|, Cauchy–Schwarz’s equality case leaves only y = x.',
    },
    {
      id: 'qkv04-exercise-3',
      question: 'Exercise 3: with tied weights (W_q = W_k), does every row of the scores above peak on its own token?',
      choices: [
        { id: 'yes', label: 'Yes' },
        { id: 'no', label: 'No' },
      ],
      answer: () => {
        const r = current();
        return r ? (r.tied.diagonalRows.length === r.tokens ? 'yes' : 'no') : undefined;
      },
      why: 'Tying gives back the same conditional guarantee as no projection, now for the projected vectors x W_q: only the longest projected row is sure to peak on itself. At the module’s own seed 1, row 4 of the tied scores peaks elsewhere.',
    },
    {
      id: 'qkv04-quiz-1',
      question: 'Quiz 1: what does Cauchy–Schwarz guarantee about x·x and x·y?',
      choices: [
        { id: 'conditional', label: 'x·y ≤ |x| |y|, so x·x ≥ x·y whenever |y| ≤ |x|.' },
        { id: 'always', label: 'x·x ≥ x·y for every vector y.' },
        { id: 'reverse', label: 'x·x ≤ x·y for every vector y.' },
      ],
      answer: () => 'conditional',
      why: 'The inequality bounds x·y by |x| |y|; that bound is below |x|² only when |y| ≤ |x|.',
    },
    {
      id: 'qkv04-quiz-2',
      question: 'Quiz 2: in the module’s experiment (seed 1, 5 tokens, width 8), how many rows of X Xᵀ peak on their own token?',
      blanks: [{ label: 'Rows', placeholder: 'a whole number' }],
      answer: () => {
        const module = moduleResult();
        return module ? `${module.none.diagonalRows.length}` : undefined;
      },
      why: () => {
        const module = moduleResult();
        return module
          ? `${module.none.diagonalRows.length} of 5 here, but only row ${list(module.none.guaranteedRows)} is guaranteed (it is longer than every other); the others peak on themselves by the luck of the draw.`
          : '';
      },
    },
    {
      id: 'qkv04-quiz-3',
      question: 'Quiz 3: with separate W_q and W_k at the same seed, how many of the 5 rows still peak on their own token?',
      blanks: [{ label: 'Rows', placeholder: 'a whole number' }],
      answer: () => {
        const module = moduleResult();
        return module ? `${module.separate.diagonalRows.length}` : undefined;
      },
      why: () => {
        const module = moduleResult();
        return module ? `Rows ${list(module.separate.diagonalRows)}: the module’s prose says one, but its own printed matrix shows these.` : '';
      },
    },
    {
      id: 'qkv04-quiz-4',
      question: 'Quiz 4: does tying W_q = W_k avoid the self-bias or bring it back?',
      choices: [
        { id: 'conditional', label: 'It brings back the conditional bias: the longest projected row is sure to peak on itself, others are not.' },
        { id: 'every-row', label: 'It forces every row to peak on itself.' },
        { id: 'avoids', label: 'It avoids the bias entirely.' },
      ],
      answer: () => 'conditional',
      why: () => {
        const module = moduleResult();
        return module ? `At seed 1 the tied scores peak on the diagonal in ${module.tied.diagonalRows.length} of 5 rows.` : '';
      },
    },
    {
      id: 'qkv04-quiz-5',
      question: 'Quiz 5: why do values get their own projection W_v instead of reusing the keys?',
      choices: [
        { id: 'roles', label: 'Keys decide how well a position matches; values carry what is retrieved. Separate weights let the two roles specialise.' },
        { id: 'shapes', label: 'Keys and values must have different shapes.' },
        { id: 'bias', label: 'Values need a bias and keys do not.' },
      ],
      answer: () => 'roles',
      why: 'Nothing forces different shapes or biases; the point is that matching and content are different jobs.',
    },
  ];

  // Answers are computed here, from the core's results; the comparison is of texts ("2" with "2").
  const check = (id: string, responses: string[]): ExerciseCheck => {
    const expected = items.find((item) => item.id === id)?.answer();
    if (expected === undefined) return { ok: false, error: { kind: 'exercise', message: 'the experiment has not been computed yet' } };
    return { ok: true, correct: responses[0]?.trim() === expected, expected, problem: '' };
  };
  const forms = items.map(
    (item) =>
      renderExercise(item, {
        idPrefix,
        number: 0,
        check,
        reveal,
        onAnswer: (record) => onAnswer(record.id, item.question, record.responses, record.check.correct),
      }).form,
  );

  return h(
    'div',
    { class: 'self-bias-quiz' },
    h('h4', {}, 'Exercises and quiz'),
    ...forms,
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
  );
}
