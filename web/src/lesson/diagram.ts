// Chapter 26's diagram: the shared input, three branch cards, what the views are for (the query–key scores
// as a look-ahead), the history contrast, independence, sizes and empty axes; and, as an optional part after
// the main path, reverse mode, the numerical checks, rejected inputs and the implementers' checks. Every
// value shown comes from the evidence object; `renderDiagram` is a function of (evidence, state).
import math from 'virtual:math';
import { renderCounts, renderDivisibility, renderProbes, renderRejections } from './boundary-cards';
import { buildChecksCards, renderBitwise, renderChecks, type ChecksCards } from './checks-cards';
import { h, math as mathSpan, part, partClass, symbols } from './dom';
import { facts, fieldError, fold, ltr, prediction, renderPart, scroller } from './evidence-parts';
import { historyPart, historyTable } from './history';
import { lookAheadSection } from './look-ahead';
import { markProduct, renderScoreFigure } from './score-figure';
import { valuePreviewParts } from './value-preview';
import { arrowTarget, cellIndexOf, editableTable, focusCell, matrixTable, tensorCaption } from './tables';
import { computedKeys } from './types';
import type { ComputedKey, EditableKey, EditableTensor, Evidence, LessonState, ProvenanceResponse, TensorEvidence, TensorKey } from './types';
import type { GradcheckRules } from './core-api';

// What the line under a computed table says until a cell is chosen.
const provenancePrompt = 'Focus or tap a cell to see how it was computed.';

export const labels: Record<TensorKey, string> = {
  input: 'X (shared input)',
  query_weight: 'W_Q (query weight)',
  key_weight: 'W_K (key weight)',
  value_weight: 'W_V (value weight)',
  query: 'Q (query output)',
  key: 'K (key output)',
  value: 'V (value output)',
  scores: 'S = Q Kᵀ (query–key scores, per batch item)',
  input_gradient: 'X̄ (input gradient)',
  query_weight_gradient: 'W̄_Q (query weight gradient)',
  key_weight_gradient: 'W̄_K (key weight gradient)',
  value_weight_gradient: 'W̄_V (value weight gradient)',
  query_upstream: 'U_Q (Q’s upstream)',
  key_upstream: 'U_K (K’s upstream)',
  value_upstream: 'U_V (V’s upstream)',
};

const branches = [
  {
    role: 'query',
    title: 'Query projection',
    question: 'Query: what should this position retrieve?',
    letter: 'Q',
    cue: 'Query: blue, solid border',
    formula: math.queryBranch,
    weight: 'query_weight',
    output: 'query',
  },
  {
    role: 'key',
    title: 'Key projection',
    question: 'Key: how can this position be matched?',
    letter: 'K',
    cue: 'Key: orange, dashed border',
    formula: math.keyBranch,
    weight: 'key_weight',
    output: 'key',
  },
  {
    role: 'value',
    title: 'Value projection',
    question: 'Value: what content can this position contribute?',
    letter: 'V',
    cue: 'Value: green, double border',
    formula: math.valueBranch,
    weight: 'value_weight',
    output: 'value',
  },
] as const;

// One element per computed tensor, by its key.
function perComputed(make: (key: ComputedKey) => HTMLElement): Record<ComputedKey, HTMLElement> {
  const out = {} as Record<ComputedKey, HTMLElement>;
  for (const key of computedKeys) out[key] = make(key);
  return out;
}

// A branch's letter as a badge (the words beside it say the same to a screen reader).
const letter = (text: string) => h('span', { class: 'letter', 'aria-hidden': 'true' }, text);

// An editable table that survives re-renders while its shape stays the same, so typing keeps focus.
class EditableSlot {
  readonly element = h('div', { class: 'slot' });
  private shapeKey = '';

  constructor(
    private readonly key: EditableKey,
    readonly errorId: string,
  ) {}

