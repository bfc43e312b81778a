// The opening the build prerendered into the page (web/prerender/, opening.ts): the element keeps it on screen
// while the core loads, when it shows what the element will show (the fixture's numbers, every section, answers
// after a check), and drops it otherwise. At ready the element's view takes the opening's nodes as its own wherever
// they say what its own would say (lesson-view.ts, content.ts, exercises.ts, another-one.ts: each component knows
// its nodes), so that what the learner typed there is still there and nothing on screen is built twice; only the
// rest of the lesson is added (showView). What it could not adopt it replaces, and carries what was typed into it.
// Which attributes make the opening stale is said beside each attribute (attributes.ts, changesPrerender).
import { h, placeChildren } from './dom';
import { layOutNow } from './laid-out';

// The prerendered opening's article in `root`, kept when `fits`, else removed (null). A form sent before ready would
// reload the page: its Check is prerendered disabled (opening.ts), and from here on the prerendered forms are not
// sent at all, until the view that adopts them handles them itself (showView).
export function keepPrerendered(root: ShadowRoot, fits: boolean): HTMLElement | null {
  const article = [...root.children].find((child): child is HTMLElement => child.localName === 'article');
  if (!article) return null;
  if (!fits) {
    dropPrerendered(root);
    return null;
  }
  article.addEventListener('submit', notSent);
  return article;
}

const notSent = (event: Event) => event.preventDefault();

// `root` shows `article` alone: the view's (the prerendered opening's article, when the view adopted it, stays where
// it is, its nodes unmoved; the loading line and the opening's own sheet go).
export function showView(root: ShadowRoot, article: HTMLElement): void {
  article.removeEventListener('submit', notSent);
  placeChildren(root, [article]);
}

export function dropPrerendered(root: ShadowRoot): void {
  // (`:scope` matches nothing in a shadow root: its children are picked by name.)
  for (const child of [...root.children]) if (child.localName === 'article' || child.localName === 'link') child.remove();
}

interface Field {
  input: HTMLInputElement;
  key: string;
}

// A question's field, by its question and its place in it: the same in the prerender and in the element's view.
function fields(root: ParentNode): Field[] {
  return [...root.querySelectorAll<HTMLFormElement>('form.exercise')].flatMap((form) =>
    [...form.querySelectorAll('input')].map((input, index) => ({ input, key: `${form.dataset.exercise}/${index}` })),
  );
}

function onScreen(element: Element): boolean {
  return !element.closest('.later, .holds-later, [hidden]');
}

// What was typed into `input`; true when that changed what the field held (a saved answer replayed into it).
function carry(input: HTMLInputElement, value: string, checked: boolean): boolean {
  const choice = input.type === 'radio' || input.type === 'checkbox';
  if (choice ? input.checked === checked : input.value === value) return false;
  if (choice) input.checked = checked;
  else input.value = value;
  return true;
}

// A saved answer's verdict must not stand beside other text typed before ready: said, and cleared (as
// exercises.ts does when the numbers change).
function verdictNoLongerApplies(form: HTMLFormElement | null): void {
  const feedback = form?.querySelector('[data-feedback]');
  if (!form || !feedback || feedback.childElementCount === 0) return;
  const note = 'What you typed before the lesson was ready replaced your saved answer, so the saved answer’s verdict no longer applies. Check again for what is shown.';
  feedback.replaceChildren(h('p', { class: 'note', 'data-stale': '' }, note));
  delete form.dataset.answered;
}

export interface ShownBefore {
  // Into the view: its sections that were on screen laid out at once; what was typed, put back where a saved answer
  // replayed over it or where the view's field is another node (a part not adopted, a restart), with the focus and
  // selection (an adopted field still has them: then nothing changes).
  carryInto(article: HTMLElement): void;
}

// What `root` shows now (the prerendered opening, or a view a restart replaces), read before the view is built.
export function shownBefore(root: ShadowRoot): ShownBefore {
  const typed = fields(root).filter(({ input }) => input.value !== input.defaultValue || input.checked !== input.defaultChecked);
  const kept = typed.map(({ key, input }) => ({ key, value: input.value, checked: input.checked }));
  const active = fields(root).find(({ input }) => input === root.activeElement);
  const selection = active && { key: active.key, start: active.input.selectionStart, end: active.input.selectionEnd, direction: active.input.selectionDirection ?? undefined };
  const sections = [...root.querySelectorAll('section[aria-labelledby]')].filter(onScreen).map((section) => section.getAttribute('aria-labelledby'));
  return {
    carryInto(article) {
      for (const id of sections) {
        const section = article.querySelector<HTMLElement>(`section[aria-labelledby="${id}"]`);
        if (section) layOutNow(section);
      }
      const now = new Map(fields(article).map(({ key, input }) => [key, input]));
      for (const { key, value, checked } of kept) {
        const input = now.get(key);
        if (input && carry(input, value, checked)) verdictNoLongerApplies(input.form);
      }
      const focused = selection && now.get(selection.key);
      if (!focused) return;
      focused.focus({ preventScroll: true });
      if (selection.start !== null && selection.end !== null) focused.setSelectionRange(selection.start, selection.end, selection.direction);
    },
  };
}
