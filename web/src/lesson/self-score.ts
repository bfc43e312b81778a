// "Why three projections": the numpy module's self-score experiment, recomputed by the C++ core with a
// generator bit-identical to numpy's legacy np.random. The page states only what the mathematics and the
// computation show. The experiment and the seed searches run in a Web Worker (self-score-runner.ts), with
// progress and Cancel; above 16 tokens the core sends a summary (the 8 × 8 corner, counts, the first rows
// peaking elsewhere) instead of every score.
import type { ExperimentFacts } from './core-api';
import { h, part } from './dom';
import { fold } from './evidence-parts';
import { whenIdle, whenIdleNext } from './idle';
import { renderExercise, type ExerciseHandle, type ExerciseOptions } from './exercises';
import { createSelfScoreRunner, type SelfScoreRunner } from './self-score-runner';
import { kinds, moduleSettings, selfScoreResults, summaryOf, type SelfScoreResults, type SelfScoreSummaryView } from './self-score-results';
import type { CoreError, ExerciseView, QkvCore, SelfScoreRequest } from './types';

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

// The experiment's settings: three typed fields (the core reads them, whatever they hold) and the line that says
// why the core refused them.
function settingsFields(id: (name: string) => string, initial: SelfScoreRequest) {
  const field = (name: 'seed' | 'tokens' | 'dim', label: string) => {
    const input = h('input', { id: id(name), type: 'text', inputmode: 'numeric', autocomplete: 'off', value: initial[name], 'aria-describedby': id('error') });
    return { input, field: h('p', { class: 'size' }, h('label', { for: id(name) }, label), input) };
  };
  const seed = field('seed', 'Seed (0 to 4,294,967,295)');
  const tokens = field('tokens', 'Tokens T (1 to 512)');
  const dim = field('dim', 'Width d (1 to 512)');
  const inputs: Record<string, HTMLInputElement> = { seed: seed.input, tokens: tokens.input, dim: dim.input };
  const error = h('p', { class: 'field-error', id: id('error'), hidden: true });
  return {
    seed: seed.input,
    inputs,
    error,
    fieldset: h('fieldset', { class: 'sizes' }, h('legend', {}, `The experiment (the numpy module used seed ${moduleSettings.seed}, ${moduleSettings.tokens} tokens, width ${moduleSettings.dim})`), seed.field, tokens.field, dim.field),
    request: (): SelfScoreRequest => ({ seed: seed.input.value, tokens: tokens.input.value, dim: dim.input.value }),
    accepted() {
      error.hidden = true;
      for (const input of Object.values(inputs)) input.removeAttribute('aria-invalid');
    },
    reject(problem: CoreError) {
      error.hidden = false;
      error.textContent = `Rejected: ${problem.message}. The tables still show the last accepted settings.`;
      inputs[problem.field]?.setAttribute('aria-invalid', 'true');
    },
  };
}

type BusyIndicator = ReturnType<typeof busyIndicator>;

// Shown while the worker computes for more than a moment: what it is doing, how far it got, and Cancel. The
// section is marked busy at once (tests and assistive technology can tell); the message with progress and Cancel
// shows if the work is still going after 100 ms.
function busyIndicator(section: () => HTMLElement) {
  const text = h('span', {});
  const meter = h('progress', {});
  const cancel = h('button', { type: 'button' }, 'Cancel');
  const element = h('div', { class: 'self-score-busy', role: 'status', hidden: true }, text, ' ', meter, ' ', cancel);
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    element,
    text,
    meter,
    cancel,
    start(kind: 'summary' | 'search', message: string, max?: string) {
      section().dataset.busy = kind;
      text.textContent = message;
      if (max === undefined) meter.removeAttribute('value');
      else {
        meter.setAttribute('max', max);
        meter.setAttribute('value', '0');
      }
      clearTimeout(timer);
      timer = setTimeout(() => (element.hidden = false), 100);
    },
    end() {
      delete section().dataset.busy;
      clearTimeout(timer);
      element.hidden = true;
    },
  };
}

const challengeQuestion =
  'A researcher ties W_q = W_k to save parameters. In two or three sentences: what behaviour does the constraint favour, and is it a reasonable simplification?';

