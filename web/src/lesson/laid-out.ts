// The lesson appears top-down, a stretch at a time, so that no frame after ready lays out much of it: on a slow
// phone, laying the whole lesson out at once blocks the page for about 300 ms. At ready the lesson's DOM and text
// are complete, but only its header is in the layout: every stretch after it (a part, or a piece of the lesson
// without parts: a heading, a section, the sizes bar) waits out of the layout (.later and .holds-later,
// styles.css). Each frame after the first lays out the next stretch in reading order, then small ones after it
// while the frame has spent under `layoutMsPerFrame` on them. Each stretch is laid out at once (its layout forced
// and timed), so the time is the device's own. Each is added below everything already laid out, so nothing on
// screen moves.
// Out of the layout, not content-visibility: hidden: a browser's form autofill reads the position of every input
// a while after the page changes, which lays out every skipped stretch that holds one, all in one task.
// A document the browser does not render gets no animation frame (an off-screen cross-origin iframe, a background
// tab): when none comes for 500 ms (far more than a rendered page waits for one), the rest is laid out at once, so
// that the lesson's real height is there to report. Calls laidOut once no stretch waits; returns a cancel function.
// Each frame's times are in the performance timeline: a qkv-lesson-layout-step measure whose detail.laidOutAfter
// holds, for each stretch, the ms from the frame's start to its end.
import { partClass } from './dom';

const waiting = 'later';
const holding = 'holds-later';
// The largest stretches take 20–40 ms at a phone's speed (CPU ÷4), and painting a frame about 10 ms more, so a
// large stretch starts a frame of its own: a frame takes a further stretch only if it is small (a heading, a note)
// and the ones before took under 5 ms.
const layoutMsPerFrame = 5;
const smallStretch = 20; // elements

// Marks the stretches after the article's header as waiting: what holds no part (partClass, dom.ts) is a stretch;
// what holds parts is split into its children, and waits too until its first stretch is laid out (an empty
// card's border or the branches' rail would otherwise show below the lesson, and move down as stretches come in).
export function waitForLayout(article: HTMLElement): void {
  const mark = (element: Element): void => {
    if (!element.querySelector(`.${partClass}`)) element.classList.add(waiting);
    else {
      element.classList.add(holding);
      for (const child of element.children) mark(child);
    }
  };
  for (const child of [...article.children].slice(1)) mark(child);
}

export function layOutInSteps(article: HTMLElement, laidOut: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let frame = 0;
  const cancel = () => {
    cancelAnimationFrame(frame);
    clearTimeout(timer);
  };
  const left = () => [...article.querySelectorAll<HTMLElement>(`.${waiting}`)];
  const finish = () => {
    cancel();
    left().forEach(layOut);
    laidOut();
  };
  const nextFrame = (then: () => void) => {
    frame = requestAnimationFrame(() => {
      clearTimeout(timer);
      then();
    });
    timer = setTimeout(finish, 500);
  };
  const step = () => {
    const start = performance.now();
    const laidOutAfter: number[] = []; // ms since start, after each stretch
    for (const stretch of left()) {
      if (laidOutAfter.length > 0 && (laidOutAfter[laidOutAfter.length - 1] >= layoutMsPerFrame || size(stretch) > smallStretch)) break;
      layOut(stretch);
      void article.offsetHeight; // lays the stretch out now, within the time measured
      laidOutAfter.push(performance.now() - start);
    }
    performance.measure('qkv-lesson-layout-step', { start, detail: { laidOutAfter } });
    if (left().length > 0) nextFrame(step);
    else finish();
  };
  // The first frame lays out the header alone (a page's first layout costs the most); the stretches start in
  // the second.
  nextFrame(() => nextFrame(step));
  return cancel;
}

function layOut(stretch: HTMLElement): void {
  stretch.classList.remove(waiting);
  for (let holder = stretch.parentElement; holder?.classList.contains(holding); holder = holder.parentElement) holder.classList.remove(holding);
}

// Elements; none in a hidden section (it costs no layout, and goes along).
function size(stretch: HTMLElement): number {
  return stretch.closest('[hidden]') ? 0 : stretch.getElementsByTagName('*').length + 1;
}

// Lays out at once `element` and every stretch in it: a part of the lesson that was already on screen before
// ready (the prerendered opening, prerendered.ts), which must not leave the layout for a frame.
export function layOutNow(element: HTMLElement): void {
  if (element.classList.contains(waiting)) layOut(element);
  element.querySelectorAll<HTMLElement>(`.${waiting}`).forEach(layOut);
}
