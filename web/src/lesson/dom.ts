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

// A list of symbols (<dl class="symbols">): each symbol typeset, then what it means.
export function symbols(entries: [html: string, meaning: string][]): HTMLElement {
  return h('dl', { class: 'symbols' }, ...entries.flatMap(([html, meaning]) => [h('dt', {}, math(html)), h('dd', {}, meaning)]));
}

// A stretch of the lesson, laid out in a frame of its own after ready (laid-out.ts).
export function part(...children: (Node | string)[]): HTMLElement {
  return h('div', { class: 'part' }, ...children);
}