// The independent challenge: a free-text answer and a model answer to compare it with.
function challengeCard(idPrefix: string) {
  const text = h('textarea', { id: `${idPrefix}-challenge`, rows: '4', 'data-challenge': '' });
  const modelAnswer = h(
    'details',
    {},
    h('summary', {}, 'A model answer'),
    h(
      'p',
      {},
      'Tied scores x_i W·x_j W form a symmetric matrix (i scores j exactly as j scores i) whose diagonal holds the squared lengths of the projected tokens, so a token whose projection is longer than every other is sure to score itself highest. Tasks that need asymmetric lookups (a pronoun fetching its antecedent) pay for that constraint; copy-like tasks may not.',
    ),
  );
  const card = h('section', { class: 'card' }, h('h5', {}, 'Independent challenge'), h('p', {}, challengeQuestion), h('label', { for: `${idPrefix}-challenge` }, 'Your answer'), text, modelAnswer);
  return { text, modelAnswer, card };
}

// The section's questions: each kind's questions, then its folded scores; the Cauchy–Schwarz drills (optional
// reading, issue 38: a shorter main path); and the questions no table answers. Their answers and explanations
// follow the settings: the core grades them from the facts the worker computed, so the page's thread never
// recomputes the experiment (until they arrive, the two exercises about a large experiment say it is being computed).
function selfScoreQuestions(options: SelfScoreSectionOptions, kindBodies: SelfScoreResults['kindBodies']) {
  const handles = new Map<string, ExerciseHandle>();
  const forms = new Map<string, HTMLFormElement>();
  for (const view of options.views) {
    const handle = renderExercise(view, options);
    handles.set(view.id, handle);
    forms.set(view.id, handle.form);
  }
  const foldedIds = new Set<string>(kinds.flatMap(({ asks }) => [...asks]));
  const asked = kinds.flatMap(({ key, what, asks }) => [...asks.map((exerciseId) => forms.get(exerciseId)), fold([...asks], what, kindBodies.get(key)!)]);
  const drillIds = new Set(['qkv04-exercise-2', 'qkv04-quiz-6']);
  const drills = [...forms].filter(([exerciseId]) => drillIds.has(exerciseId)).map(([, form]) => form);
  const others = [...forms].filter(([exerciseId]) => !foldedIds.has(exerciseId) && !drillIds.has(exerciseId)).map(([, form]) => form);
  return { handles, asked, drills, others };
}

// What a seed search reads and writes: the settings, the worker, the busy indicator, the status line, and the
// experiment's recomputation (with a status to write once its tables are drawn).
interface SearchContext {
  options: SelfScoreSectionOptions;
  runner: SelfScoreRunner;
  busy: BusyIndicator;
  status: HTMLElement;
  seed: HTMLInputElement;
  compute(drawn?: () => void): Promise<void>;
}

// Each search starts after the current seed (wrapping), so pressing again finds the next one. The core refuses a
// search whose work would exceed its budget, naming the limit.
async function searchSeeds({ options, runner, busy, status, seed, compute }: SearchContext, kind: 'none' | 'tied'): Promise<void> {
  const count = '1000'; // seeds one search tries (the core's CounterexampleSearch default)
  const from = options.settings();
  status.textContent = '';
  busy.start('search', `Searching the ${count} seeds after seed ${from.seed}: `, count);
  const outcome = await runner.search({ kind, after: from.seed, count, tokens: from.tokens, dim: from.dim }, (tried) => {
    busy.text.textContent = `Searching the ${count} seeds after seed ${from.seed}: ${tried} tried `;
    busy.meter.value = tried;
  });
  status.dataset.ranIn = runner.ranIn() ?? '';
  if (!outcome.done) {
    if (outcome.reason === 'superseded') return;
    busy.end();
    status.textContent = outcome.reason === 'cancelled' ? `Search cancelled; the seed is still ${from.seed}.` : `The search failed: ${outcome.message ?? 'unknown error'}.`;
    return;
  }
  busy.end();
  const found = outcome.response;
  if (!found.ok) {
    status.textContent = `Not searched: ${found.error.message}.`;
    return;
  }
  if (!found.found) {
    status.textContent = `No such seed among the ${count} after seed ${from.seed} for these sizes.`;
    return;
  }
  seed.value = `${found.seed}`;
  // The status names a row of the table: it is written once that table is drawn.
  await compute(() => {
    status.textContent =
      kind === 'none'
        ? `Seed ${found.seed}: row ${found.row} of X Xᵀ peaks at token ${found.argmax}, not on itself. Its vector is not at least as long as every other, so Cauchy–Schwarz promised nothing.`
        : `Seed ${found.seed}: row ${found.row} of the tied scores peaks at token ${found.argmax}, not on itself. Its projected vector is not at least as long as every other, so tying promised nothing for it.`;
  });
}

