// The chapter's nine prediction exercises. The learner answers first; the core checks the answer against
// values it computed, and only then does the page reveal the answer and say why.
import { h } from './dom';
import type { ExerciseCheck } from './types';

type Blank = { label: string; placeholder: string };
type Choice = { id: string; label: string };

export interface ExerciseSpec {
  id: string;
  question: string;
  blanks?: Blank[];
  choices?: Choice[];
  why: string | (() => string); // a function when the reason quotes computed values
}

function whyText(spec: ExerciseSpec): string {
  return typeof spec.why === 'string' ? spec.why : spec.why();
}

export const exercises: ExerciseSpec[] = [
  {
    id: 'ch26-output-shapes',
    question: 'X has shape [4, 7, 3] and the head width is 2. What shape does each of Q, K and V have?',
    blanks: [{ label: 'Shape of each output', placeholder: '[B, T, d_head]' }],
    why: 'Each branch maps only the last axis, 3 features to 2; batch and token axes pass through. The core ran the layer on a [4, 7, 3] input to get this.',
  },
  {
    id: 'ch26-first-token',
    question: 'For the frozen fixture, compute q₀, k₀ and v₀: the first token [1, 2, −1] times W_Q, W_K and W_V.',
    blanks: [
      { label: 'q₀', placeholder: '[a, b]' },
      { label: 'k₀', placeholder: '[a, b]' },
      { label: 'v₀', placeholder: '[a, b]' },
    ],
    why: 'Row 0 of each output is the first token times that branch’s weight; the three weights differ, so the three views differ.',
  },
  {
    id: 'ch26-change-query-only',
    question: 'Can changing only W_Q change K or V?',
    choices: [
      { id: 'yes', label: 'Yes' },
      { id: 'no', label: 'No' },
    ],
    why: 'K and V are computed from X, W_K and W_V only. The core changed W_Q[0,0] and compared K and V bit for bit: unchanged.',
  },
  {
    id: 'ch26-parameter-count',
    question: 'How many trainable scalars do three bias-free [3, 2] weights hold?',
    blanks: [{ label: 'Number of scalars', placeholder: 'a whole number' }],
    why: 'Three weights of 3 × 2 entries each, and no bias; the layer reports this parameter count.',
  },
  {
    id: 'ch26-empty-axes',
    question: 'What shape does each branch give for an input of shape [0, 2, 3], and for [2, 0, 3]?',
    blanks: [
      { label: 'Output shape for [0, 2, 3]', placeholder: '[B, T, d_head]' },
      { label: 'Output shape for [2, 0, 3]', placeholder: '[B, T, d_head]' },
    ],
    why: 'An empty batch or token axis is a valid shape: the feature axis still maps 3 to 2, and backward still runs.',
  },
  {
    id: 'ch26-rank-two',
    question: 'Why does this layer reject a rank-two input of shape [T, d_model]?',
    choices: [
      { id: 'explicit-axes', label: 'The layer keeps batch and token axes explicit, so it accepts exactly [batch, tokens, d_model].' },
      { id: 'cannot-multiply', label: 'A [T, 3] matrix cannot be multiplied by a [3, 2] weight.' },
      { id: 'needs-bias', label: 'A rank-two input would need a bias.' },
    ],
    why: 'A plain Linear layer would accept [T, d_model]; this wrapper refuses it on purpose so that batch and token axes can never be confused.',
  },
  {
    id: 'ch26-divisibility',
    question: 'Must d_model be divisible by d_head in this chapter?',
    choices: [
      { id: 'yes', label: 'Yes' },
      { id: 'no', label: 'No' },
    ],
    why: 'The fixture itself has d_model = 3 and d_head = 2, and the layer accepts it. Divisibility only matters when multi-head attention splits d_model into heads (chapter 30).',
  },
  {
    id: 'ch26-history',
    question: 'Which mechanism takes its attention inputs from two source streams, and which from one?',
    choices: [
      { id: 'additive-two-self-one', label: 'Additive encoder–decoder attention uses two (decoder state and encoder annotations); self-attention projects one sequence three ways.' },
      { id: 'additive-one-self-two', label: 'Additive attention uses one sequence; self-attention uses two.' },
      { id: 'both-two', label: 'Both use two separate streams.' },
    ],
    why: 'Bahdanau-style attention scores encoder annotations against the previous decoder state; self-attention feeds one previous-layer sequence to all three roles.',
  },
  {
    id: 'ch26-still-missing',
    question: 'What is still missing before Q, K and V form an attention output?',
    choices: [
      { id: 'scores-probabilities-mixture', label: 'Query–key scores, their probabilities, and the weighted mixture of values.' },
      { id: 'bias', label: 'A bias in each projection.' },
      { id: 'fourth-projection', label: 'A fourth projection of X.' },
    ],
    why: 'These projections compare nothing: chapter 27 computes scores from queries and keys, turns them into probabilities and mixes the values.',
  },
];

