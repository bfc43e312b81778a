// A tiny element builder: text goes in through textContent, never through innerHTML (only the build's own
// typeset formulas do, through the Trusted Types policy in trusted-types.ts).
import { trustedMath } from './trusted-types';

type Child = Node | string | null | undefined | false;
type Attributes = Record<string, string | boolean | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child);
  }
  return element;
}

// Build-time KaTeX output (trusted: produced by vite.config.ts from formulas.ts, never from input).
export function math(html: string, className = 'math'): HTMLSpanElement {
  const span = h('span', { class: className });
  span.innerHTML = trustedMath(html);
  return span;
}

// A formula out of sight and out of the accessibility tree, as two stretches laid out first after the header
// (laid-out.ts): its MathML, then its drawing. A browser's first formula costs 25–45 ms on a slow phone (CPU ÷4),
// however small: the MathML's first layout about 15–25 ms, the fonts' first use about 10 more. Laid out here,
// each cost has a frame of its own instead of adding to the first formula's.
export function mathProbe(html: string): HTMLElement {
  const [mathml, drawing] = [math(html), math(html)];
  mathml.querySelector('.katex-html')?.remove();
  drawing.querySelector('.katex-mathml')?.remove();
  return h('div', { class: 'math-probe', 'aria-hidden': 'true' }, part(mathml), part(drawing));
}

// A list of symbols (<dl class="symbols">): each symbol typeset, then what it means.
export function symbols(entries: [html: string, meaning: string][]): HTMLElement {
  return h('dl', { class: 'symbols' }, ...entries.flatMap(([html, meaning]) => [h('dt', {}, math(html)), h('dd', {}, meaning)]));
}

// A stretch of the lesson, laid out in a frame of its own after ready (laid-out.ts): part() makes one, and an
// element that must be of another kind (a list's item) takes the class itself.
export const partClass = 'part';
export function part(...children: (Node | string)[]): HTMLElement {
  return h('div', { class: partClass }, ...children);
}