  render(tensor: EditableTensor, shape_text: string, tokenNames: string[]): void {
    const shapeKey = `${tensor.shape.join('x')} ${tokenNames.join(' ')}`;
    if (shapeKey !== this.shapeKey) {
      this.shapeKey = shapeKey;
      const table = editableTable(this.key, labels[this.key], tensor, shape_text, this.errorId);
      nameTokenRows(table, tensor.shape, tokenNames);
      this.element.replaceChildren(table);
      return;
    }
    const caption = this.element.querySelector('caption');
    if (caption && caption.textContent !== `${labels[this.key]}, shape ${shape_text}`) caption.replaceChildren(...tensorCaption(labels[this.key], shape_text));
    // Same shape: the inputs are in row-major document order, like the cells.
    this.element.querySelectorAll<HTMLInputElement>('input[data-index]').forEach((input, cell) => {
      const text = tensor.cells[cell];
      // Never overwrite what the learner is typing.
      if (!input.matches(':focus') && input.value !== text) input.value = text;
    });
  }
}

// Each [B, T, …] table's row headers say which token a row is, in the core's words ("b0 t1" and "bread").
export function nameTokenRows(table: HTMLTableElement, shape: number[], tokenNames: string[]): void {
  if (shape.length !== 3 || tokenNames.length !== shape[1]) return;
  const headers = table.querySelectorAll('tbody th[scope="row"]');
  let row = 0;
  for (let b = 0; b < shape[0]; b++) {
    for (const name of tokenNames) headers[row++]?.append(' ', h('span', { class: 'token-name' }, `“${name}”`));
  }
}

// A read-only table that is rebuilt only when its shape (or its tokens' names) changes; otherwise only its
// cell texts change.
function renderOutput(container: HTMLElement, key: TensorKey, tensor: TensorEvidence, tokenNames: string[]): void {
  const table = container.firstElementChild as HTMLTableElement | null;
  const shapeKey = `${tensor.shape_text} ${tokenNames.join(' ')}`;
  if (table?.dataset.shape !== shapeKey) {
    const fresh = matrixTable(key, labels[key], tensor, 'data-tensor', true);
    fresh.dataset.shape = shapeKey;
    nameTokenRows(fresh, tensor.shape, tokenNames);
    container.replaceChildren(fresh);
    return;
  }
  table.querySelectorAll('td > bdi').forEach((cell, i) => {
    if (cell.textContent !== tensor.text[i]) cell.textContent = tensor.text[i];
  });
}

export type Explain = (tensor: ComputedKey, index: number) => ProvenanceResponse;

export interface DiagramRefs {
  // The diagram itself, and two parts the element places: what the views are for (after Q, K and V, or
  // after the opening prediction when the diagram is hidden) and the optional part after the main path.
  root: HTMLElement;
  lookAhead: HTMLElement;
  lookAheadHome: HTMLElement;
  deeper: HTMLElement;
  selfScoreFurtherHome: HTMLElement;
  // The chapter's question ids in the order the diagram asks them (the lesson's path).
  pathOrder: string[];
  slots: Record<EditableKey, EditableSlot>;
  outputs: Record<ComputedKey, HTMLElement>;
  // One line under each computed table: the provenance of its selected cell (a polite live region).
  explanations: Record<ComputedKey, HTMLElement>;
  // Where each chapter prediction sits: right before the folded evidence that answers it.
  predictions: Record<string, HTMLElement>;
  counts: HTMLElement;
  divisibility: HTMLElement;
  implementers: HTMLElement;
  // Asks the core where a computed cell comes from.
  readonly explain: Explain;
  selected?: { tensor: ComputedKey; index: number };
  inputShape: HTMLElement;
  // The next lesson's preview row (value-preview.ts), under the scores.
  valuePreview: HTMLElement;
  ownTokenPeaks: HTMLElement; // under the score figure: X Xᵀ's rows against S's, in the core's words
  branchFacts: Record<'query' | 'key' | 'value', HTMLElement>;
  loss: HTMLElement;
  history: HTMLElement;
  // The checks' cards, built whole; a render fills only what the core's checks decide (checks-cards.ts).
  checks: ChecksCards;
  probes: HTMLElement;
  rejections: HTMLElement;
  fieldErrors: Record<string, HTMLElement>;
}

