// Chapter 26's diagram: the shared input, three branch cards, the history contrast, reverse mode,
// independence, empty axes, rejected inputs and the numerical checks. Every value shown comes from the
// evidence object; `renderDiagram` is a function of (evidence, state).
import math from 'virtual:math';
import { h, math as mathSpan, symbols } from './dom';
import { arrowTarget, editableTable, focusCell, matrixTable, tensorCaption } from './tables';
import { computedKeys } from './types';
import type { ComputedKey, EditableKey, EditableTensor, Evidence, LessonState, ProvenanceResponse, TensorEvidence, TensorKey } from './types';

// What the line under a computed table says until a cell is chosen.
const provenancePrompt = 'Focus, hover or tap a cell to see how it was computed.';

export const labels: Record<TensorKey, string> = {
  input: 'X (shared input)',
  query_weight: 'W_Q (query weight)',
  key_weight: 'W_K (key weight)',
  value_weight: 'W_V (value weight)',
  query: 'Q (query output)',
  key: 'K (key output)',
  value: 'V (value output)',
  input_gradient: 'X̄ (input gradient)',
  query_weight_gradient: 'W̄_Q (query weight gradient)',
  key_weight_gradient: 'W̄_K (key weight gradient)',
  value_weight_gradient: 'W̄_V (value weight gradient)',
  query_upstream: 'U_Q (query upstream)',
  key_upstream: 'U_K (key upstream)',
  value_upstream: 'U_V (value upstream)',
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

  render(tensor: EditableTensor, shape_text: string): void {
    const shapeKey = tensor.shape.join('x');
    if (shapeKey !== this.shapeKey) {
      this.shapeKey = shapeKey;
      this.element.replaceChildren(editableTable(this.key, labels[this.key], tensor, shape_text, this.errorId));
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

// A read-only table that is rebuilt only when its shape changes; otherwise only its cell texts change.
function renderOutput(container: HTMLElement, key: TensorKey, tensor: TensorEvidence): void {
  const table = container.firstElementChild as HTMLTableElement | null;
  if (table?.dataset.shape !== tensor.shape_text) {
    const fresh = matrixTable(key, labels[key], tensor, 'data-tensor', true);
    fresh.dataset.shape = tensor.shape_text;
    container.replaceChildren(fresh);
    return;
  }
  table.querySelectorAll('td > bdi').forEach((cell, i) => {
    if (cell.textContent !== tensor.text[i]) cell.textContent = tensor.text[i];
  });
}

// Rebuilds a container only when the evidence it shows changed (most edits leave these parts alone).
const shown = new WeakMap<HTMLElement, string>();
function renderPart(container: HTMLElement, evidence: unknown, build: () => (Node | string)[]): void {
  const key = JSON.stringify(evidence);
  if (shown.get(container) === key) return;
  shown.set(container, key);
  container.replaceChildren(...build());
}

export interface DiagramRefs {
  root: HTMLElement;
  slots: Record<EditableKey, EditableSlot>;
  outputs: Record<ComputedKey, HTMLElement>;
  // One line under each computed table: the provenance of its selected cell (a polite live region).
  explanations: Record<ComputedKey, HTMLElement>;
  // Where each chapter prediction sits: right before the folded evidence that answers it.
  predictions: Record<string, HTMLElement>;
  folds: HTMLDetailsElement[];
  counts: HTMLElement;
  divisibility: HTMLElement;
  implementers: HTMLElement;
  // Set by the element: asks the core where a computed cell comes from.
  explain?: (tensor: ComputedKey, index: number) => ProvenanceResponse;
  selected?: { tensor: ComputedKey; index: number };
  inputShape: HTMLElement;
  branchFacts: Record<'query' | 'key' | 'value', HTMLElement>;
  loss: HTMLElement;
  history: HTMLElement;
  independence: HTMLElement;
  probes: HTMLElement;
  rejections: HTMLElement;
  checks: HTMLElement;
  fieldErrors: Record<string, HTMLElement>;
}

function scroller(label: string, ...children: (Node | string)[]): HTMLElement {
  // A named, focusable region so keyboard users can scroll wide tables sideways.
  return h('div', { class: 'scroller', role: 'region', 'aria-label': label, tabindex: '0' }, ...children);
}

function fieldError(id: string): HTMLElement {
  return h('p', { class: 'field-error', id, hidden: true });
}

// Folded evidence: closed until the learner checks one of `exercises` or asks to see it.
function fold(exercises: string[], what: string, ...children: (Node | string)[]): HTMLDetailsElement {
  return h(
    'details',
    { class: 'evidence', 'data-evidence-for': exercises.join(' ') },
    h('summary', {}, `Show the evidence: ${what}`),
    ...children,
  );
}

// A stretch of the diagram the browser may leave unlaid-out while it is far from the viewport (styles.css).
function part(...children: (Node | string)[]): HTMLElement {
  return h('div', { class: 'part' }, ...children);
}

function prediction(id: string): HTMLElement {
  return h('div', { class: 'prediction', 'data-prediction-for': id });
}

export function buildDiagram(idPrefix: string): DiagramRefs {
  const fieldErrors: Record<string, HTMLElement> = {};
  const errorFor = (field: string) => (fieldErrors[field] ??= fieldError(`${idPrefix}-error-${field}`));
  const slot = (key: EditableKey) => new EditableSlot(key, `${idPrefix}-error-${key}`);
  const slots = {
    input: slot('input'),
    query_weight: slot('query_weight'),
    key_weight: slot('key_weight'),
    value_weight: slot('value_weight'),
    query_upstream: slot('query_upstream'),
    key_upstream: slot('key_upstream'),
    value_upstream: slot('value_upstream'),
  } satisfies Record<EditableKey, EditableSlot>;
  const outputs = perComputed(() => h('div', { class: 'slot' }));
  const explanations = perComputed((key) => h('p', { class: 'provenance', 'data-provenance': key, 'aria-live': 'polite' }, provenancePrompt));
  const explained = (label: string, key: ComputedKey) => [scroller(label, outputs[key]), explanations[key]];
  const predictions: Record<string, HTMLElement> = {};
  const predict = (id: string) => (predictions[id] = prediction(id));
  const inputShape = h('dl', { class: 'facts' });
  const branchFacts = { query: h('dl', { class: 'facts' }), key: h('dl', { class: 'facts' }), value: h('dl', { class: 'facts' }) };

  const branchCards = branches.map((branch) =>
    h(
      'li',
      { class: `card branch ${branch.role}`, 'data-branch': branch.role },
      h('p', { class: 'cue-chip' }, letter(branch.letter), ' ', branch.cue),
      h('h4', {}, branch.title),
      h('p', { class: 'role-question' }, branch.question),
      h('p', {}, mathSpan(branch.formula)),
      scroller(`${branch.title}: weight`, slots[branch.weight].element),
      errorFor(branch.weight),
      fold(['ch26-output-shapes', 'ch26-first-token'], `${branch.letter} and its shape`, branchFacts[branch.role], ...explained(`${branch.title}: output`, branch.output)),
    ),
  );

  const loss = h('p', { class: 'loss' });
  const history = h('div');
  const independence = h('div');
  const probes = h('div');
  const rejections = h('div');
  // The last of its part (see part()), so a card itself rather than a box around one.
  const checks = h('section', { class: 'card' });
  const counts = h('div');
  const divisibility = h('div');
  const implementers = h('div');

  const root = h(
    'figure',
    { class: 'diagram', 'aria-labelledby': `${idPrefix}-diagram-title`, 'aria-describedby': `${idPrefix}-diagram-description` },
    h('h3', { id: `${idPrefix}-diagram-title` }, 'Split one hidden sequence into three learned views'),
    h(
      'p',
      { id: `${idPrefix}-diagram-description` },
      'Follow one hidden-state sequence through the query, key and value projections, then compare shapes, gradients, independence, sources and rejected inputs. Every cell of X, of the three weights and of the three upstream tensors can be edited; the core recomputes everything below.',
    ),
    h(
      'ul',
      { class: 'cue-list', 'aria-label': 'How the branches are told apart: a letter, a colour and a border style' },
      h('li', { class: 'cue-chip shared' }, letter('X'), ' Shared input: thick top border'),
      ...branches.map((branch) => h('li', { class: `cue-chip ${branch.role}` }, letter(branch.letter), ' ', branch.cue)),
      h('li', { class: 'cue-chip editable-cue' }, h('span', { class: 'field-sample', 'aria-hidden': 'true' }, '1.5'), ' you can edit'),
      h('li', { class: 'cue-chip computed-cue' }, h('span', { class: 'computed-sample', 'aria-hidden': 'true' }, '3'), ' computed: focus it to see how'),
    ),
    part(
      h('h4', {}, 'Preserve positions while changing the feature space'),
      predict('ch26-output-shapes'),
      h(
        'section',
        { class: 'card shared-input', 'aria-label': 'Shared hidden-state input' },
        h('h4', {}, 'Shared hidden-state input X'),
        inputShape,
        scroller('Shared input X', slots.input.element),
        errorFor('input'),
      ),
      h('p', { class: 'feed-label' }, 'X feeds all three branches'),
    ),
    part(
      scroller('Query, key and value branches', h('ol', { class: 'branches feed' }, ...branchCards)),
      h('p', { class: 'note' }, 'The three branches share coordinates (batch and token positions), not weights or feature values.'),
    ),
    part(
      h('h4', {}, 'Change from two attention sources to one'),
      predict('ch26-history'),
      fold(['ch26-history'], 'where attention’s inputs came from', history),
    ),
    part(
      h('h4', {}, 'Reverse mode: one input, three paths back'),
      h(
        'p',
        {},
        'Fix three upstream tensors U_Q, U_K, U_V (the gradients later layers would send back) and take the scalar objective below. The core runs one backward pass.',
      ),
      mathSpan(math.objective, 'math display'),
      h(
        'div',
        { class: 'upstreams merge' },
        ...(['query_upstream', 'key_upstream', 'value_upstream'] as const).map((key) =>
          h('div', { class: `card upstream ${key.split('_')[0]}` }, scroller(labels[key], slots[key].element), errorFor(key)),
        ),
      ),
      h('p', { class: 'merge-label' }, 'Three paths come back into X̄'),
      loss,
      h('h5', {}, 'Combined input gradient'),
      h('p', {}, 'X feeds all three branches, so its gradient is the sum of three paths:'),
      mathSpan(math.inputGradient, 'math display'),
      h('div', { class: 'card shared-input gradient' }, ...explained('Input gradient', 'input_gradient')),
    ),
    part(
      h('h5', {}, 'Branch-local weight gradients'),
      h('p', {}, 'Flatten batch and token into one row axis (BT); each weight gets only its own branch’s gradient:'),
      mathSpan(math.weightGradient, 'math display'),
      scroller(
        'Weight gradients of the three branches',
        h(
          'ol',
          { class: 'branches gradients' },
          h('li', { class: 'card branch query' }, ...explained('Query weight gradient', 'query_weight_gradient')),
          h('li', { class: 'card branch key' }, ...explained('Key weight gradient', 'key_weight_gradient')),
          h('li', { class: 'card branch value' }, ...explained('Value weight gradient', 'value_weight_gradient')),
        ),
      ),
    ),
    part(
      h('h4', {}, 'Check independence, sizes, empty axes and boundaries'),
      predict('ch26-change-query-only'),
      fold(['ch26-change-query-only'], 'change only W_Q', independence),
      predict('ch26-parameter-count'),
      fold(['ch26-parameter-count'], 'the weights’ scalars', counts),
      predict('ch26-divisibility'),
      fold(['ch26-divisibility'], 'the widths this layer accepted', divisibility),
      predict('ch26-empty-axes'),
      fold(['ch26-empty-axes'], 'empty axes', probes),
      predict('ch26-rank-two'),
      fold(['ch26-rank-two'], 'inputs the layer rejects', rejections),
      checks,
    ),
    part(
      h('h4', {}, 'What this layer does not do yet'),
      predict('ch26-still-missing'),
      fold(
        ['ch26-still-missing'],
        'what comes after Q, K and V',
        h(
          'p',
          {},
          'Nothing here compares tokens. Q, K and V become attention only after three more steps: scores that compare every query with every key, probabilities from those scores, and a mixture of the values weighted by the probabilities.',
        ),
      ),
      h('details', { class: 'implementers' }, h('summary', {}, 'For implementers: parameter names, replay and seeded initialisation'), implementers),
    ),
  );
  const folds = [...root.querySelectorAll<HTMLDetailsElement>('details.evidence')];
  // The three branch cards fold their outputs together: opening one opens the others.
  for (const details of folds) {
    details.addEventListener('toggle', () => {
      if (!details.open) return;
      for (const other of folds) if (other !== details && other.dataset.evidenceFor === details.dataset.evidenceFor) other.open = true;
    });
  }
  return {
    root,
    slots,
    outputs,
    explanations,
    predictions,
    folds,
    counts,
    divisibility,
    implementers,
    inputShape,
    branchFacts,
    loss,
    history,
    independence,
    probes,
    rejections,
    checks,
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

function facts(entries: [string, string | Node][]): Node[] {
  return entries.flatMap(([term, detail]) => [h('dt', {}, term), h('dd', {}, detail)]);
}

function yesNo(value: boolean): string {
  return value ? 'yes' : 'no';
}

export function renderDiagram(refs: DiagramRefs, evidence: Evidence, state: LessonState): void {
  const t = evidence;
  renderPart(refs.inputShape, t.input.shape_text, () =>
    facts([
      ['Shape of X', h('bdi', { dir: 'ltr' }, t.input.shape_text)],
      ['Bias policy', 'bias = false (no bias in any branch)'],
    ]),
  );
  for (const key of Object.keys(refs.slots) as EditableKey[]) refs.slots[key].render(state[key], t[key].shape_text);

  branches.forEach((branch) => {
    renderPart(refs.branchFacts[branch.role], [t[branch.weight].shape_text, t[branch.output].shape_text], () =>
      facts([
        ['Weight shape', h('bdi', { dir: 'ltr' }, t[branch.weight].shape_text)],
        ['Output shape', h('bdi', { dir: 'ltr' }, t[branch.output].shape_text)],
      ]),
    );
    renderOutput(refs.outputs[branch.output], branch.output, t[branch.output]);
  });

  renderPart(refs.history, 'static', () => [
    scroller(
      'Attention source comparison',
      h(
        'table',
        { class: 'history' },
        h('caption', {}, 'Where attention’s inputs come from. Calling the decoder state “query-like” and the annotations “key/value-like” is a retrospective analogy, not the earlier papers’ terms.'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, 'Mechanism'),
            h('th', { scope: 'col' }, 'Previous decoder state'),
            h('th', { scope: 'col' }, 'Encoder annotations'),
            h('th', { scope: 'col' }, 'One previous-layer sequence'),
          ),
        ),
        h(
          'tbody',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, 'Additive encoder–decoder attention (two sources)'),
            h('td', {}, 'the query side: compared with every annotation'),
            h('td', {}, 'the key and value side: scored, then mixed'),
            h('td', {}, 'not used'),
          ),
          h(
            'tr',
            { class: 'self-attention' },
            h('th', { scope: 'row' }, 'Transformer self-attention (one source)'),
            h('td', {}, 'not used'),
            h('td', {}, 'not used'),
            h('td', {}, 'all three roles: queries, keys and values'),
          ),
        ),
      ),
    ),
    h('p', { class: 'note' }, 'The query, key and value names come from the Transformer; applied to the earlier mechanism they are an analogy drawn afterwards.'),
  ]);

  renderPart(refs.loss, evidence.loss.text, () => ['Objective for these numbers: L = ', h('bdi', { dir: 'ltr' }, evidence.loss.text)]);
  for (const key of ['input_gradient', 'query_weight_gradient', 'key_weight_gradient', 'value_weight_gradient'] as const) {
    renderOutput(refs.outputs[key], key, t[key]);
  }

  renderPart(refs.independence, [evidence.query_changed, evidence.key_unchanged, evidence.value_unchanged], () => [
    h(
      'section',
      { class: 'card' },
      h('h5', {}, 'Change only the query weight'),
      h('p', {}, 'The core adds 1 to W_Q[0,0], keeps everything else, and compares the new outputs bit for bit with the ones above.'),
      h(
        'ul',
        { class: 'verdicts' },
        h('li', { class: `verdict ${evidence.query_changed ? 'changed' : 'same'}` }, `Query output: ${evidence.query_changed ? 'changed' : 'unchanged: adding 1 to W_Q[0,0] moved no query value here'}`),
        h('li', { class: `verdict ${evidence.key_unchanged ? 'same' : 'changed'}` }, `Key output: ${evidence.key_unchanged ? 'unchanged, bit for bit' : 'changed'}`),
        h('li', { class: `verdict ${evidence.value_unchanged ? 'same' : 'changed'}` }, `Value output: ${evidence.value_unchanged ? 'unchanged, bit for bit' : 'changed'}`),
      ),
    ),
  ]);

  renderPart(refs.probes, [evidence.batch_probe, evidence.empty_batch_probe, evidence.empty_token_probe], () => [
    h(
      'div',
      { class: 'probe-grid' },
      h('section', { class: 'card' }, h('h5', {}, 'Empty batch axis'), h('p', {}, h('bdi', { dir: 'ltr' }, `${evidence.empty_batch_probe.input} → ${evidence.empty_batch_probe.query}, ${evidence.empty_batch_probe.key}, ${evidence.empty_batch_probe.value}`))),
      h('section', { class: 'card' }, h('h5', {}, 'Empty token axis'), h('p', {}, h('bdi', { dir: 'ltr' }, `${evidence.empty_token_probe.input} → ${evidence.empty_token_probe.query}, ${evidence.empty_token_probe.key}, ${evidence.empty_token_probe.value}`))),
      h('section', { class: 'card' }, h('h5', {}, 'Twice the batch'), h('p', {}, h('bdi', { dir: 'ltr' }, `${evidence.batch_probe.input} → ${evidence.batch_probe.query}, ${evidence.batch_probe.key}, ${evidence.batch_probe.value}`))),
    ),
  ]);

  const rejections = [evidence.rank_rejection, evidence.width_rejection, evidence.model_mismatch_rejection, evidence.head_mismatch_rejection, evidence.duplicate_name_rejection];
  const rejection = (code: string, reason: string, probe: { message: string; expected_variant: boolean }) =>
    h(
      'li',
      { class: 'rejection' },
      h('span', { class: 'pill rejected' }, probe.expected_variant ? 'Rejected' : 'Not rejected as expected'),
      ' ',
      h('code', {}, code),
      h('p', {}, reason),
      h('p', { class: 'library-message' }, 'Library message: ', h('q', {}, probe.message)),
    );
  renderPart(refs.rejections, rejections, () => [
    h(
      'section',
      { class: 'card' },
      h('h5', {}, 'Rejected boundaries'),
      h(
        'ul',
        { class: 'rejections' },
        rejection('rank-two', 'The input must keep explicit batch, token and feature axes.', evidence.rank_rejection),
        rejection('input-width', 'The last input axis must match the model width.', evidence.width_rejection),
        rejection('branch-mismatch', 'All three weights must use the same model width.', evidence.model_mismatch_rejection),
        rejection('head-mismatch', 'All three weights must use the same head width.', evidence.head_mismatch_rejection),
        rejection('duplicate-name', 'Parameter names must be unique.', evidence.duplicate_name_rejection),
      ),
    ),
  ]);

  renderPart(refs.counts, [t.query_weight.shape_text, evidence.parameter_count], () => [
    h(
      'section',
      { class: 'card' },
      h('h5', {}, 'Count the trainable scalars'),
      h(
        'dl',
        { class: 'facts' },
        ...facts([
          ['W_Q, W_K, W_V', h('bdi', { dir: 'ltr' }, `three weights of shape ${t.query_weight.shape_text}, no bias`)],
          ['Trainable scalars in all', `${evidence.parameter_count}`],
        ]),
      ),
    ),
  ]);

  renderPart(refs.divisibility, [evidence.model_width, evidence.head_width], () => [
    h(
      'section',
      { class: 'card' },
      h('h5', {}, 'Widths the layer accepted'),
      h('p', {}, `d_model = ${evidence.model_width} and d_head = ${evidence.head_width}: the layer built its three weights and computed Q, K and V above. It asks only that every weight has d_model rows and d_head columns; change the widths in the sizes bar and see which pairs it accepts.`),
    ),
  ]);

  const g = evidence.gradcheck;
  renderPart(refs.checks, g, () => [
    h('h5', {}, 'Numerical checks: are the gradients right?'),
    h(
      'p',
      {},
      'The core nudges single numbers of X and of each weight up and down by a small step h, watches how the objective L moves (the numeric slope n), and compares that with the gradient the backward pass computed (the analytic slope a). They must agree within τ, on the scale s:',
    ),
    mathSpan(math.tolerance, 'math display'),
    symbols([
      [math.symA, 'the gradient of L from the backward pass (analytic)'],
      [math.symN, 'the slope of L measured by moving one number up and down by h (numeric)'],
      [math.symS, 'the scale: the larger of 1, |a| and |n|, so big and small gradients are judged alike'],
      [math.symTau, 'the tolerance: how far apart a and n may be on that scale'],
    ]),
    h(
      'dl',
      { class: 'facts' },
      ...facts([
        ['Numbers checked', `X ${g.input_checks}, W_Q ${g.query_checks}, W_K ${g.key_checks}, W_V ${g.value_checks} (${g.checks} in all)`],
        ['Step and tolerance', h('bdi', { dir: 'ltr' }, `h = ${g.step.text}, τ = ${g.tolerance.text}`)],
        ['Largest difference found', h('bdi', { dir: 'ltr' }, g.max_error.text)],
        ['Result', g.passed ? 'the gradients agree' : `they do not agree${g.problem ? `: ${g.problem}` : ''}`],
      ]),
    ),
  ]);

  renderPart(
    refs.implementers,
    [evidence.parameter_names, evidence.initialization_seed, evidence.initialization_reproducible, evidence.initialization_independent, evidence.initialization_transactional, evidence.replay_bitwise, evidence.duplicate_name_rejection.expected_variant],
    () => [
      h('p', {}, 'Checks a library author cares about; a learner can skip them.'),
      h(
        'dl',
        { class: 'facts' },
        ...facts([
          ...evidence.parameter_names.map((name, i): [string, Node] => [`${branches[i].title}: parameter name`, dottedName(name)]),
          ['Parameter names', evidence.duplicate_name_rejection.expected_variant ? 'unique (a duplicate is rejected)' : 'unchecked'],
          ['The whole computation run twice', evidence.replay_bitwise ? 'the same bits both times' : 'different results'],
          [
            `Random starting weights from seed ${evidence.initialization_seed}`,
            `the same seed gives the same weights: ${yesNo(evidence.initialization_reproducible)}; the three weights differ: ${yesNo(evidence.initialization_independent)}; a refused request leaves the random generator where it was: ${yesNo(evidence.initialization_transactional)}`,
          ],
        ]),
      ),
    ],
  );
  if (refs.selected) explainCell(refs, refs.selected.tensor, refs.selected.index);
}

// ---- provenance: every computed cell explains itself ----

function cellsOf(root: HTMLElement, tensor: string, indices: number[]): HTMLElement[] {
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
  for (const cell of refs.root.querySelectorAll('td.source, td.target')) cell.classList.remove('source', 'target');
}

function resetLine(line: HTMLElement): void {
  delete line.dataset.shown;
  line.textContent = provenancePrompt;
}

// Highlights the cells `tensor[index]` was computed from and writes the core's computation under its table.
function explainCell(refs: DiagramRefs, tensor: ComputedKey, index: number): void {
  if (!refs.explain) return;
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
  for (const source of answer.sources) for (const cell of cellsOf(refs.root, source.tensor, source.indices)) cell.classList.add('source');
  for (const cell of cellsOf(refs.root, tensor, [index])) cell.classList.add('target');
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
    const index = [...table.querySelectorAll('td[data-index]')].indexOf(cell);
    if (refs.selected?.tensor === tensor && refs.selected.index === index && cell.classList.contains('target')) return;
    explainCell(refs, tensor, index);
  };
  const select = (event: Event) => {
    const cell = (event.target as Element | null)?.closest?.(computedCell);
    if (cell instanceof HTMLElement) selectCell(cell);
  };
  refs.root.addEventListener('focusin', select);
  refs.root.addEventListener('pointerover', select);
  // Leaving a table with the pointer gives the explanation back to the focused cell, if there is one.
  refs.root.addEventListener('pointerout', (event) => {
    const table = (event.target as Element | null)?.closest?.('table.computed');
    const focused = (refs.root.getRootNode() as ShadowRoot | Document).activeElement;
    if (!table || table.contains(event.relatedTarget as Node | null) || !(focused instanceof HTMLElement) || !focused.matches(computedCell)) return;
    selectCell(focused);
  });
  refs.root.addEventListener('click', select);
  refs.root.addEventListener('keydown', (event) => {
    const from = event.target;
    if (!(from instanceof HTMLElement) || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    if (!from.closest('table.matrix')) return;
    const target = arrowTarget(from, event.key);
    if (!target) return;
    event.preventDefault();
    focusCell(target);
  });
}

// Opens the folded evidence answering exercise `id` (or every fold).
export function openEvidence(refs: DiagramRefs, id?: string): void {
  for (const details of refs.folds) if (!id || details.dataset.evidenceFor?.split(' ').includes(id)) details.open = true;
}
