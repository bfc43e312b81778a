// The lesson's prose sections around the diagram: the worked prediction, the forward rule with its shape
// contract, and what comes next. Numbers inside them come from the evidence.
import math from 'virtual:math';
import { nameTokenRows } from './diagram';
import { BuiltFrom, h, type Child, holding, keptIfSame, math as mathSpan, part, partClass, placeChildren, setText, shellIfSame, symbols } from './dom';
import { exerciseProse } from './exercises';
import { matrixTable } from './tables';
import { joinWords } from './words';
import type { Evidence } from './types';

// The lesson's article, empty: the prerendered opening's and the element's view's (which adopts the former's).
export const lessonArticle = (...children: Child[]): HTMLElement => h('article', { class: 'lesson', lang: 'en', part: 'lesson' }, ...children);

// The heading and what the lesson is, with the line that says, when it comes to that, that the learner's answers
// are not being kept (host-bridge.ts): empty until needed, a live region from the start so that the words are read
// out when they come.
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
    h('p', { class: 'not-kept', role: 'status' }),
  );
}

function workedWords(t: Evidence): string {
  return `One batch of token states, for the words ${joinWords(t.token_names.map((word) => `“${word}”`), 'and')}, and three weights that project them. Multiply the first token by each weight before you read on: the diagram below keeps Q, K and V folded until you check your answers (or ask to see them).`;
}

const workedTitleId = 'qkv-worked-title';

// The opening prediction's two parts (dom.ts part), each with a class of its own by which a prerendered one is found:
// the part that gives the numbers (the words and the tables), and the part that asks about them (the question,
// another problem, and why the answers differ).
const givenPart = 'worked-given';
export const askedPart = 'worked-asked';
const workedPart = (name: string): HTMLElement => h('div', { class: `${partClass} ${name}` });

// The numbers the first question asks about (the frozen fixture, or what is on screen), before the answer: the
// learner predicts q₀, k₀, v₀ first. `question` is where the element puts the first-token question (the one form
// asking it) while this section is shown; `anotherOne`, the control that draws a new problem. The tables follow
// the numbers on screen (show). `prerendered`: this section as the build prerendered it (opening.ts), whose nodes
// are kept where they say what these would (prerendered.ts); `question` and `anotherOne` are the caller's to adopt.
export function renderWorkedPrediction(fixture: Evidence, question: HTMLElement, anotherOne: HTMLElement, prerendered: Element | null = null): { element: HTMLElement; show(evidence: Evidence, edited: boolean): void } {
  // Each prerendered counterpart found by what it is, not where it sits: a layout change cannot pair the wrong nodes.
  const find = (selector: string) => prerendered?.querySelector(`:scope > ${selector}`) ?? null;
  const prerenderedTables = find(`.${givenPart} > .worked-numbers`);
  const madeWords = h('p', { class: 'worked-words' });
  setText(madeWords, workedWords(fixture));
  const words = keptIfSame(madeWords, find(`.${givenPart} > p.worked-words`));
  const numbers = fixtureTables('data-fixture-tensor', prerenderedTables?.querySelector(':scope > .worked-tables'));
  const show = (t: Evidence, edited: boolean) => {
    setText(words, workedWords(t));
    numbers.show(t, edited);
  };
  show(fixture, false);
  const tables = holding(h('div', { class: 'worked-numbers' }), prerenderedTables, [numbers.element]);
  const why = h('p', { class: 'worked-why' }, 'The three answers differ because the three weights differ: separate weights let each role learn its own representation, while batch and token positions stay aligned.');
  const element = holding(h('section', { class: 'worked', 'aria-labelledby': workedTitleId }), prerendered, [
    keptIfSame(h('h3', { id: workedTitleId }, 'Predict three outputs from one sequence'), find(`h3#${workedTitleId}`)),
    // Parts, each laid out in a frame of its own (laid-out.ts).
    holding(workedPart(givenPart), find(`.${givenPart}`), [words, tables]),
    holding(workedPart(askedPart), find(`.${askedPart}`), [question, anotherOne, keptIfSame(why, find(`.${askedPart} > p.worked-why`))]),
  ]);
  return { element, show };
}

// The input and weights the first question asks about, as four tables that follow the numbers on screen (show),
// titled the fixture's until the numbers changed, then "on screen". Each table is rebuilt only when its numbers, words or title
// change: an edit of X leaves the weights' tables as they are (rebuilding all four was about 0.6 ms of an edit).
// A table on screen that says what the rebuilt one would say stays: the build's prerendered tables (`prerendered`,
// adopted at ready: prerendered.ts) are kept that way.
function fixtureTables(attribute: string, prerendered: Element | null = null): { element: HTMLElement; show(t: Evidence, edited: boolean): void } {
  const element = shellIfSame(h('div', { class: 'worked-tables' }), prerendered);
  const built = new Map<string, BuiltFrom<HTMLTableElement>>();
  const table = (key: string, says: unknown[], build: () => HTMLTableElement): HTMLTableElement => {
    const memo = built.get(key) ?? new BuiltFrom<HTMLTableElement>();
    built.set(key, memo);
    return memo.get(says, () => keptIfSame(build(), element.querySelector(`:scope > table[${attribute}="${key}"]`)));
  };
  const weights = [
    ['query_weight', 'W_Q'],
    ['key_weight', 'W_K'],
    ['value_weight', 'W_V'],
  ] as const;
  const show = (t: Evidence, edited: boolean) => {
    const whose = edited ? 'on screen' : 'fixture';
    const input = table('input', [t.input, t.token_names, whose], () => {
      const made = matrixTable('input', `X (${whose === 'fixture' ? 'fixture input' : whose})`, t.input, attribute);
      nameTokenRows(made, t.input.shape, t.token_names);
      return made;
    });
    const tables = [input, ...weights.map(([key, name]) => table(key, [t[key], whose], () => matrixTable(key, `${name} (${whose})`, t[key], attribute)))];
    placeChildren(element, tables);
  };
  return { element, show };
}

// What a question needs beside it when it sits in the exercises list, away from the part of the lesson that
// sets it up (sections without the opening prediction or the diagram): the fixture's numbers for the
// first-token question, a sentence for the others that need one; show follows the numbers on screen. Null when the
// question stands alone.
export interface ExerciseContext {
  element: HTMLElement;
  show(evidence: Evidence, edited: boolean): void;
}

export function renderExerciseContext(id: string, evidence: Evidence): ExerciseContext | null {
  const context = exerciseProse[id]?.context;
  if (!context) return null;
  const numbers = id === 'ch26-first-token' ? fixtureTables('data-context-tensor') : null;
  const element = h('div', { class: 'exercise-context', 'data-context-for': id }, h('p', {}, context), ...(numbers ? [numbers.element] : []));
  const show = (next: Evidence, edited: boolean) => numbers?.show(next, edited); // titled as the opening's are
  show(evidence, false);
  return { element, show };
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