// What the diagram's builders share: the editable tables, the computed tables with their provenance lines, and
// the places of the questions and of the fields' errors, each made once and recorded for the refs.
interface Places {
  slots: Record<EditableKey, EditableSlot>;
  outputs: Record<ComputedKey, HTMLElement>;
  explanations: Record<ComputedKey, HTMLElement>;
  predictions: Record<string, HTMLElement>;
  fieldErrors: Record<string, HTMLElement>;
  predict(id: string): HTMLElement;
  errorFor(field: string): HTMLElement;
  // A computed table in its scrolling region, with its provenance line under it.
  explained(label: string, key: ComputedKey): HTMLElement[];
}

function places(idPrefix: string): Places {
  const fieldErrors: Record<string, HTMLElement> = {};
  const predictions: Record<string, HTMLElement> = {};
  const slot = (key: EditableKey) => new EditableSlot(key, `${idPrefix}-error-${key}`);
  const outputs = perComputed(() => h('div', { class: 'slot' }));
  outputs.scores.id = `${idPrefix}-scores`; // names the score figure's caption (score-figure.ts)
  const explanations = perComputed((key) => h('p', { class: 'provenance', 'data-provenance': key, 'aria-live': 'polite' }, provenancePrompt));
  return {
    slots: {
      input: slot('input'),
      query_weight: slot('query_weight'),
      key_weight: slot('key_weight'),
      value_weight: slot('value_weight'),
      query_upstream: slot('query_upstream'),
      key_upstream: slot('key_upstream'),
      value_upstream: slot('value_upstream'),
    },
    outputs,
    explanations,
    predictions,
    fieldErrors,
    predict: (id) => (predictions[id] = prediction(id)),
    errorFor: (field) => (fieldErrors[field] ??= fieldError(`${idPrefix}-error-${field}`)),
    explained: (label, key) => [scroller(label, outputs[key]), explanations[key]],
  };
}

// One branch's card: its cue, title and role, its formula, its editable weight, and its output folded.
function branchCard(branch: (typeof branches)[number], at: Places, facts: HTMLElement): HTMLElement {
  return h(
    'li',
    // A part each (laid-out.ts): the three cards together took one frame of over 50 ms on a slow phone.
    { class: `card branch ${branch.role} ${partClass}`, 'data-branch': branch.role },
    h('p', { class: 'cue-chip' }, letter(branch.letter), ' ', branch.cue),
    h('h4', {}, branch.title),
    h('p', { class: 'role-question' }, branch.question),
    h('p', {}, mathSpan(branch.formula)),
    scroller(`${branch.title}: weight`, at.slots[branch.weight].element),
    at.errorFor(branch.weight),
    fold(['ch26-output-shapes', 'ch26-first-token'], `${branch.letter} and its shape`, facts, ...at.explained(`${branch.title}: output`, branch.output)),
  );
}

// How the branches are told apart: a letter, a colour and a border style; and editable cells from computed ones.
function cueList(): HTMLElement {
  return h(
    'ul',
    { class: 'cue-list', 'aria-label': 'How the branches are told apart: a letter, a colour and a border style' },
    h('li', { class: 'cue-chip shared' }, letter('X'), ' Shared input: thick top border'),
    ...branches.map((branch) => h('li', { class: `cue-chip ${branch.role}` }, letter(branch.letter), ' ', branch.cue)),
    h('li', { class: 'cue-chip editable-cue' }, h('span', { class: 'field-sample', 'aria-hidden': 'true' }, '1.5'), ' you can edit'),
    h('li', { class: 'cue-chip computed-cue' }, h('span', { class: 'computed-sample', 'aria-hidden': 'true' }, '3'), ' computed: focus it to see how'),
  );
}

