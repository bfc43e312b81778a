// Links to a section inside the lesson (<a href="#id">, or the page URL's #fragment): the document cannot see
// into the shadow root, so the lesson scrolls to the section itself. Following one adds a history entry, as a
// link does, so that Back returns to where the learner was; the page URL stays as it is (it may hold the
// lesson's numbers in its fragment, and on a course page the fragment is the course's).
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

// The history entry's state key for the scroll position the learner left by an in-lesson link.
const leftAt = 'qkvLessonLeftAt';

type EntryState = Record<string, unknown>;
const entryState = (state: unknown): EntryState => (typeof state === 'object' && state !== null ? (state as EntryState) : {});

// A click on an in-lesson link: remember where the learner was in this history entry, add an entry, then scroll
// to the section and move focus there, as following a link does. Where the learner was is the link's place in
// the window (which link, and its top): content that grows above it meanwhile (idle work, a worker's results)
// would make a remembered scrollY point elsewhere.
export function followLink(root: ShadowRoot, event: Event): void {
  const link = (event.target as Element | null)?.closest?.('a[href^="#"]');
  if (!link) return;
  const href = link.getAttribute('href')!;
  const target = sectionTarget(root, href.slice(1));
  if (!target) return;
  event.preventDefault();
  const place = { href, index: linksTo(root, href).indexOf(link), top: link.getBoundingClientRect().top };
  history.replaceState({ ...entryState(history.state), [leftAt]: place }, '');
  // The entry left is restored by returnFromLink, not by the browser's scroll offset (the mode is the entry's own;
  // the new entry keeps the page's).
  const mode = history.scrollRestoration;
  history.scrollRestoration = 'manual';
  history.pushState(null, '');
  history.scrollRestoration = mode;
  if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
  target.focus({ preventScroll: true });
  target.scrollIntoView({ block: 'start' });
}

const linksTo = (root: ShadowRoot, href: string) => [...root.querySelectorAll('a[href^="#"]')].filter((link) => link.getAttribute('href') === href);

// Back (or Forward) to an entry an in-lesson link left: the page scrolls so that the link is where it was in the
// window. True when the entry is one of those.
export function returnFromLink(root: ShadowRoot, event: PopStateEvent): boolean {
  const place = entryState(entryState(event.state)[leftAt]);
  const { href, index, top } = place;
  if (typeof href !== 'string' || typeof index !== 'number' || typeof top !== 'number') return false;
  const link = linksTo(root, href)[index];
  if (link) scrollBy({ top: link.getBoundingClientRect().top - top, behavior: 'instant' });
  return true;
}

// The page URL's #fragment, when it names a section of the lesson (#diagram, or #diagram?x=…, url-state.ts).
export function showFragment(root: ShadowRoot): void {
  sectionTarget(root, fragmentAnchor(location.hash))?.scrollIntoView({ block: 'start' });
}