export interface AnswerRecord {
  id: string;
  responses: string[];
  check: ExerciseCheck & { ok: true };
}

// How much the page reveals: after a check (the default), never (only right or wrong), or always (a
// teacher's copy with every answer shown).
export type Reveal = 'after-check' | 'never' | 'always';

export interface ExerciseOptions {
  idPrefix: string;
  number: number; // shown before the question when > 0
  check: (id: string, responses: string[]) => ExerciseCheck;
  reveal: () => Reveal;
  onAnswer: (record: AnswerRecord, replayed: boolean) => void;
}

export interface ExerciseView {
  form: HTMLFormElement;
  // Puts saved responses back and checks them again (for progress kept across reloads).
  replay(responses: string[]): void;
}

function answerText(spec: ExerciseSpec, expected: string): string {
  return spec.choices?.find((choice) => choice.id === expected)?.label ?? expected;
}

// One exercise: a form with its blanks or choices, a Check button, and feedback after checking.
export function renderExercise(spec: ExerciseSpec, options: ExerciseOptions): ExerciseView {
  const feedback = h('div', { class: 'feedback', 'aria-live': 'polite', 'data-feedback': spec.id });
  const inputs: HTMLInputElement[] = [];
  const fields: Node[] = [];
  const name = `${options.idPrefix}-${spec.id}`;
  spec.blanks?.forEach((blank, i) => {
    const id = `${name}-blank-${i}`;
    const input = h('input', { id, type: 'text', placeholder: blank.placeholder, autocomplete: 'off', spellcheck: 'false' });
    inputs.push(input);
    fields.push(h('p', { class: 'blank' }, h('label', { for: id }, blank.label), ' ', input));
  });
  if (spec.choices) {
    const group = h('fieldset', { class: 'choices' }, h('legend', {}, 'Choose one'));
    for (const choice of spec.choices) {
      const id = `${name}-choice-${choice.id}`;
      const input = h('input', { id, type: 'radio', name, value: choice.id });
      inputs.push(input);
      group.append(h('p', {}, input, ' ', h('label', { for: id }, choice.label)));
    }
    fields.push(group);
  }
  const teacherAnswer = h('div', { class: 'teacher-answer', 'data-answer': spec.id, hidden: true });
  const form = h(
    'form',
    { class: 'exercise', 'data-exercise': spec.id, 'aria-labelledby': `${name}-question` },
    h('h4', { id: `${name}-question` }, options.number > 0 ? `${options.number}. ${spec.question}` : spec.question),
    ...fields,
    h('button', { type: 'submit' }, 'Check'),
    feedback,
    teacherAnswer,
  );
  if (options.reveal() === 'always') {
    // The answer is computed now, with no response: the core returns it whatever the response.
    const computed = options.check(spec.id, spec.choices ? [''] : (spec.blanks ?? []).map(() => ''));
    if (computed.ok) {
      teacherAnswer.hidden = false;
      teacherAnswer.append(h('p', {}, h('strong', {}, 'Answer: '), h('bdi', { dir: 'ltr' }, answerText(spec, computed.expected))), h('p', {}, whyText(spec)));
    }
  }

  const responsesNow = () => (spec.choices ? [inputs.find((input) => input.checked)?.value ?? ''] : inputs.map((input) => input.value));
  const submit = (replayed: boolean) => {
    const responses = responsesNow();
    const result = options.check(spec.id, responses);
    if (!result.ok) {
      feedback.replaceChildren(h('p', { class: 'verdict-text wrong' }, result.error.message));
      return;
    }
    if (result.problem) {
      feedback.replaceChildren(h('p', { class: 'verdict-text wrong' }, `Not read: ${result.problem}`));
      return;
    }
    const verdict = h('p', { class: `verdict-text ${result.correct ? 'right' : 'wrong'}` }, result.correct ? '✓ Correct.' : '✗ Not quite.');
    if (options.reveal() === 'never') feedback.replaceChildren(verdict);
    else feedback.replaceChildren(verdict, h('p', {}, h('strong', {}, 'Answer: '), h('bdi', { dir: 'ltr' }, answerText(spec, result.expected))), h('p', {}, whyText(spec)));
    form.dataset.answered = result.correct ? 'correct' : 'incorrect';
    options.onAnswer({ id: spec.id, responses, check: result }, replayed);
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit(false);
  });
  return {
    form,
    replay(responses) {
      if (spec.choices) for (const input of inputs) input.checked = input.value === responses[0];
      else inputs.forEach((input, i) => (input.value = responses[i] ?? ''));
      submit(true);
    },
  };
}
