// Small builders the diagram's cards share: a part rebuilt only when its evidence changed, a scrolling region
// for wide tables, a list of facts, a field's error line, a prediction's place and the folded evidence under it.
import { h } from './dom';

// Rebuilds a container only when the evidence it shows changed (most edits leave these parts alone).
const shown = new WeakMap<HTMLElement, string>();
export function renderPart(container: HTMLElement, evidence: unknown, build: () => (Node | string)[]): void {
  const key = JSON.stringify(evidence);
  if (shown.get(container) === key) return;
  shown.set(container, key);
  container.replaceChildren(...build());
}

export function scroller(label: string, ...children: (Node | string)[]): HTMLElement {
  // A named, focusable region so keyboard users can scroll wide tables sideways.
  return h('div', { class: 'scroller', role: 'region', 'aria-label': label, tabindex: '0' }, ...children);
}

export function facts(entries: [string, string | Node][]): Node[] {
  return entries.flatMap(([term, detail]) => [h('dt', {}, term), h('dd', {}, detail)]);
}

export function fieldError(id: string): HTMLElement {
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

// Where a chapter prediction sits: right before the folded evidence that answers it.
export function prediction(id: string): HTMLElement {
  return h('div', { class: 'prediction', 'data-prediction-for': id });
}

// Text in left-to-right order whatever the page's direction (shapes, numbers, formulas in words).
export function ltr(text: string): HTMLElement {
  return h('bdi', { dir: 'ltr' }, text);
}
