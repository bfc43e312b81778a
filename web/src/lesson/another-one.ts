// "Another one": a new problem drawn by the core's generator (hand-computable numbers, the tokens named), and
// which problem is on screen, by its seed: the page's link carries it (v=…), so a teacher can hand the same
// problem to a class. The seed is drawn here from the browser's random source; the numbers are the core's.
import { h } from './dom';

export interface AnotherOne {
  element: HTMLElement;
  // The drawn problem's seed while its numbers are on screen as drawn, else null.
  show(seed: string | null, edited: boolean): void;
}

export function randomSeed(): string {
  return crypto.getRandomValues(new Uint32Array(1))[0].toString();
}

export function renderAnotherOne(draw: (seed: string) => void): AnotherOne {
  const button = h('button', { type: 'button', class: 'another-one' }, 'Another one: new numbers');
  const which = h('span', { class: 'problem-seed', 'data-problem-seed': '' });
  button.addEventListener('click', () => draw(randomSeed()));
  return {
    element: h('p', { class: 'another-one-bar' }, button, ' ', which),
    show(seed, edited) {
      which.textContent = seed !== null ? `Problem ${seed}: the page’s link gives these numbers again.` : edited ? 'Your own numbers.' : 'The chapter’s own numbers.';
      if (seed === null) delete which.dataset.problemSeed;
      else which.dataset.problemSeed = seed;
    },
  };
}
