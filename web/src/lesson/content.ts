// The lesson's prose sections around the diagram: the worked prediction, the forward rule with its shape
// contract, and what comes next. Numbers inside them come from the evidence.
import math from 'virtual:math';
import { nameTokenRows } from './diagram';
import { h, math as mathSpan, part, setText, symbols } from './dom';
import { exerciseProse } from './exercises';
import { matrixTable } from './tables';
import { joinWords } from './words';
import type { Evidence } from './types';

export function renderIntro(): HTMLElement {
  return h(
    'header',
    { class: 'intro' },
    h('h2', {}, 'Create query, key and value views'),
    h(
      'p',
      {},
      'Self-attention starts by giving one hidden-state sequence three learned views: queries, keys and values. Each view is the same sequence multiplied by its own weight, with no bias, as in the original Transformer. Every number on this page is computed by the lesson’s C++ core, running in your browser as WebAssembly.',
    ),
  );
}

// The numbers the first question asks about (the frozen fixture, or what is on screen), before the answer: the
// learner predicts q₀, k₀, v₀ first. `question` is where the element puts the first-token question (the one form
// asking it) while this section is shown; `anotherOne`, the control that draws a new problem. The tables follow
// the numbers on screen (show).
export function renderWorkedPrediction(fixture: Evidence, question: HTMLElement, anotherOne: HTMLElement): { element: HTMLElement; show(evidence: Evidence, edited: boolean): void } {
  const words = h('p', {});
  const tables = h('div', { class: 'worked-numbers' });
  const show = (t: Evidence, edited: boolean) => {
    setText(words, `One batch of token states, for the words ${joinWords(t.token_names.map((word) => `“${word}”`), 'and')}, and three weights that project them. Multiply the first token by each weight before you read on: the diagram below keeps Q, K and V folded until you check your answers (or ask to see them).`);
    tables.replaceChildren(fixtureTables(t, 'data-fixture-tensor', edited ? 'on screen' : 'fixture'));
  };
  show(fixture, false);
  const element = h(
    'section',
    { class: 'worked', 'aria-labelledby': 'qkv-worked-title' },
    h('h3', { id: 'qkv-worked-title' }, 'Predict three outputs from one sequence'),
    // Parts, each laid out in a frame of its own (laid-out.ts).
    part(words, tables),
    part(
      question,
      anotherOne,
      h(
        'p',
        {},
        'The three answers differ because the three weights differ: separate weights let each role learn its own representation, while batch and token positions stay aligned.',
      ),
    ),
  );
  return { element, show };
}

// “fish”, “fish” and “dogs”, “a”, “b” and “c”.
// The input and weights the first question asks about. `whose`: "fixture", or "on screen" once they changed.
function fixtureTables(t: Evidence, attribute: string, whose = 'fixture'): HTMLElement {
  const input = matrixTable('input', `X (${whose === 'fixture' ? 'fixture input' : whose})`, t.input, attribute);
  nameTokenRows(input, t.input.shape, t.token_names);
  return h(
    'div',
    { class: 'worked-tables' },
    input,
    matrixTable('query_weight', `W_Q (${whose})`, t.query_weight, attribute),
    matrixTable('key_weight', `W_K (${whose})`, t.key_weight, attribute),
    matrixTable('value_weight', `W_V (${whose})`, t.value_weight, attribute),
  );
}

// What a question needs beside it when it sits in the exercises list, away from the part of the lesson that
// sets it up (sections without the opening prediction or the diagram): the fixture's numbers for the
// first-token question, a sentence for the others that need one. Null when the question stands alone.
export function renderExerciseContext(id: string, evidence: Evidence): HTMLElement | null {
  const context = exerciseProse[id]?.context;
  if (!context) return null;
  return h(
    'div',
    { class: 'exercise-context', 'data-context-for': id },
    h('p', {}, context),
    ...(id === 'ch26-first-token' ? [fixtureTables(evidence, 'data-context-tensor')] : []),
  );
}

export function renderForwardRule(): HTMLElement {
  return h(
    'section',
    { class: 'rule', 'aria-labelledby': 'qkv-rule-title' },
    h('h3', { id: 'qkv-rule-title' }, 'Project the last axis three ways'),
    // Parts, each laid out in a frame of its own (laid-out.ts): typeset math is slow to lay out.
    part(h('p', {}, 'The whole forward rule:'), mathSpan(math.forwardRule, 'math display')),
    part(h('p', {}, 'and its shape contract:'), mathSpan(math.inputShape, 'math display')),
    part(mathSpan(math.weightShape, 'math display')),
    part(
      mathSpan(math.outputShape, 'math display'),
      h('p', {}, 'Each branch applies the same last-axis matrix product independently at every batch item and token position.'),
    ),
    part(
      symbols([
        [math.symX, 'the hidden-state tensor entering self-attention'],
        [math.symB, 'the batch size'],
        [math.symT, 'the number of token positions'],
        [math.symDModel, 'the input feature width'],
        [math.symDHead, 'the output width of this single head'],
        [math.symWeights, 'three independent learned weights, no bias'],
      ]),
    ),
  );
}

export function renderNext(): HTMLElement {
  return h(
    'section',
    { class: 'next', 'aria-labelledby': 'qkv-next-title' },
    h('h3', { id: 'qkv-next-title' }, 'Next: compare queries with keys and mix values'),
    h(
      'p',
      {},
      'This layer turns a hidden sequence of shape [B, T, d_model] into separate Q, K and V of shape [B, T, d_head]. The next lesson builds one attention head from these three views.',
    ),
  );
}
