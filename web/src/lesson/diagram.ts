// Chapter 26's diagram: the shared input, three branch cards, the history contrast, reverse mode,
// independence, empty axes, rejected inputs and the numerical checks. Every value shown comes from the
// evidence object; `renderDiagram` is a function of (evidence, state).
import math from 'virtual:math';
import { h, math as mathSpan } from './dom';
import { editableTable, matrixTable } from './tables';
import type { EditableKey, EditableTensor, Evidence, LessonState, TensorEvidence, TensorKey } from './types';

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
    cue: 'Solid border: query',
    formula: math.queryBranch,
    weight: 'query_weight',
    output: 'query',
  },
  {
    role: 'key',
    title: 'Key projection',
    question: 'Key: how can this position be matched?',
    cue: 'Dashed border: key',
    formula: math.keyBranch,
    weight: 'key_weight',
    output: 'key',
  },
  {
    role: 'value',
    title: 'Value projection',
    question: 'Value: what content can this position contribute?',
    cue: 'Double border: value',
    formula: math.valueBranch,
    weight: 'value_weight',
    output: 'value',
  },
] as const;

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
    if (caption) caption.textContent = `${labels[this.key]}, shape ${shape_text}`;
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
    const fresh = matrixTable(key, labels[key], tensor);
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
  outputs: Record<'query' | 'key' | 'value' | 'input_gradient' | 'query_weight_gradient' | 'key_weight_gradient' | 'value_weight_gradient', HTMLElement>;
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
  const outputs = {
    query: h('div', { class: 'slot' }),
    key: h('div', { class: 'slot' }),
    value: h('div', { class: 'slot' }),
    input_gradient: h('div', { class: 'slot' }),
    query_weight_gradient: h('div', { class: 'slot' }),
    key_weight_gradient: h('div', { class: 'slot' }),
    value_weight_gradient: h('div', { class: 'slot' }),
  };
  const inputShape = h('dl', { class: 'facts' });
  const branchFacts = { query: h('dl', { class: 'facts' }), key: h('dl', { class: 'facts' }), value: h('dl', { class: 'facts' }) };

  const branchCards = branches.map((branch) =>
    h(
      'li',
      { class: `card branch ${branch.role}`, 'data-branch': branch.role },
      h('p', { class: 'cue-chip' }, branch.cue),
      h('h4', {}, branch.title),
      h('p', { class: 'role-question' }, branch.question),
      h('p', {}, mathSpan(branch.formula)),
      branchFacts[branch.role],
      scroller(`${branch.title}: weight`, slots[branch.weight].element),
      errorFor(branch.weight),
      scroller(`${branch.title}: output`, outputs[branch.output]),
    ),
  );

  const loss = h('p', { class: 'loss' });
  const history = h('div');
  const independence = h('div');
  const probes = h('div');
  const rejections = h('div');
  const checks = h('div');

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
      { class: 'cue-list', 'aria-label': 'How the borders tell the branches apart' },
      h('li', { class: 'cue-chip shared' }, 'Thick top border: shared input'),
      h('li', { class: 'cue-chip query' }, 'Solid border: query'),
      h('li', { class: 'cue-chip key' }, 'Dashed border: key'),
      h('li', { class: 'cue-chip value' }, 'Double border: value'),
    ),
    h('h4', {}, 'Preserve positions while changing the feature space'),
    h(
      'section',
      { class: 'card shared-input', 'aria-label': 'Shared hidden-state input' },
      h('h4', {}, 'Shared hidden-state input'),
      inputShape,
      scroller('Shared input X', slots.input.element),
      errorFor('input'),
    ),
    h('p', { class: 'arrow', 'aria-hidden': 'true' }, '↓'),
    scroller('Query, key and value branches', h('ol', { class: 'branches' }, ...branchCards)),
    h('p', { class: 'note' }, 'The three branches share coordinates (batch and token positions), not weights or feature values.'),
    h('h4', {}, 'Change from two attention sources to one'),
    history,
    h('h4', {}, 'Reverse mode: one input, three paths back'),
    h(
      'p',
      {},
      'Fix three upstream tensors U_Q, U_K, U_V (the gradients later layers would send back) and take the scalar objective below. The core runs one backward pass.',
    ),
    mathSpan(math.objective, 'math display'),
    h(
      'div',
      { class: 'upstreams' },
      ...(['query_upstream', 'key_upstream', 'value_upstream'] as const).map((key) =>
        h('div', { class: `card upstream ${key.split('_')[0]}` }, scroller(labels[key], slots[key].element), errorFor(key)),
      ),
    ),
    loss,
    h('h5', {}, 'Combined input gradient'),
    h('p', {}, 'X feeds all three branches, so its gradient is the sum of three paths:'),
    mathSpan(math.inputGradient, 'math display'),
    scroller('Input gradient', outputs.input_gradient),
    h('h5', {}, 'Branch-local weight gradients'),
    h('p', {}, 'Flatten batch and token into one row axis (BT); each weight gets only its own branch’s gradient:'),
    mathSpan(math.weightGradient, 'math display'),
    scroller(
      'Weight gradients of the three branches',
      h(
        'ol',
        { class: 'branches gradients' },
        h('li', { class: 'card branch query' }, scroller('Query weight gradient', outputs.query_weight_gradient)),
        h('li', { class: 'card branch key' }, scroller('Key weight gradient', outputs.key_weight_gradient)),
        h('li', { class: 'card branch value' }, scroller('Value weight gradient', outputs.value_weight_gradient)),
      ),
    ),
    h('h4', {}, 'Check independence, empty axes and boundaries'),
    independence,
    probes,
    rejections,
    checks,
  );
  return { root, slots, outputs, inputShape, branchFacts, loss, history, independence, probes, rejections, checks, fieldErrors };
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

  branches.forEach((branch, i) => {
    renderPart(refs.branchFacts[branch.role], [evidence.parameter_names[i], t[branch.weight].shape_text, t[branch.output].shape_text], () =>
      facts([
        ['Stable parameter', dottedName(evidence.parameter_names[i])],
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

  const g = evidence.gradcheck;
  renderPart(refs.checks, [g, evidence.initialization_seed, evidence.initialization_reproducible, evidence.initialization_independent, evidence.initialization_transactional, evidence.replay_bitwise, evidence.parameter_count, evidence.duplicate_name_rejection.expected_variant], () => [
    h(
      'section',
      { class: 'card' },
      h('h5', {}, 'Numerical checks'),
      h(
        'dl',
        { class: 'facts' },
        ...facts([
          ['Coordinates checked by central differences', `X ${g.input_checks}, W_Q ${g.query_checks}, W_K ${g.key_checks}, W_V ${g.value_checks} (${g.checks} in all)`],
          ['Step and tolerance', h('bdi', { dir: 'ltr' }, `h = ${g.step.text}, τ = ${g.tolerance.text}`)],
          ['Largest error', h('bdi', { dir: 'ltr' }, g.max_error.text)],
          ['Gradcheck', g.passed ? 'passed' : `failed${g.problem ? `: ${g.problem}` : ''}`],
          ['Replay of the whole computation', evidence.replay_bitwise ? 'bit for bit identical' : 'mismatch'],
          ['Parameter names', evidence.duplicate_name_rejection.expected_variant ? 'unique (a duplicate is rejected)' : 'unchecked'],
          [
            `Initialisation with seed ${evidence.initialization_seed}`,
            `reproducible: ${yesNo(evidence.initialization_reproducible)}; independent weights: ${yesNo(evidence.initialization_independent)}; a rejected call leaves the generator untouched: ${yesNo(evidence.initialization_transactional)}`,
          ],
          ['Trainable scalars', `${evidence.parameter_count}`],
        ]),
      ),
      mathSpan(math.tolerance, 'math display'),
    ),
  ]);
}
