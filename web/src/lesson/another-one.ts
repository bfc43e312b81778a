// "Another one": a new problem drawn by the core's generator (hand-computable numbers, the tokens named), and
// which problem is on screen, by its seed: the page's link carries it (v=…), so a teacher can hand the same
// problem to a class. The seed is drawn here from the browser's random source; the numbers are the core's.
import type { PracticeStreakRequest, PracticeStreakResponse, Request } from './core-api';
import { counterpartIn, h, sayTheSame } from './dom';

export interface AnotherOne {
  element: HTMLElement;
  // The drawn problem's seed while its numbers are on screen as drawn, else null; the author's example's title
  // while its numbers are on screen as given, else null.
  show(seed: string | null, edited: boolean, exampleTitle: string | null): void;
  // The first question checked on a drawn problem (seed): the core's rule (learner/practice_streak.hpp) counts its
  // first check in the run of problems right in a row.
  checked(seed: string | null, right: boolean): void;
  // Problems right in a row, kept with the learner's progress.
  run(): number;
  restore(run: number): void;
  // A graded run (attempt-key): the attempt's numbers are the ones graded, so no other problem is offered.
  graded(attempt: boolean): void;
}

export function randomSeed(): string {
  return crypto.getRandomValues(new Uint32Array(1))[0].toString();
}

// `prerendered`: the bar the build prerendered (opening.ts), taken as this one when it says the same.
export function renderAnotherOne(draw: (seed: string) => void, practiceStreak: (request: Request<PracticeStreakRequest>) => PracticeStreakResponse, prerendered: Element | null = null): AnotherOne {
  const made = bar();
  showProblem(made.which, null, false, null); // as the prerender shows it
  const { element, button, which, said, gradedNote } = adoptedBar(made, prerendered) ?? made;
  button.addEventListener('click', () => draw(randomSeed()));
  let streak = { run: 0, checked: [] as string[] };
  const count = (request: Request<PracticeStreakRequest>) => {
    const counted = practiceStreak(request);
    if (!counted.ok) return; // the core refused what the page kept: the run on screen stays
    streak = { run: counted.run, checked: counted.checked };
    said.dataset.problemRun = `${counted.run}`;
    said.textContent = counted.text && ` ${counted.text}`;
  };
  return {
    element,
    graded(attempt) {
      button.hidden = attempt;
      gradedNote.hidden = !attempt;
    },
    checked(seed, right) {
      if (seed !== null) count({ ...streak, seed, right });
    },
    run: () => streak.run,
    restore(saved) {
      count({ run: saved, checked: streak.checked });
    },
    show(seed, edited, exampleTitle) {
      showProblem(which, seed, edited, exampleTitle);
    },
  };
}

// The bar: its note for a graded attempt, its button, which problem is on screen, and the run of problems right.
function bar() {
  const button = h('button', { type: 'button', class: 'another-one' }, 'Another one: new numbers');
  const which = h('span', { class: 'problem-seed', 'data-problem-seed': '' });
  const said = h('span', { class: 'problem-run', 'aria-live': 'polite', 'data-problem-run': '0' });
  const gradedNote = h('span', { class: 'graded-attempt', 'data-graded-attempt': '', hidden: true }, 'This is a graded attempt: its numbers are the ones graded, so “Another one” is not offered. ');
  return { element: h('p', { class: 'another-one-bar' }, gradedNote, button, ' ', which, said), button, which, said, gradedNote };
}

function adoptedBar(made: ReturnType<typeof bar>, prerendered: Element | null): ReturnType<typeof bar> | null {
  if (!prerendered || !sayTheSame(made.element, prerendered)) return null;
  const at = counterpartIn(made.element, prerendered);
  return { element: prerendered as HTMLParagraphElement, button: at(made.button), which: at(made.which), said: at(made.said), gradedNote: at(made.gradedNote) };
}

// Which problem is on screen, in words (a text that says it already stays), and its seed in data-problem-seed.
function showProblem(which: HTMLElement, seed: string | null, edited: boolean, exampleTitle: string | null): void {
  const own = exampleTitle !== null ? `The author’s example: ${exampleTitle}.` : edited ? 'Your own numbers.' : 'The chapter’s own numbers.';
  const text = seed !== null ? `Problem ${seed}: the page’s link gives these numbers again.` : own;
  if (which.textContent !== text) which.textContent = text;
  if (seed === null) delete which.dataset.problemSeed;
  else which.dataset.problemSeed = seed;
}
