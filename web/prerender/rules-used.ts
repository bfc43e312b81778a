// The prerendered opening's style sheet is on the line before the learner can read anything, sharing it with the
// element's chunk and the WebAssembly module. The opening is a few hundred elements of a lesson of thousands, so
// most of the lesson's rules match nothing in it: they are dropped here (5.6 → 1.4 kB gzip). The element brings
// every rule as its constructed sheets at connect, before anything else is shown, so nothing else needs them.
// tests/browser/prerender.test.mjs requires every element of the opening to have the same computed style with
// this sheet as with the element's whole sheets.
import postcss from 'postcss';

// What no element can be matched on before it is shown or used: the state of the pointer, focus or a link, and
// pseudo-elements. A selector is matched without them, so a rule for a state of a kept element is kept.
const notMatchable = /::?(?:hover|focus-visible|focus-within|focus|active|visited|link|before|after|placeholder|marker|selection|backdrop|first-line|first-letter|-webkit-[\w-]+|-moz-[\w-]+)\b(?:\([^)]*\))?/g;

// The host's rules (the theme, the page's font) and anything the matcher cannot read are kept.
function matchesSomething(opening: Element, selector: string): boolean {
  if (/:host|::slotted|::part/.test(selector)) return true;
  const plain = selector.replace(notMatchable, '').trim() || '*';
  try {
    return opening.matches(plain) || opening.querySelector(plain) !== null;
  } catch {
    return true;
  }
}

// `css` without the rules (and the selectors of a list) that match nothing in `opening`, and without the
// @media / @supports blocks that are left empty. @font-face, @keyframes and the like are kept as they are.
export function rulesUsedBy(opening: Element, css: string): string {
  const sheet = postcss.parse(css);
  sheet.walkRules((rule) => {
    if (rule.parent?.type === 'atrule' && /keyframes$/.test((rule.parent as postcss.AtRule).name)) return;
    const used = rule.selectors.filter((selector) => matchesSomething(opening, selector));
    if (used.length === 0) rule.remove();
    else rule.selectors = used;
  });
  sheet.walkAtRules((block) => {
    if (/^(media|supports|container|layer)$/.test(block.name) && block.nodes?.length === 0) block.remove();
  });
  return sheet.toString();
}
