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
// to the section and move focus there, as following a link does.
export function followLink(root: ShadowRoot, event: Event): void {
  const link = (event.target as Element | null)?.closest?.('a[href^="#"]');
  if (!link) return;
  const target = sectionTarget(root, link.getAttribute('href')!.slice(1));
  if (!target) return;
  event.preventDefault();
  history.replaceState({ ...entryState(history.state), [leftAt]: scrollY }, '');
  history.pushState(null, '');
  if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
  target.focus({ preventScroll: true });
  target.scrollIntoView({ block: 'start' });
}

// Back (or Forward) to an entry an in-lesson link left: the page scrolls to where the learner was. True when
// the entry is one of those.
export function returnFromLink(event: PopStateEvent): boolean {
  const position = entryState(event.state)[leftAt];
  if (typeof position !== 'number') return false;
  scrollTo({ top: position, behavior: 'instant' });
  return true;
}

// The page URL's #fragment, when it names a section of the lesson (#diagram, or #diagram?x=…, url-state.ts).
export function showFragment(root: ShadowRoot): void {
  sectionTarget(root, fragmentAnchor(location.hash))?.scrollIntoView({ block: 'start' });
}
