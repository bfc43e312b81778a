// Links to a section inside the lesson (<a href="#id">, or the page URL's #fragment): the document cannot see
// into the shadow root, so the lesson scrolls to the section itself.
import { sectionNamed } from './attributes';
import { fragmentAnchor } from './url-state';

// The element with this id in the lesson, if it is shown.
export function sectionTarget(root: ShadowRoot, id: string): HTMLElement | null {
  let name = id;
  try {
    name = decodeURIComponent(id);
  } catch {
    // not percent-encoded: use as it is
  }
  const target = name ? root.getElementById(sectionNamed(name) ?? name) : null;
  return target && !target.closest('[hidden]') ? target : null;
}

// A click on an in-lesson link: scroll to the section and move focus there, as following a link does.
export function followLink(root: ShadowRoot, event: Event): void {
  const link = (event.target as Element | null)?.closest?.('a[href^="#"]');
  if (!link) return;
  const target = sectionTarget(root, link.getAttribute('href')!.slice(1));
  if (!target) return;
  event.preventDefault();
  if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
  target.focus({ preventScroll: true });
  target.scrollIntoView({ block: 'start' });
}

// The page URL's #fragment, when it names a section of the lesson (#diagram, or #diagram?x=…, url-state.ts).
export function showFragment(root: ShadowRoot): void {
  sectionTarget(root, fragmentAnchor(location.hash))?.scrollIntoView({ block: 'start' });
}
