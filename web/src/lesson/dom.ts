// A tiny element builder: text goes in through textContent, never through innerHTML (only the build's own
// typeset formulas do, through the Trusted Types policy in trusted-types.ts).
import { trustedMath } from './trusted-types';

export type Child = Node | string | null | undefined | false;
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
  const verbatim = verbatimTags.has(tag);
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (typeof child === 'string' && !verbatim) element.append(...withNames(child));
    else element.append(child);
  }
  return element;
}

// Code and typed text keep their underscores.
const verbatimTags = new Set<string>(['code', 'pre', 'textarea', 'option', 'style', 'script']);

// A symbol's name in prose (W_Q, d_head, q_i, W̄_K): one Latin letter (a bar over it allowed), an underscore, and
// letters or digits, standing alone.
const namePattern = /(?<![\p{L}\p{N}_])([A-Za-z]\u0304?)_([A-Za-z]+|\d+)(?![\p{L}\p{N}_])/gu;
const mathMl = 'http://www.w3.org/1998/Math/MathML';

// Text with each symbol's name written as MathML, as KaTeX writes it in the formulas (<msub>): a screen reader
// reads a name one way, "W sub Q", in prose and in formulas alike, where "W_Q" in prose was read "W underscore Q".
export function withNames(text: string): (string | Node)[] {
  const out: (string | Node)[] = [];
  let last = 0;
  for (const match of text.matchAll(namePattern)) {
    if (match.index! > last) out.push(text.slice(last, match.index));
    out.push(nameMath(match[1], match[2]));
    last = match.index! + match[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out.length === 0 ? [text] : out;
}

// The MathML KaTeX writes for the same name (W_Q, \bar W_Q, d_{\text{head}}, W_0), element for element.
function nameMath(base: string, subscript: string): Element {
  const node = (tag: string, ...children: (Node | string)[]) => {
    const element = document.createElementNS(mathMl, tag);
    element.append(...children);
    return element;
  };
  const letter = base[0];
  const baseNode = base.length > 1 ? node('mover', node('mi', letter), node('mo', 'ˉ')) : node('mi', letter);
  if (base.length > 1) baseNode.setAttribute('accent', 'true');
  const subscriptNode = /^\d+$/.test(subscript) ? node('mn', subscript) : subscript.length > 1 ? node('mtext', subscript) : node('mi', subscript);
  const name = node('math', node('semantics', node('mrow', node('msub', baseNode, subscriptNode))));
  name.setAttribute('data-name', `${base}_${subscript}`); // the name as typed, for whoever reads the page's text
  return name;
}

// An element's text replaced, its names written as withNames writes them; left as it is when it says that already
// (nothing on screen is written twice: a prerendered text the view adopted, a question's unchanged words).
export function setText(element: Element, text: string): void {
  const nodes = withNames(text)
    .filter((piece) => piece !== '')
    .map((piece) => (typeof piece === 'string' ? document.createTextNode(piece) : piece));
  const now = element.childNodes;
  if (nodes.length === now.length && nodes.every((node, index) => node.isEqualNode(now[index]))) return;
  element.replaceChildren(...nodes);
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

// What was built from some inputs, built again only when they change (compared as JSON text): an edit leaves most
// of what the lesson shows as it was, and rebuilding it costs a frame's time.
export class BuiltFrom<T> {
  private says: string | undefined;
  private built: T | undefined;

  get(inputs: unknown, build: () => T): T {
    const says = JSON.stringify(inputs);
    if (says !== this.says) [this.built, this.says] = [build(), says];
    return this.built as T;
  }
}

// Adopting the prerendered opening (prerendered.ts): the view takes the nodes the build prerendered where they say
// what its own would say, so that nothing on screen is built, or painted, twice.

// Something the lesson sets itself inside a node, whatever its prerender says: the text of the elements `selector`
// matches, or one `attribute` of theirs.
export type SetByLesson = { selector: string; text: true } | { selector: string; attribute: string };

// Whether two nodes say the same: equal, once empty text nodes are dropped and adjacent ones joined (the builder
// makes both; parsed HTML has neither), and what the lesson sets itself (`setByLesson`) is cleared on both. Compared
// as copies: neither node is touched.
export function sayTheSame(made: Node, prerendered: Node | null | undefined, setByLesson: SetByLesson[] = []): boolean {
  if (!prerendered) return false;
  const [a, b] = [made.cloneNode(true), prerendered.cloneNode(true)];
  for (const copy of [a, b]) {
    clearSetByLesson(copy, setByLesson);
    copy.normalize();
  }
  return a.isEqualNode(b);
}

// A copy's text or attributes that the lesson sets itself, cleared: each element keeps its place, so that a copy
// holding more or fewer of them still differs.
function clearSetByLesson(copy: Node, setByLesson: SetByLesson[]): void {
  if (!(copy instanceof Element || copy instanceof DocumentFragment)) return;
  for (const set of setByLesson) {
    for (const element of copy.querySelectorAll(set.selector)) {
      if ('text' in set) element.textContent = '';
      else element.removeAttribute(set.attribute);
    }
  }
}

// `prerendered` when it says what `made` says, else `made`.
export function keptIfSame<T extends Node>(made: T, prerendered: Node | null | undefined): T {
  return sayTheSame(made, prerendered) ? (prerendered as unknown as T) : made;
}

// `prerendered` when its own attributes are those of `made` (its children aside), else `made`.
export function shellIfSame<T extends Element>(made: T, prerendered: Element | null | undefined): T {
  return prerendered && prerendered.cloneNode(false).isEqualNode(made.cloneNode(false)) ? (prerendered as unknown as T) : made;
}

// An element holding `children` in that order: `prerendered` when its own attributes are those of `made`, else `made`.
export function holding<T extends Element>(made: T, prerendered: Element | null | undefined, children: Node[]): T {
  const holder = shellIfSame(made, prerendered);
  placeChildren(holder, children);
  return holder;
}

// `parent`'s children made `children`, in order, without moving one already in its place: a node taken out of the
// page loses its focus and its selection, and is painted again.
export function placeChildren(parent: Node, children: Node[]): void {
  const wanted = new Set(children);
  for (const child of [...parent.childNodes]) if (!wanted.has(child)) parent.removeChild(child);
  children.forEach((child, index) => {
    const now = parent.childNodes[index];
    if (now !== child) parent.insertBefore(child, now ?? null);
  });
}

// The element at `path` (child indexes) below `element`; null where there is none (counterpartIn: for equal trees).
function childAt(element: Element | null | undefined, ...path: number[]): Element | null {
  return path.reduce<Element | null>((at, index) => at?.children[index] ?? null, element ?? null);
}

// Each element inside `made` as its counterpart in `prerendered`, the element at the same place: for two trees
// that say the same (sayTheSame), so that the view's references point at the prerendered nodes.
export function counterpartIn(made: Element, prerendered: Element): <T extends Element>(element: T) => T {
  return <T extends Element>(element: T): T => {
    const path: number[] = [];
    for (let at: Element = element; at !== made; at = at.parentElement!) path.unshift([...at.parentElement!.children].indexOf(at));
    return childAt(prerendered, ...path) as T;
  };
}