// The diagram: the shared input X, then the three branch cards it feeds, then the place of what the views are for.
function diagramFigure(idPrefix: string, at: Places, inputShape: HTMLElement, branchFacts: DiagramRefs['branchFacts'], lookAheadHome: HTMLElement): HTMLElement {
  return h(
    'figure',
    { class: 'diagram', 'aria-labelledby': `${idPrefix}-diagram-title`, 'aria-describedby': `${idPrefix}-diagram-description` },
    h('h3', { id: `${idPrefix}-diagram-title` }, 'Split one hidden sequence into three learned views'),
    h(
      'p',
      { id: `${idPrefix}-diagram-description` },
      'One hidden-state sequence through the query, key and value projections. Every cell of X and of the three weights can be edited; the core recomputes everything below.',
    ),
    cueList(),
    part(
      h('h4', {}, 'Preserve positions while changing the feature space'),
      at.predict('ch26-output-shapes'),
      h(
        'section',
        { class: 'card shared-input', 'aria-label': 'Shared hidden-state input' },
        h('h4', {}, 'Shared hidden-state input X'),
        inputShape,
        scroller('Shared input X', at.slots.input.element),
        at.errorFor('input'),
      ),
      // Where the first-token question goes when the opening prediction is not shown.
      at.predict('ch26-first-token'),
      h('p', { class: 'feed-label' }, 'X feeds all three branches'),
    ),
    // The branch cards in a part of their own (each names its view's role): with the part above, one frame of
    // over 50 ms on a slow phone.
    part(
      scroller('Query, key and value branches', h('ol', { class: 'branches feed' }, ...branches.map((branch) => branchCard(branch, at, branchFacts[branch.role])))),
      h('p', { class: 'note' }, 'The three branches share coordinates (batch and token positions), not weights or feature values.'),
    ),
    lookAheadHome,
  );
}

// Check independence, sizes and empty axes (Going deeper): each question, then its folded card.
function sizeChecksPart(at: Places, cards: Pick<DiagramRefs, 'counts' | 'divisibility' | 'probes'>, independence: HTMLElement): HTMLElement {
  return part(
    h('h4', {}, 'Check independence, sizes and empty axes'),
    at.predict('ch26-change-query-only'),
    fold(['ch26-change-query-only'], 'change only W_Q', independence),
    at.predict('ch26-parameter-count'),
    fold(['ch26-parameter-count'], 'the weights’ scalars', cards.counts),
    at.predict('ch26-divisibility'),
    fold(['ch26-divisibility'], 'the widths this layer accepted', cards.divisibility),
    at.predict('ch26-empty-axes'),
    fold(['ch26-empty-axes'], 'empty axes', cards.probes),
  );
}

// Reverse mode: what the upstream gradients are and the one objective whose gradients this layer passes back.
function reverseModePart(): HTMLElement {
  return part(
    h('h4', {}, 'Reverse mode: one input, three paths back'),
    h(
      'p',
      {},
      'Inside a whole model, the layers after this one turn Q, K and V into a loss, and backpropagation hands this layer one tensor per output: how much the loss would change per unit change of each number of Q, K and V. Call these upstream gradients U_Q, U_K and U_V. To run this layer’s backward pass on its own, fix U and take the one scalar objective whose gradient with respect to Q is exactly U_Q (with respect to K, U_K; to V, U_V):',
    ),
    mathSpan(math.objective, 'math display'),
    symbols([[math.symU, 'upstream gradients: what the later layers would send back to Q, K and V (edit them below)']]),
    h('p', {}, 'Its gradients with respect to X and to the three weights are then exactly what this layer would pass back inside the model. The core runs one backward pass.'),
  );
}

// The three editable upstream tables.
function upstreamsPart(at: Places): HTMLElement {
  // Parts (laid-out.ts): the prose and formula, the three tables of inputs and the question together took
  // one frame of over 50 ms on a slow phone.
  return part(
    h(
      'div',
      { class: 'upstreams merge' },
      ...(['query_upstream', 'key_upstream', 'value_upstream'] as const).map((key) =>
        h('div', { class: `card upstream ${key.split('_')[0]}` }, scroller(labels[key], at.slots[key].element), at.errorFor(key)),
      ),
    ),
  );
}