// The section's parts in order: the argument, the settings with the results, the predictions with their folded
// scores and the searches, then the quiz and challenge.
function sectionElement(id: (name: string) => string, parts: { settings: HTMLElement[]; asked: (Node | undefined)[]; details: HTMLElement; searches: HTMLElement[]; others: HTMLElement[]; challenge: HTMLElement }): HTMLElement {
  return h(
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
    part(...parts.settings),
    part(h('div', { class: 'self-score-quiz' }, h('h4', {}, 'Predict, then look'), ...parts.asked), parts.details, h('p', {}, 'Look for a seed where the guarantee is not there:'), ...parts.searches),
    part(h('div', { class: 'self-score-quiz' }, h('h4', {}, 'Quiz and challenge'), ...parts.others, parts.challenge)),
  );
}

// The controls, results and exercises; every number is typed text that the core reads.
export function buildSelfScoreSection(core: QkvCore, options: SelfScoreSectionOptions): SelfScoreSectionView {
  const { idPrefix } = options;
  const id = (name: string) => `${idPrefix}-sb-${name}`;
  const settings = settingsFields(id, options.settings());
  const shown = selfScoreResults(core);
  const search = h('button', { type: 'button' }, 'Find the next seed where some row of X Xᵀ does not peak on its own token');
  const searchTied = h('button', { type: 'button' }, 'Find the next one for tied projections');
  const searchResult = h('p', { role: 'status' });
  const runner = createSelfScoreRunner(core);
  let element: HTMLElement;
  const busy = busyIndicator(() => element);

  // Drawn in the idle moment after the worker's answer, whose task takes the facts for the exercises: together
  // they made a frame of over 50 ms on a slow phone. data-shown (the settings shown) is set once all is drawn, and
  // then `drawn` runs (a search's status), unless newer results replaced these first.
  let cancelDrawing: (() => void) | undefined;
  const render = (result: SelfScoreSummaryView, drawn?: () => void) => {
    settings.accepted();
    cancelDrawing?.();
    cancelDrawing = whenIdleNext(() => {
      cancelDrawing = undefined;
      shown.draw(result);
      drawn?.();
    });
  };
  const questions = selfScoreQuestions(options, shown.kindBodies);
  const challenge = challengeCard(idPrefix);
  const further = part(h('h4', {}, 'Cauchy–Schwarz, applied, and the experiment in numpy'), h('div', { class: 'self-score-quiz' }, ...questions.drills), shown.numpy);

  // Every edit asks the worker again; a newer edit (or Cancel) stops the computation before it.
  const compute = async (drawn?: () => void) => {
    const asked = settings.request();
    busy.start('summary', `Computing the experiment for seed ${asked.seed}, ${asked.tokens} tokens of width ${asked.dim}…`);
    const outcome = await runner.summary(asked);
    shown.results.dataset.ranIn = runner.ranIn() ?? '';
    if (!outcome.done) {
      if (outcome.reason === 'superseded') return;
      busy.end();
      if (outcome.reason === 'cancelled') searchResult.textContent = 'Cancelled. The tables still show the last accepted settings.';
      else searchResult.textContent = `The computation failed: ${outcome.message ?? 'unknown error'}.`;
      return;
    }
    busy.end();
    const computed = outcome.response;
    if (!computed.ok) return settings.reject(computed.error);
    const result = summaryOf(computed);
    render(result, drawn);
    for (const view of options.accept(asked, result.facts)) questions.handles.get(view.id)?.update(view);
  };
  for (const input of Object.values(settings.inputs)) input.addEventListener('input', () => void compute());
  busy.cancel.addEventListener('click', () => runner.cancel());
  const searching: SearchContext = { options, runner, busy, status: searchResult, seed: settings.seed, compute };
  search.addEventListener('click', () => void searchSeeds(searching, 'none'));
  searchTied.addEventListener('click', () => void searchSeeds(searching, 'tied'));

  element = sectionElement(id, {
    settings: [settings.fieldset, settings.error, busy.element, shown.results],
    asked: questions.asked,
    details: shown.details,
    searches: [h('p', { class: 'searches' }, search, ' ', searchTied), searchResult],
    others: questions.others,
    challenge: challenge.card,
  });
  // Below the fold: compute when the browser is idle after the lesson is ready, not before, or 2 s after at the
  // latest (whenIdle).
  let cancelIdle: (() => void) | undefined;
  return {
    element,
    further,
    exercises: questions.handles,
    challenge: { text: challenge.text, modelAnswer: challenge.modelAnswer, question: challengeQuestion },
    connect() {
      if (cancelIdle || shown.results.dataset.shown !== undefined) return;
      cancelIdle = whenIdle(() => {
        cancelIdle = undefined;
        void compute();
      });
    },
    release() {
      cancelIdle?.();
      cancelIdle = undefined;
      busy.end();
      runner.release();
    },
  };
}
