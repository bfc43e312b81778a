// A marked preview of the next lesson: V used once, with numbers. The core works one row (query token 0 of
// batch item 0: cpp/attention/value_preview.hpp): its scores, the scores divided by √d_head, their softmax,
// the unscaled scores' softmax beside it, and the weights times V. Every number is the core's, rounded by it.
import { h } from './dom';
import type { Evidence } from './types';

const ltr = (text: string) => h('bdi', { dir: 'ltr' }, text);
const list = (texts: string[]) => ltr(`[${texts.join(', ')}]`);

// The five steps as a list of terms (it reads top to bottom on a phone, with nothing to scroll sideways).
function steps(evidence: Evidence): HTMLElement {
  const p = evidence.value_preview!;
  const step = (term: string, values: string[], note: string) => [h('dt', {}, term), h('dd', {}, list(values), ' ', h('span', { class: 'note' }, note))];
  return h(
    'dl',
    { class: 'value-preview-steps' },
    ...step(`S[0,${p.row}]`, p.scores.rounded, 'this row of the scores above'),
    ...step(`S[0,${p.row}] / √${evidence.head_width}`, p.scaled.rounded, `each score divided by √d_head = ${p.scale.text}`),
    ...step('softmax, scaled', p.weights.rounded, 'the weights the next lesson uses'),
    ...step('softmax, unscaled', p.unscaled_weights.rounded, 'the same softmax without the division, for comparison'),
    ...step(`output ${p.row}`, p.output.rounded, 'Σⱼ weightⱼ · vⱼ: the rows of V mixed by the scaled weights'),
    h('dt', {}, 'written out'),
    h('dd', {}, '≈ ', h('bdi', { dir: 'ltr', class: 'mixture' }, p.mixture_text), ' ', h('span', { class: 'note' }, 'each weight to four decimals times its row of V')),
  );
}

// The preview's heading and body for this evaluation (edits and sizes), or a sentence when an axis is empty.
export function valuePreviewParts(evidence: Evidence): Node[] {
  const body = evidence.value_preview
    ? [
        h('p', {}, 'The first row of weights comes from the scores divided by √d_head, the second from the raw scores; the next lesson explains the division, the softmax and the mixture.'),
        h('p', { class: 'table-title' }, `Query token ${evidence.value_preview.row} (“${evidence.token_names[evidence.value_preview.row]}”), batch item 0, d_head = ${evidence.head_width}, values to two decimals:`),
        steps(evidence),
      ]
    : [h('p', {}, 'No row to preview: an axis of these sizes is empty.')];
  return [h('h5', {}, 'Preview of the next lesson: V, used once, with numbers'), ...body];
}