// The objective's value, the upstream question, and its folded gradients: change only U_K, the input gradient's
// three paths, and each branch's own weight gradient.
function gradientsPart(at: Places, loss: HTMLElement, upstreamChange: HTMLElement): HTMLElement {
  return part(
    loss,
    at.predict('ch26-upstream-key'),
    fold(
      ['ch26-upstream-key'],
      'the gradients of X and of the weights',
      symbols([[math.symBar, 'gradients of the objective L with respect to X and to each weight']]),
      upstreamChange,
      h('p', { class: 'merge-label' }, 'Three paths come back into X̄'),
      h('h5', {}, 'Combined input gradient'),
      h('p', {}, 'X feeds all three branches, so its gradient is the sum of three paths:'),
      mathSpan(math.inputGradient, 'math display'),
      h('div', { class: 'card shared-input gradient' }, ...at.explained('Input gradient', 'input_gradient')),
      h('h5', {}, 'Branch-local weight gradients'),
      h('p', {}, 'Flatten batch and token into one row axis (BT); each weight gets only its own branch’s gradient:'),
      mathSpan(math.weightGradient, 'math display'),
      scroller(
        'Weight gradients of the three branches',
        h(
          'ol',
          { class: 'branches gradients' },
          h('li', { class: 'card branch query' }, ...at.explained('Query weight gradient', 'query_weight_gradient')),
          h('li', { class: 'card branch key' }, ...at.explained('Key weight gradient', 'key_weight_gradient')),
          h('li', { class: 'card branch value' }, ...at.explained('Value weight gradient', 'value_weight_gradient')),
        ),
      ),
    ),
  );
}

// What Going deeper holds besides the places: the containers each part's render fills.
interface DeeperParts {
  history: HTMLElement;
  loss: HTMLElement;
  rejections: HTMLElement;
  implementers: HTMLElement;
  selfScoreFurtherHome: HTMLElement;
  checks: ChecksCards;
  sizeCards: Pick<DiagramRefs, 'counts' | 'divisibility' | 'probes'>;
}

// Going deeper (optional): where attention's inputs come from, the checks of sizes, the self-score experiment's
// optional part, reverse mode with its gradients and checks, and the inputs the layer rejects.
function deeperSection(at: Places, parts: DeeperParts): HTMLElement {
  return h(
    'section',
    { class: 'deeper', 'data-part': 'deeper', 'aria-labelledby': 'going-deeper' },
    h('h3', { id: 'going-deeper' }, 'Going deeper (optional)'),
    h(
      'p',
      {},
      'The lesson’s main path ends above. This part is for learners who want to see where attention’s inputs come from, check independence, sizes and empty axes, follow the layer’s backward pass and check its gradients numerically, see which inputs it refuses, and run it at the size of real models. It uses the same numbers as ',
      h('a', { href: '#diagram' }, 'the diagram'),
      '; its upstream tensors U_Q, U_K and U_V can be edited here, everything else there.',
    ),
    // Optional reading (issue 38, a shorter main path): where attention's inputs come from opens the optional
    // part, and the checks of independence, sizes and empty axes follow it.
    historyPart(at.predict('ch26-history'), parts.history),
    sizeChecksPart(at, parts.sizeCards, parts.checks.independence),
    parts.selfScoreFurtherHome,
    reverseModePart(),
    upstreamsPart(at),
    gradientsPart(at, parts.loss, parts.checks.upstreamChange),
    part(parts.checks.gradcheck),
    part(
      h('h4', {}, 'Inputs the layer rejects'),
      at.predict('ch26-rank-two'),
      fold(['ch26-rank-two'], 'inputs the layer rejects', parts.rejections),
      h('details', { class: 'implementers' }, h('summary', {}, 'For implementers: parameter names, replay and seeded initialisation'), parts.implementers),
    ),
  );
}

