// The cards of sizes and boundaries (Going deeper): the trainable scalars counted, the widths the layer
// accepted, the shapes it gives on empty axes and on twice the batch, and the inputs it rejects, each with the
// library's own message. Each card is a function of the evidence, redrawn only when its numbers change.
import { h } from './dom';
import { facts, ltr, renderPart } from './evidence-parts';
import type { RejectionView, ShapeProbeView } from './core-api';
import type { Evidence } from './types';

export function renderCounts(container: HTMLElement, evidence: Evidence): void {
  renderPart(container, [evidence.query_weight.shape_text, evidence.parameter_count], () => [
    h(
      'section',
      { class: 'card' },
      h('h5', {}, 'Count the trainable scalars'),
      h(
        'dl',
        { class: 'facts' },
        ...facts([
          ['W_Q, W_K, W_V', ltr(`three weights of shape ${evidence.query_weight.shape_text}, no bias`)],
          ['Trainable scalars in all', `${evidence.parameter_count}`],
        ]),
      ),
    ),
  ]);
}

export function renderDivisibility(container: HTMLElement, evidence: Evidence): void {
  renderPart(container, [evidence.model_width, evidence.head_width], () => [
    h(
      'section',
      { class: 'card' },
      h('h5', {}, 'Widths the layer accepted'),
      h('p', {}, `d_model = ${evidence.model_width} and d_head = ${evidence.head_width}: the layer built its three weights and computed Q, K and V above. It asks only that every weight has d_model rows and d_head columns; change the widths in the sizes bar and see which pairs it accepts.`),
    ),
  ]);
}

// One probe's card: the input's shape and the three outputs' shapes it gave.
function probeCard(title: string, probe: ShapeProbeView): HTMLElement {
  return h('section', { class: 'card' }, h('h5', {}, title), h('p', {}, ltr(`${probe.input} → ${probe.query}, ${probe.key}, ${probe.value}`)));
}

export function renderProbes(container: HTMLElement, evidence: Evidence): void {
  renderPart(container, [evidence.batch_probe, evidence.empty_batch_probe, evidence.empty_token_probe], () => [
    h('div', { class: 'probe-grid' }, probeCard('Empty batch axis', evidence.empty_batch_probe), probeCard('Empty token axis', evidence.empty_token_probe), probeCard('Twice the batch', evidence.batch_probe)),
  ]);
}

function rejection(code: string, reason: string, probe: RejectionView): HTMLElement {
  return h(
    'li',
    { class: 'rejection' },
    h('span', { class: 'pill rejected' }, probe.expected_variant ? 'Rejected' : 'Not rejected as expected'),
    ' ',
    h('code', {}, code),
    h('p', {}, reason),
    h('p', { class: 'library-message' }, 'Library message: ', h('q', {}, probe.message)),
  );
}

export function renderRejections(container: HTMLElement, evidence: Evidence): void {
  const probes = [evidence.rank_rejection, evidence.width_rejection, evidence.model_mismatch_rejection, evidence.head_mismatch_rejection, evidence.duplicate_name_rejection];
  renderPart(container, probes, () => [
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
}
