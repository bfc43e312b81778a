// "Another one": a new problem drawn by the core's generator (hand-computable numbers, the tokens named), and
// which problem is on screen, by its seed: the page's link carries it (v=…), so a teacher can hand the same
// problem to a class. The seed is drawn here from the browser's random source; the numbers are the core's.
import { h } from './dom';

export interface AnotherOne {
  element: HTMLElement;
  // The drawn problem's seed while its numbers are on screen as drawn, else null.
  show(seed: string | null, edited: boolean): void;
  // The first question checked on a drawn problem (seed): its first check, right and counted, extends the run of
  // problems right in a row; wrong, it ends the run. Later checks of the same problem change nothing.
  checked(seed: string | null, right: boolean): void;
  // Problems right in a row, kept with the learner's progress.
  run(): number;
  restore(run: number): void;
  // A graded run (attempt-key): the attempt's numbers are the ones graded, so no other problem is offered.
  graded(attempt: boolean): void;
}

// Three in a row, as practice systems (Khan Academy's "got it" streaks) take for having it.
const enough = 3;

export function randomSeed(): string {
  return crypto.getRandomValues(new Uint32Array(1))[0].toString();
}

export function renderAnotherOne(draw: (seed: string) => void): AnotherOne {
  const button = h('button', { type: 'button', class: 'another-one' }, 'Another one: new numbers');
  const which = h('span', { class: 'problem-seed', 'data-problem-seed': '' });
  const said = h('span', { class: 'problem-run', 'aria-live': 'polite', 'data-problem-run': '0' });
  button.addEventListener('click', () => draw(randomSeed()));
  const checkedOnce = new Set<string>();
  let run = 0;
  const sayRun = () => {
    said.dataset.problemRun = `${run}`;
    said.textContent = run >= enough ? ` ${run} drawn problems right in a row: you have it.` : run > 0 ? ` Drawn problems right in a row: ${run} (${enough} shows you have it).` : '';
  };
  const gradedNote = h('span', { class: 'graded-attempt', 'data-graded-attempt': '', hidden: true }, 'This is a graded attempt: its numbers are the ones graded, so “Another one” is not offered. ');
  return {
    element: h('p', { class: 'another-one-bar' }, gradedNote, button, ' ', which, said),
    graded(attempt) {
      button.hidden = attempt;
      gradedNote.hidden = !attempt;
    },
    checked(seed, right) {
      if (seed === null || checkedOnce.has(seed)) return;
      checkedOnce.add(seed);
      run = right ? run + 1 : 0;
      sayRun();
    },
    run: () => run,
    restore(saved) {
      run = saved;
      sayRun();
    },
    show(seed, edited) {
      which.textContent = seed !== null ? `Problem ${seed}: the page’s link gives these numbers again.` : edited ? 'Your own numbers.' : 'The chapter’s own numbers.';
      if (seed === null) delete which.dataset.problemSeed;
      else which.dataset.problemSeed = seed;
    },
  };
}