// The three branch cards fold their outputs together: opening one opens the others.
function openFoldsTogether(containers: HTMLElement[]): void {
  const folds = containers.flatMap((container) => [...container.querySelectorAll<HTMLDetailsElement>('details.evidence')]);
  for (const details of folds) {
    details.addEventListener('toggle', () => {
      if (!details.open) return;
      for (const other of folds) if (other !== details && other.dataset.evidenceFor === details.dataset.evidenceFor) other.open = true;
    });
  }
}

export function buildDiagram(idPrefix: string, explain: Explain, gradcheckRules: GradcheckRules): DiagramRefs {
  const at = places(idPrefix);
  const inputShape = h('dl', { class: 'facts' });
  const branchFacts = { query: h('dl', { class: 'facts' }), key: h('dl', { class: 'facts' }), value: h('dl', { class: 'facts' }) };
  const lookAheadHome = h('div', { class: 'look-ahead-home' });
  const root = diagramFigure(idPrefix, at, inputShape, branchFacts, lookAheadHome);

  const valuePreview = h('section', { class: 'value-preview card' });
  const ownTokenPeaks = h('p', { class: 'own-token-peaks' });
  const lookAhead = lookAheadSection({ predict: at.predict, scores: at.outputs.scores, scoresProvenance: at.explanations.scores, ownTokenPeaks, valuePreview });
  lookAheadHome.append(lookAhead);

  const sizeCards = { counts: h('div'), divisibility: h('div'), probes: h('div') };
  // Where the self-score experiment's optional part goes (lesson-view.ts).
  const parts: DeeperParts = { history: h('div'), loss: h('p', { class: 'loss' }), rejections: h('div'), implementers: h('div'), selfScoreFurtherHome: h('div', { class: 'self-score-further-home' }), checks: buildChecksCards(gradcheckRules), sizeCards };
  const deeper = deeperSection(at, parts);

  const pathOrder = [root, deeper].flatMap((container) => [...container.querySelectorAll<HTMLElement>('[data-prediction-for]')].map((home) => home.dataset.predictionFor!));
  openFoldsTogether([root, lookAhead, deeper]);
  const { slots, outputs, explanations, predictions, fieldErrors } = at;
  const { history, loss, rejections, implementers, selfScoreFurtherHome, checks } = parts;
  const { counts, divisibility, probes } = sizeCards;
  return {
    explain,
    root,
    lookAhead,
    lookAheadHome,
    deeper,
    selfScoreFurtherHome,
    pathOrder,
    slots,
    outputs,
    explanations,
    predictions,
    counts,
    divisibility,
    implementers,
    inputShape,
    valuePreview,
    ownTokenPeaks,
    branchFacts,
    loss,
    history,
    checks,
    probes,
    rejections,
    fieldErrors,
  };
}

// A dotted parameter name that may wrap after its dots, never inside a word.
function dottedName(name: string): HTMLElement {
  const code = h('code', { class: 'name' });
  name.split('.').forEach((part, i) => {
    if (i > 0) code.append('.', h('wbr'));
    code.append(part);
  });
  return code;
}

function yesNo(value: boolean): string {
  return value ? 'yes' : 'no';
}

// The shared input's shape, and each branch's shapes and output table.
function renderBranches(refs: DiagramRefs, t: Evidence, state: LessonState): void {
  renderPart(refs.inputShape, t.input.shape_text, () =>
    facts([
      ['Shape of X', ltr(t.input.shape_text)],
      ['Bias policy', 'bias = false (no bias in any branch)'],
    ]),
  );
  const names = t.token_names;
  for (const key of Object.keys(refs.slots) as EditableKey[]) refs.slots[key].render(state[key], t[key].shape_text, names);
  branches.forEach((branch) => {
    renderPart(refs.branchFacts[branch.role], [t[branch.weight].shape_text, t[branch.output].shape_text], () =>
      facts([
        ['Weight shape', ltr(t[branch.weight].shape_text)],
        ['Output shape', ltr(t[branch.output].shape_text)],
      ]),
    );
    renderOutput(refs.outputs[branch.output], branch.output, t[branch.output], names);
  });
}

