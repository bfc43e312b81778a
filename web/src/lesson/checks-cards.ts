// The checks' cards of Going deeper: "Change only the query weight" and "Change only the key upstream" (the
// bitwise checks) and "Numerical checks: are the gradients right?" (the gradcheck), built whole once; a render
// fills only what the core's checks decide. The core leaves the checks out of an evaluation and checks once the
// page is idle (diagram-section.ts); until then each verdict and figure says it is being checked, in the place
// it will take, so that the cards keep their place and nearly their height.
import math from 'virtual:math';
import { h, math as mathSpan, part, symbols } from './dom';
import { facts, ltr, renderPart } from './evidence-parts';
import type { BitwiseChecks, GradcheckRules, GradcheckView } from './core-api';

const waiting = 'being checked…';

export interface ChecksCards {
  independence: HTMLElement; // change only W_Q
  upstreamChange: HTMLElement; // change only U_K
  gradcheck: HTMLElement;
  // What a render fills: the verdicts of the two bitwise cards (or why U_K has nothing to change), the
  // gradcheck's figures, and the replay's verdict, which the implementers' facts show.
  queryVerdicts: HTMLElement;
  upstreamChangeBody: HTMLElement;
  upstreamVerdicts: HTMLElement;
  checkFigures: HTMLElement;
  replayVerdict: HTMLElement;
  // The gradcheck's rules, shown (with its other rows waiting) until the numbers on screen are checked.
  readonly rules: GradcheckRules;
}

export function buildChecksCards(rules: GradcheckRules): ChecksCards {
  const queryVerdicts = h('ul', { class: 'verdicts' });
  const upstreamVerdicts = h('ul', { class: 'verdicts' });
  const upstreamChangeBody = h('div');
  const checkFigures = h('dl', { class: 'facts checks-pending' });
  return {
    independence: h(
      'section',
      { class: 'card' },
      h('h5', {}, 'Change only the query weight'),
      h('p', {}, 'The core adds 1 to W_Q[0,0], keeps everything else, and compares the new outputs bit for bit with the ones above.'),
      queryVerdicts,
    ),
    upstreamChange: h('section', { class: 'card' }, h('h5', {}, 'Change only the key upstream'), upstreamChangeBody),
    gradcheck: gradcheckCard(checkFigures),
    queryVerdicts,
    upstreamChangeBody,
    upstreamVerdicts,
    checkFigures,
    replayVerdict: h('span', { class: 'replay-verdict' }),
    rules,
  };
}

// The gradcheck card's prose and formula, built once: an edit that followed shown checks used to lay the formula
// out again.
function gradcheckCard(checkFigures: HTMLElement): HTMLElement {
  return h(
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
}

// The gradcheck card's figures once the core has checked the numbers on screen.
export function renderChecks(cards: ChecksCards, g: GradcheckView | undefined): void {
  const rules = cards.rules;
  cards.checkFigures.classList.toggle('checks-pending', !g);
  renderPart(cards.checkFigures, g ?? 'checking', () =>
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

// One verdict of a bitwise check: changed, the same, or still being checked.
function verdict(label: string, changed: boolean | undefined, text: (changed: boolean) => string): HTMLElement {
  return h('li', { class: changed === undefined ? 'verdict checks-pending' : `verdict ${changed ? 'changed' : 'same'}` }, `${label}: ${changed === undefined ? waiting : text(changed)}`);
}

// The bitwise checks of the numbers on screen: change only W_Q, change only U_K, and the whole computation run
// twice.
export function renderBitwise(cards: ChecksCards, b: BitwiseChecks | undefined): void {
  renderPart(cards.queryVerdicts, b ? [b.query_changed, b.key_unchanged, b.value_unchanged] : 'checking', () => [
    verdict('Query output', b?.query_changed, (changed) => (changed ? 'changed' : 'unchanged: adding 1 to W_Q[0,0] moved no query value here')),
    verdict('Key output', b && !b.key_unchanged, (changed) => (changed ? 'changed' : 'unchanged, bit for bit')),
    verdict('Value output', b && !b.value_unchanged, (changed) => (changed ? 'changed' : 'unchanged, bit for bit')),
  ]);

  const changed = (yes: boolean) => (yes ? 'changed' : 'unchanged, bit for bit');
  const nothingToChange = !!b?.key_upstream_empty;
  renderPart(cards.upstreamChangeBody, nothingToChange, () =>
    nothingToChange
      ? [h('p', {}, 'At these sizes U_K has no cell to change (an axis is empty), so there is nothing to compare.')]
      : [h('p', {}, 'The core adds 1 to U_K[0,0,0], keeps everything else, runs the backward pass again and compares the gradients bit for bit with the ones below.'), cards.upstreamVerdicts],
  );
  renderPart(cards.upstreamVerdicts, b ? [b.key_gradient_changed, b.query_gradient_unchanged, b.value_gradient_unchanged, b.input_gradient_changed] : 'checking', () => [
    verdict('W̄_K', b?.key_gradient_changed, changed),
    verdict('W̄_Q', b && !b.query_gradient_unchanged, changed),
    verdict('W̄_V', b && !b.value_gradient_unchanged, changed),
    verdict('X̄', b?.input_gradient_changed, changed),
  ]);

  cards.replayVerdict.textContent = b ? (b.replay_bitwise ? 'the same bits both times' : 'different results') : waiting;
}
