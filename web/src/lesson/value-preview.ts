// A marked preview of the next lesson: V used once, with numbers. The core works one row (query token 0 of
// batch item 0: cpp/attention/value_preview.hpp): its scores, the scores divided by √d_head, their softmax,
// the unscaled scores' softmax beside it, and the weights times V. Every number is the core's, rounded by it.
import { h } from './dom';
import type { Evidence } from './types';

const ltr = (text: string) => h('bdi', { dir: 'ltr' }, text);
const list = (texts: string[]) => ltr(`[${texts.join(', ')}]`);

function steps(evidence: Evidence): HTMLElement {
  const p = evidence.value_preview!;
  const row = (step: string, value: Node, note = '') => h('tr', {}, h('th', { scope: 'row' }, step), h('td', {}, value), h('td', { class: 'note' }, note));
  return h(
    'table',
    { class: 'value-preview-steps' },
    h('caption', {}, `Query token ${p.row} (“${evidence.token_names[p.row]}”), batch item 0, d_head = ${evidence.head_width}`),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Step'), h('th', { scope: 'col' }, 'Values (two decimals)'), h('th', { scope: 'col' }, 'What it is'))),
    h(
      'tbody',
      {},
      row(`S[0,${p.row}]`, list(p.scores.rounded), 'this row of the scores above'),
      row(`S[0,${p.row}] / √${evidence.head_width}`, list(p.scaled.rounded), `each score divided by √d_head = ${p.scale.text}`),
      row('softmax, scaled', list(p.weights.rounded), 'the weights the next lesson uses'),
      row('softmax, unscaled', list(p.unscaled_weights.rounded), 'the same softmax without the division, for comparison'),
      row(`output ${p.row}`, list(p.output.rounded), 'Σⱼ weightⱼ · vⱼ: the rows of V mixed by the scaled weights'),
    ),
  );
}

// The preview's heading and body for this evaluation (edits and sizes), or a sentence when an axis is empty.
export function valuePreviewParts(evidence: Evidence): Node[] {
  const body = evidence.value_preview
    ? [h('p', {}, 'Compare the two rows of weights: the first comes from the scores divided by √d_head, the second from the raw scores. The next lesson explains the division, the softmax and the mixture.'), h('div', { class: 'scroller', role: 'region', 'aria-label': 'Preview: one row of attention', tabindex: '0' }, steps(evidence))]
    : [h('p', {}, 'No row to preview: an axis of these sizes is empty.')];
  return [h('h5', {}, 'Preview of the next lesson: V, used once, with numbers'), ...body];
}
