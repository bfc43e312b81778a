// Chapter 26's diagram: the shared input, three branch cards, what the views are for (the query–key scores
// as a look-ahead), the history contrast, independence, sizes and empty axes; and, as an optional part after
// the main path, reverse mode, the numerical checks, rejected inputs and the implementers' checks. Every
// value shown comes from the evidence object; `renderDiagram` is a function of (evidence, state).
import math from 'virtual:math';
import { h, math as mathSpan, part, partClass, symbols } from './dom';
import { markProduct, renderScoreFigure } from './score-figure';
import { valuePreviewParts } from './value-preview';
import { arrowTarget, cellIndexOf, editableTable, focusCell, matrixTable, tensorCaption } from './tables';
import { computedKeys } from './types';
import type { ComputedKey, EditableKey, EditableTensor, Evidence, LessonState, ProvenanceResponse, TensorEvidence, TensorKey } from './types';
import type { BitwiseChecks, GradcheckRules, GradcheckView } from './core-api';

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

// Rebuilds a container only when the evidence it shows changed (most edits leave these parts alone).
const shown = new WeakMap<HTMLElement, string>();
function renderPart(container: HTMLElement, evidence: unknown, build: () => (Node | string)[]): void {
  const key = JSON.stringify(evidence);
  if (shown.get(container) === key) return;
  shown.set(container, key);
  container.replaceChildren(...build());
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
  // The replay's verdict, in the implementers' facts: kept across their renders, filled by renderBitwise.
  replayVerdict: HTMLElement;
  // Asks the core where a computed cell comes from.
  readonly explain: Explain;
  // The gradcheck's rules, shown (with its other rows waiting) until the numbers on screen are checked.
  readonly gradcheckRules: GradcheckRules;
  selected?: { tensor: ComputedKey; index: number };
  inputShape: HTMLElement;
  // The next lesson's preview row (value-preview.ts), under the scores.
  valuePreview: HTMLElement;
  ownTokenPeaks: HTMLElement; // under the score figure: X Xᵀ's rows against S's, in the core's words
  branchFacts: Record<'query' | 'key' | 'value', HTMLElement>;
  loss: HTMLElement;
  history: HTMLElement;
  // The checks' cards are built whole here; a render fills only what the core's checks decide: the verdicts of
  // "change only W_Q" and "change only U_K" (or why there is nothing to change), and the gradcheck's figures.
  queryVerdicts: HTMLElement;
  upstreamChangeBody: HTMLElement;
  upstreamVerdicts: HTMLElement;
  checkFigures: HTMLElement;
  probes: HTMLElement;
  rejections: HTMLElement;
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
export function fold(exercises: string[], what: string, ...children: (Node | string)[]): HTMLDetailsElement {
  return h(
    'details',
    { class: 'evidence', 'data-evidence-for': exercises.join(' ') },
    h('summary', {}, `Show the evidence: ${what}`),
    ...children,
  );
}

function prediction(id: string): HTMLElement {
  return h('div', { class: 'prediction', 'data-prediction-for': id });
}

export function buildDiagram(idPrefix: string, explain: Explain, gradcheckRules: GradcheckRules): DiagramRefs {
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
  outputs.scores.id = `${idPrefix}-scores`; // names the score figure's caption (score-figure.ts)
  const explanations = perComputed((key) => h('p', { class: 'provenance', 'data-provenance': key, 'aria-live': 'polite' }, provenancePrompt));
  const explained = (label: string, key: ComputedKey) => [scroller(label, outputs[key]), explanations[key]];
  const predictions: Record<string, HTMLElement> = {};
  const predict = (id: string) => (predictions[id] = prediction(id));
  const inputShape = h('dl', { class: 'facts' });
  const valuePreview = h('section', { class: 'value-preview card' });
  const ownTokenPeaks = h('p', { class: 'own-token-peaks' });
  const branchFacts = { query: h('dl', { class: 'facts' }), key: h('dl', { class: 'facts' }), value: h('dl', { class: 'facts' }) };

  const branchCards = branches.map((branch) =>
    h(
      'li',
      // A part each (laid-out.ts): the three cards together took one frame of over 50 ms on a slow phone.
      { class: `card branch ${branch.role} ${partClass}`, 'data-branch': branch.role },
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
  const queryVerdicts = h('ul', { class: 'verdicts' });
  const independence = h(
    'section',
    { class: 'card' },
    h('h5', {}, 'Change only the query weight'),
    h('p', {}, 'The core adds 1 to W_Q[0,0], keeps everything else, and compares the new outputs bit for bit with the ones above.'),
    queryVerdicts,
  );
  const upstreamVerdicts = h('ul', { class: 'verdicts' });
  const upstreamChangeBody = h('div');
  const upstreamChange = h('section', { class: 'card' }, h('h5', {}, 'Change only the key upstream'), upstreamChangeBody);
  const probes = h('div');
  const rejections = h('div');
  const checkFigures = h('dl', { class: 'facts checks-pending' });
  const checks = h(
    'section',
    { class: 'card' },
    // Parts (laid-out.ts): the card whole took one frame of over 50 ms on a slow phone.
    part(
      h('h5', {}, 'Numerical checks: are the gradients right?'),
      h(
        'p',
        {},
        'The core moves single numbers of X and of each weight down and up by a small step, watches how the objective L moves (the numeric slope n), and compares that with the gradient the backward pass computed (the analytic slope a). They must agree within τ on the scale s, plus r, the most that rounding in computing L can move the numeric slope (so exact gradients pass at any scale):',
      ),
    ),
    part(mathSpan(math.tolerance, 'math display')),
    part(
      symbols([
        [math.symA, 'the gradient of L from the backward pass (analytic)'],
        [math.symN, 'the slope of L measured by moving one number down and up (numeric)'],
        [math.symS, 'the scale: the larger of 1, |a| and |n|, so big and small gradients are judged alike'],
        [math.symTau, 'the tolerance: how far apart a and n may be on that scale'],
        [math.symR, 'the rounding allowance (see the pass rule below)'],
      ]),
    ),
    checkFigures,
  );
  const counts = h('div');
  const divisibility = h('div');
  const implementers = h('div');
  const replayVerdict = h('span', { class: 'replay-verdict' });
  const link = (href: string, text: string) => h('a', { href }, text);
  const lookAheadHome = h('div', { class: 'look-ahead-home' });
  // Where the self-score experiment's optional part goes (lesson-view.ts).
  const selfScoreFurtherHome = h('div', { class: 'self-score-further-home' });

  // Optional reading (issue 38, a shorter main path): where attention's inputs come from opens the optional part,
  // and the checks of independence, sizes and empty axes follow it.
  const historyPart = part(
    h('h4', { id: 'history' }, 'Where attention’s inputs come from'),
    h(
      'p',
      {},
      'Attention is older than the Transformer. In the encoder–decoder translation model of ',
      link('https://arxiv.org/abs/1409.0473', 'Bahdanau, Cho and Bengio (2014)'),
      ', an encoder reads the source sentence into a sequence of annotations, one per source word, and a decoder writes the translation one word at a time. Before the decoder writes each output word, a small feed-forward network scores its previous hidden state against every annotation (additive scoring: both are projected, added, passed through tanh and reduced to one number). A softmax turns the scores into weights, and the weighted mix of the annotations is the context the decoder reads for that word.',
    ),
    h(
      'p',
      {},
      'The Transformer of ',
      link('https://arxiv.org/abs/1706.03762', 'Vaswani et al. (2017)'),
      ' scores with dot products instead (the scores you met in ',
      link('#views-for', 'what the views are for'),
      ') and calls the three roles queries, keys and values. Neither idea was new: ',
      link('https://arxiv.org/abs/1508.04025', 'Luong, Pham and Manning (2015)'),
      ' already scored with dot products, and ',
      link('https://arxiv.org/abs/1606.03126', 'key–value memory networks (Miller et al., 2016)'),
      ' kept separate keys for addressing and values for reading.',
    ),
    h(
      'details',
      { class: 'further-reading' },
      h('summary', {}, 'Further reading'),
      h(
        'ul',
        {},
        h('li', {}, link('https://arxiv.org/abs/1409.0473', 'D. Bahdanau, K. Cho, Y. Bengio: Neural Machine Translation by Jointly Learning to Align and Translate (2014)'), ', the additive attention described above.'),
        h('li', {}, link('https://arxiv.org/abs/1508.04025', 'M.-T. Luong, H. Pham, C. D. Manning: Effective Approaches to Attention-based Neural Machine Translation (2015)'), ', dot-product and other scoring functions.'),
        h('li', {}, link('https://arxiv.org/abs/1606.03126', 'A. Miller et al.: Key-Value Memory Networks for Directly Reading Documents (2016)'), ', a memory addressed by keys and read through values.'),
        h('li', {}, link('https://arxiv.org/abs/1706.03762', 'A. Vaswani et al.: Attention Is All You Need (2017)'), ', self-attention with queries, keys and values (section 3.2).'),
      ),
    ),
    predict('ch26-history'),
    fold(
      ['ch26-history'],
      'where attention’s inputs came from',
      h(
        'p',
        {},
        'In self-attention all three roles come from one and the same sequence: the queries, the keys and the values are three projections of the previous layer’s output X, exactly the three views this lesson computes. The Transformer’s decoder (the half that writes the output) also keeps an encoder–decoder attention, whose queries come from the decoder and whose keys and values come from the encoder.',
      ),
      history,
    ),
  );
  const checksOfSizes = part(
    h('h4', {}, 'Check independence, sizes and empty axes'),
    predict('ch26-change-query-only'),
    fold(['ch26-change-query-only'], 'change only W_Q', independence),
    predict('ch26-parameter-count'),
    fold(['ch26-parameter-count'], 'the weights’ scalars', counts),
    predict('ch26-divisibility'),
    fold(['ch26-divisibility'], 'the widths this layer accepted', divisibility),
    predict('ch26-empty-axes'),
    fold(['ch26-empty-axes'], 'empty axes', probes),
  );

  const root = h(
    'figure',
    { class: 'diagram', 'aria-labelledby': `${idPrefix}-diagram-title`, 'aria-describedby': `${idPrefix}-diagram-description` },
    h('h3', { id: `${idPrefix}-diagram-title` }, 'Split one hidden sequence into three learned views'),
    h(
      'p',
      { id: `${idPrefix}-diagram-description` },
      'One hidden-state sequence through the query, key and value projections. Every cell of X and of the three weights can be edited; the core recomputes everything below.',
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
      // Where the first-token question goes when the opening prediction is not shown.
      predict('ch26-first-token'),
      h('p', { class: 'feed-label' }, 'X feeds all three branches'),
    ),
    // The branch cards in a part of their own (each names its view's role): with the part above, one frame of
    // over 50 ms on a slow phone.
    part(
      scroller('Query, key and value branches', h('ol', { class: 'branches feed' }, ...branchCards)),
      h('p', { class: 'note' }, 'The three branches share coordinates (batch and token positions), not weights or feature values.'),
    ),
    lookAheadHome,
  );

  // What the views are for: the first use of Q and K, a look ahead at the next lesson's scores.
  const lookAhead = h(
    'section',
    { class: 'look-ahead part', 'aria-labelledby': 'views-for' },
    h('h4', { id: 'views-for' }, 'What the views are for'),
    h('p', {}, 'Before seeing what attention does with Q, K and V, say where this layer stops.'),
    predict('ch26-still-missing'),
    fold(
      ['ch26-still-missing'],
      'what attention does with Q, K and V',
      h(
        'p',
        {},
        'Each projection works on one token position at a time. V waits until the mixture: it carries the content to be mixed. The probabilities and the mixture are the next lesson; the scores can be computed now, from Q and K.',
      ),
    ),
    h('p', {}, 'A query and a key are compared by their dot product, the sum of their coordinates multiplied pairwise.'),
    predict('ch26-best-key'),
    fold(
      ['ch26-best-key'],
      'the query–key scores',
      h('p', {}, 'S[b,i,j] is the dot product of token i’s query with token j’s key in the same batch item b: S = Q Kᵀ, with the rows of every batch item stacked. These are raw dot products, before any scaling or softmax.'),
      // A figure of its own, which scrolls (if ever) inside itself and keeps its caption in view.
      outputs.scores,
      explanations.scores,
      ownTokenPeaks,
    ),
    // Two predictions on the scores: each answer and its numbers come from the core's explanation.
    predict('ch26-double-key-weight'),
    predict('ch26-key-bias'),
    fold(
      ['ch26-double-key-weight', 'ch26-key-bias'],
      'why a weight scales the scores and why there is no bias',
      h('p', {}, 'Each score qᵢ·kⱼ is a sum of products with one factor from the key, so scaling every key scales every score by the same factor; Q and V never read W_K. Try it: type each entry of W_K twice as large in the diagram, and the status line names what changed.'),
      h('p', {}, 'With a key bias b_K, a score becomes qᵢ·kⱼ + qᵢ·b_K: the added term depends on the query alone, so a whole row of scores moves by one number, and the next lesson’s softmax gives such a row the same probabilities. A key bias would be parameters that change nothing. A query bias b_Q adds b_Q·kⱼ, which differs from key to key: a fixed preference for some keys, whatever the query. The original Transformer has none here (its paper’s formulas; use_bias=False in its reference code, tensor2tensor); BERT and GPT-2 add one.'),
    ),
    predict('ch26-preview-weights'),
    fold(['ch26-preview-weights'], 'one row of the next lesson', valuePreview),
  );

  const deeper = h(
    'section',
    { class: 'deeper', 'data-part': 'deeper', 'aria-labelledby': 'going-deeper' },
    h('h3', { id: 'going-deeper' }, 'Going deeper (optional)'),
    h(
      'p',
      {},
      'The lesson’s main path ends above. This part is for learners who want to see where attention’s inputs come from, check independence, sizes and empty axes, follow the layer’s backward pass and check its gradients numerically, see which inputs it refuses, and run it at the size of real models. It uses the same numbers as ',
      link('#diagram', 'the diagram'),
      '; its upstream tensors U_Q, U_K and U_V can be edited here, everything else there.',
    ),
    historyPart,
    checksOfSizes,
    selfScoreFurtherHome,
    part(
      h('h4', {}, 'Reverse mode: one input, three paths back'),
      h(
        'p',
        {},
        'Inside a whole model, the layers after this one turn Q, K and V into a loss, and backpropagation hands this layer one tensor per output: how much the loss would change per unit change of each number of Q, K and V. Call these upstream gradients U_Q, U_K and U_V. To run this layer’s backward pass on its own, fix U and take the one scalar objective whose gradient with respect to Q is exactly U_Q (with respect to K, U_K; to V, U_V):',
      ),
      mathSpan(math.objective, 'math display'),
      symbols([[math.symU, 'upstream gradients: what the later layers would send back to Q, K and V (edit them below)']]),
      h('p', {}, 'Its gradients with respect to X and to the three weights are then exactly what this layer would pass back inside the model. The core runs one backward pass.'),
    ),
    // Parts (laid-out.ts): the prose and formula, the three tables of inputs and the question together took
    // one frame of over 50 ms on a slow phone.
    part(
      h(
        'div',
        { class: 'upstreams merge' },
        ...(['query_upstream', 'key_upstream', 'value_upstream'] as const).map((key) =>
          h('div', { class: `card upstream ${key.split('_')[0]}` }, scroller(labels[key], slots[key].element), errorFor(key)),
        ),
      ),
    ),
    part(
      loss,
      predict('ch26-upstream-key'),
      fold(
        ['ch26-upstream-key'],
        'the gradients of X and of the weights',
        symbols([[math.symBar, 'gradients of the objective L with respect to X and to each weight']]),
        upstreamChange,
        h('p', { class: 'merge-label' }, 'Three paths come back into X̄'),
        h('h5', {}, 'Combined input gradient'),
        h('p', {}, 'X feeds all three branches, so its gradient is the sum of three paths:'),
        mathSpan(math.inputGradient, 'math display'),
        h('div', { class: 'card shared-input gradient' }, ...explained('Input gradient', 'input_gradient')),
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
    ),
    part(checks),
    part(
      h('h4', {}, 'Inputs the layer rejects'),
      predict('ch26-rank-two'),
      fold(['ch26-rank-two'], 'inputs the layer rejects', rejections),
      h('details', { class: 'implementers' }, h('summary', {}, 'For implementers: parameter names, replay and seeded initialisation'), implementers),
    ),
  );

  lookAheadHome.append(lookAhead);
  const pathOrder = [root, deeper].flatMap((container) => [...container.querySelectorAll<HTMLElement>('[data-prediction-for]')].map((home) => home.dataset.predictionFor!));

  // The three branch cards fold their outputs together: opening one opens the others.
  const folds = [root, lookAhead, deeper].flatMap((container) => [...container.querySelectorAll<HTMLDetailsElement>('details.evidence')]);
  for (const details of folds) {
    details.addEventListener('toggle', () => {
      if (!details.open) return;
      for (const other of folds) if (other !== details && other.dataset.evidenceFor === details.dataset.evidenceFor) other.open = true;
    });
  }
  return {
    explain,
    gradcheckRules,
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
    replayVerdict,
    inputShape,
    valuePreview,
    ownTokenPeaks,
    branchFacts,
    loss,
    history,
    queryVerdicts,
    upstreamChangeBody,
    upstreamVerdicts,
    checkFigures,
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

function facts(entries: [string, string | Node][]): Node[] {
  return entries.flatMap(([term, detail]) => [h('dt', {}, term), h('dd', {}, detail)]);
}

function yesNo(value: boolean): string {
  return value ? 'yes' : 'no';
}

// The gradcheck card's figures once the core has checked the numbers on screen (it leaves the gradcheck out of an
// evaluation and checks once the page is idle: diagram-section.ts). Until then they say they are being checked,
// so that the card keeps its place and nearly its height. Its prose and formula are built once (buildDiagram):
// an edit that followed shown checks used to lay the formula out again.
export function renderChecks(refs: DiagramRefs, g: GradcheckView | undefined): void {
  const rules = refs.gradcheckRules;
  const waiting = 'being checked…';
  const ltr = (text: string) => h('bdi', { dir: 'ltr' }, text);
  refs.checkFigures.classList.toggle('checks-pending', !g);
  renderPart(refs.checkFigures, g ?? 'checking', () =>
    facts([
      // The rules as the core applies them, in its words.
      ['Step', rules.step_rule],
      ['Pass rule', rules.pass_rule],
      ['Rounding bound ε on L at these numbers', g ? ltr(g.rounding_bound.text) : waiting],
      ['Numbers judged', g ? `X ${g.input_checks}, W_Q ${g.query_checks}, W_K ${g.key_checks}, W_V ${g.value_checks} (${g.checks} in all)` : waiting],
      ...(g && g.unjudged > 0 ? [['Numbers probed but not judged (rounding in L could hide any error there)', `${g.unjudged}`] as [string, string]] : []),
      ['Largest difference found, |a/s − n/s|', g ? ltr(g.max_error.text) : waiting],
      ['Largest allowance τ + r it was held to', g ? ltr(g.max_allowance.text) : waiting],
      ['Result', g ? g.verdict : waiting],
    ]),
  );
}

// The bitwise checks of the numbers on screen: change only W_Q, change only U_K, and the whole computation run
// twice. The core leaves them out of an evaluation and checks once the page is idle, with the gradcheck
// (diagram-section.ts); until then each verdict says it is being checked, in the place it will take.
export function renderBitwise(refs: DiagramRefs, b: BitwiseChecks | undefined): void {
  const waiting = 'being checked…';
  const verdict = (label: string, changed: boolean | undefined, text: (changed: boolean) => string) =>
    h('li', { class: changed === undefined ? 'verdict checks-pending' : `verdict ${changed ? 'changed' : 'same'}` }, `${label}: ${changed === undefined ? waiting : text(changed)}`);
  renderPart(refs.queryVerdicts, b ? [b.query_changed, b.key_unchanged, b.value_unchanged] : 'checking', () => [
    verdict('Query output', b?.query_changed, (changed) => (changed ? 'changed' : 'unchanged: adding 1 to W_Q[0,0] moved no query value here')),
    verdict('Key output', b && !b.key_unchanged, (changed) => (changed ? 'changed' : 'unchanged, bit for bit')),
    verdict('Value output', b && !b.value_unchanged, (changed) => (changed ? 'changed' : 'unchanged, bit for bit')),
  ]);

  const changed = (yes: boolean) => (yes ? 'changed' : 'unchanged, bit for bit');
  const nothingToChange = !!b?.key_upstream_empty;
  renderPart(refs.upstreamChangeBody, nothingToChange, () =>
    nothingToChange
      ? [h('p', {}, 'At these sizes U_K has no cell to change (an axis is empty), so there is nothing to compare.')]
      : [h('p', {}, 'The core adds 1 to U_K[0,0,0], keeps everything else, runs the backward pass again and compares the gradients bit for bit with the ones below.'), refs.upstreamVerdicts],
  );
  renderPart(refs.upstreamVerdicts, b ? [b.key_gradient_changed, b.query_gradient_unchanged, b.value_gradient_unchanged, b.input_gradient_changed] : 'checking', () => [
    verdict('W̄_K', b?.key_gradient_changed, changed),
    verdict('W̄_Q', b && !b.query_gradient_unchanged, changed),
    verdict('W̄_V', b && !b.value_gradient_unchanged, changed),
    verdict('X̄', b?.input_gradient_changed, changed),
  ]);

  refs.replayVerdict.textContent = b ? (b.replay_bitwise ? 'the same bits both times' : 'different results') : waiting;
}

export function renderDiagram(refs: DiagramRefs, evidence: Evidence, state: LessonState): void {
  const t = evidence;
  renderPart(refs.inputShape, t.input.shape_text, () =>
    facts([
      ['Shape of X', h('bdi', { dir: 'ltr' }, t.input.shape_text)],
      ['Bias policy', 'bias = false (no bias in any branch)'],
    ]),
  );
  const names = t.token_names;
  for (const key of Object.keys(refs.slots) as EditableKey[]) refs.slots[key].render(state[key], t[key].shape_text, names);

  branches.forEach((branch) => {
    renderPart(refs.branchFacts[branch.role], [t[branch.weight].shape_text, t[branch.output].shape_text], () =>
      facts([
        ['Weight shape', h('bdi', { dir: 'ltr' }, t[branch.weight].shape_text)],
        ['Output shape', h('bdi', { dir: 'ltr' }, t[branch.output].shape_text)],
      ]),
    );
    renderOutput(refs.outputs[branch.output], branch.output, t[branch.output], names);
  });
  renderScoreFigure(refs.outputs.scores, t);
  renderPart(refs.valuePreview, [t.value_preview, t.token_names, t.head_width], () => valuePreviewParts(t));
  renderPart(refs.ownTokenPeaks, t.own_token_peaks ?? null, () => [t.own_token_peaks ?? '']);

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
    renderOutput(refs.outputs[key], key, t[key], names);
  }

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

  renderChecks(refs, evidence.gradcheck);

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
          ['The whole computation run twice', refs.replayVerdict],
          [
            `Random starting weights from seed ${evidence.initialization_seed}`,
            `the same seed gives the same weights: ${yesNo(evidence.initialization_reproducible)}; the three weights differ: ${yesNo(evidence.initialization_independent)}; a refused request leaves the random generator where it was: ${yesNo(evidence.initialization_transactional)}`,
          ],
        ]),
      ),
    ],
  );
  renderBitwise(refs, evidence.bitwise);
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