// For implementers: the parameters' names, the replay's verdict (renderBitwise fills it) and seeded initialisation.
function renderImplementers(refs: DiagramRefs, evidence: Evidence): void {
  renderPart(
    refs.implementers,
    [evidence.parameter_names, evidence.initialization_seed, evidence.initialization_reproducible, evidence.initialization_independent, evidence.initialization_transactional, evidence.duplicate_name_rejection.expected_variant],
    () => [
      h('p', {}, 'Checks a library author cares about; a learner can skip them.'),
      h(
        'dl',
        { class: 'facts' },
        ...facts([
          ...evidence.parameter_names.map((name, i): [string, Node] => [`${branches[i].title}: parameter name`, dottedName(name)]),
          ['Parameter names', evidence.duplicate_name_rejection.expected_variant ? 'unique (a duplicate is rejected)' : 'unchecked'],
          ['The whole computation run twice', refs.checks.replayVerdict],
          [
            `Random starting weights from seed ${evidence.initialization_seed}`,
            `the same seed gives the same weights: ${yesNo(evidence.initialization_reproducible)}; the three weights differ: ${yesNo(evidence.initialization_independent)}; a refused request leaves the random generator where it was: ${yesNo(evidence.initialization_transactional)}`,
          ],
        ]),
      ),
    ],
  );
}

export function renderDiagram(refs: DiagramRefs, evidence: Evidence, state: LessonState): void {
  const t = evidence;
  renderBranches(refs, t, state);
  renderScoreFigure(refs.outputs.scores, t);
  renderPart(refs.valuePreview, [t.value_preview, t.token_names, t.head_width], () => valuePreviewParts(t));
  renderPart(refs.ownTokenPeaks, t.own_token_peaks ?? null, () => [t.own_token_peaks ?? '']);
  renderPart(refs.history, 'static', historyTable);

  renderPart(refs.loss, evidence.loss.text, () => ['Objective for these numbers: L = ', ltr(evidence.loss.text)]);
  for (const key of ['input_gradient', 'query_weight_gradient', 'key_weight_gradient', 'value_weight_gradient'] as const) {
    renderOutput(refs.outputs[key], key, t[key], t.token_names);
  }
  renderProbes(refs.probes, evidence);
  renderRejections(refs.rejections, evidence);
  renderCounts(refs.counts, evidence);
  renderDivisibility(refs.divisibility, evidence);
  renderChecks(refs.checks, evidence.gradcheck);
  renderImplementers(refs, evidence);
  renderBitwise(refs.checks, evidence.bitwise);
  if (refs.selected) explainCell(refs, refs.selected.tensor, refs.selected.index);
}

// ---- provenance: every computed cell explains itself ----

// Where the diagram's tables are: its parts may sit in different sections of the lesson, all in one
// shadow root (or document) once placed.
function lessonRoot(refs: DiagramRefs): ParentNode {
  return refs.root.getRootNode() as ParentNode;
}

function cellsOf(root: ParentNode, tensor: string, indices: number[]): HTMLElement[] {
  const table = root.querySelector(`table[data-tensor="${tensor}"]`);
  if (!table) return [];
  const cells: HTMLElement[] = [];
  for (const index of indices) {
    const cell = table.querySelector(`[data-index="${index}"]`);
    const td = cell?.closest('td');
    if (td) cells.push(td);
  }
  return cells;
}

function clearHighlight(refs: DiagramRefs): void {
  for (const cell of lessonRoot(refs).querySelectorAll('td.source, td.target')) cell.classList.remove('source', 'target');
  markProduct(lessonRoot(refs), undefined);
}

function resetLine(line: HTMLElement): void {
  delete line.dataset.shown;
  line.textContent = provenancePrompt;
}

// Highlights the cells `tensor[index]` was computed from and writes the core's computation under its table.
function explainCell(refs: DiagramRefs, tensor: ComputedKey, index: number): void {
  const answer = refs.explain(tensor, index);
  clearHighlight(refs);
  for (const [key, line] of Object.entries(refs.explanations)) if (key !== tensor && line.dataset.shown) resetLine(line);
  const line = refs.explanations[tensor];
  if (!answer.ok) {
    refs.selected = undefined;
    resetLine(line);
    return;
  }
  refs.selected = { tensor, index };
  const root = lessonRoot(refs);
  for (const source of answer.sources) for (const cell of cellsOf(root, source.tensor, source.indices)) cell.classList.add('source');
  for (const cell of cellsOf(root, tensor, [index])) cell.classList.add('target');
  if (tensor === 'scores') markProduct(root, index);
  const expression = h('bdi', { dir: 'ltr', class: 'expression' }, answer.expression);
  if (line.dataset.shown !== answer.expression) {
    line.dataset.shown = answer.expression;
    line.replaceChildren(expression, ' ', h('span', { class: 'description' }, answer.description));
  }
}

// Focus, hover and tap on computed cells; arrow keys between cells of any table.
export function attachProvenance(refs: DiagramRefs): void {
  const computedCell = 'table.computed td[data-index]';
  const selectCell = (cell: HTMLElement) => {
    const table = cell.closest('table')!;
    const tensor = table.dataset.tensor as ComputedKey;
    const index = cellIndexOf(cell);
    if (index === undefined) return;
    if (refs.selected?.tensor === tensor && refs.selected.index === index && cell.classList.contains('target')) return;
    explainCell(refs, tensor, index);
  };
  const select = (event: Event) => {
    const cell = (event.target as Element | null)?.closest?.(computedCell);
    if (cell instanceof HTMLElement) selectCell(cell);
  };
  // The look-ahead sits inside the diagram or, without it, in the opening prediction: an event that bubbles
  // through both containers is handled once.
  const handled = new WeakSet<Event>();
  const once =
    <E extends Event>(handle: (event: E) => void) =>
    (event: E) => {
      if (handled.has(event)) return;
      handled.add(event);
      handle(event);
    };
  for (const container of [refs.root, refs.lookAhead, refs.deeper]) {
    container.addEventListener('focusin', once(select));
    container.addEventListener('pointerover', once(select));
    // Leaving a table with the pointer gives the explanation back to the focused cell, if there is one.
    container.addEventListener(
      'pointerout',
      once((event: PointerEvent) => {
        const table = (event.target as Element | null)?.closest?.('table.computed');
        const focused = (container.getRootNode() as ShadowRoot | Document).activeElement;
        if (!table || table.contains(event.relatedTarget as Node | null) || !(focused instanceof HTMLElement) || !focused.matches(computedCell)) return;
        selectCell(focused);
      }),
    );
    container.addEventListener('click', once(select));
    container.addEventListener(
      'keydown',
      once((event: KeyboardEvent) => {
        const from = event.target;
        if (!(from instanceof HTMLElement) || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
        if (!from.closest('table.matrix')) return;
        const target = arrowTarget(from, event.key);
        if (!target) return;
        event.preventDefault();
        focusCell(target);
      }),
    );
  }
}

// Opens every fold whose questions have all been checked (or their answers shown): a fold that answers
// several questions waits for the last of them, so checking one never unfolds another's answer. `done`
// undefined opens every fold (a teacher's copy). Folds anywhere in `root`: the diagram's and the
// self-score section's.
export function openAnswered(root: ParentNode, done?: ReadonlySet<string>): void {
  for (const details of root.querySelectorAll<HTMLDetailsElement>('details[data-evidence-for]')) {
    if (!done || details.dataset.evidenceFor!.split(' ').every((id) => done.has(id))) details.open = true;
  }
}
