// The lesson is laid out a stretch per frame, so that no frame after ready lays out the whole of it. Each stretch
// (.later: a part of the diagram or of a section, or a section without parts) is in the page from ready, its DOM
// and text complete, but out of the layout (styles.css) until its turn: in the frame after ready, the stretches
// the viewport would show; then, a frame each, any the viewport has come to, else the next in reading order.
// Out of the layout, not content-visibility: hidden: a browser's form autofill reads the position of every input
// a while after the page changes, which lays out every skipped stretch that holds one in that one task.
// A document the browser does not render gets no animation frame (an off-screen cross-origin iframe, a background
// tab): when none comes for 500 ms (far more than a rendered page waits for one), the rest is laid out at once, so
// that the lesson's real height is there to report. Calls laidOut once no stretch waits; returns a cancel function.
export const waitingStretch = 'later';

export function layOutInSteps(article: HTMLElement, laidOut: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let frame = 0;
  const cancel = () => {
    cancelAnimationFrame(frame);
    clearTimeout(timer);
  };
  const waiting = () => [...article.querySelectorAll<HTMLElement>(`.${waitingStretch}`)];
  const finish = () => {
    cancel();
    waiting().forEach(layOut);
    laidOut();
  };
  const nextFrame = () => {
    frame = requestAnimationFrame(() => {
      clearTimeout(timer);
      step();
    });
    timer = setTimeout(finish, 500);
  };
  const step = () => {
    // A stretch in a hidden section costs no layout: it goes along.
    for (const stretch of waiting()) if (stretch.closest('[hidden]')) layOut(stretch);
    const next = waiting()[0];
    if (next && !layOutInView(waiting())) layOut(next);
    if (waiting().length > 0) nextFrame();
    else finish();
  };
  nextFrame();
  return cancel;
}

function layOut(stretch: HTMLElement): void {
  stretch.classList.remove(waitingStretch);
}

// Lays out, in reading order, the waiting stretches that would start within the viewport, where the content
// before them ends (each laid out may push the next out of view). Reading positions lays out the page now,
// work this frame would do anyway. Whether any was laid out.
function layOutInView(waiting: HTMLElement[]): boolean {
  let any = false;
  for (const stretch of waiting) {
    const top = wouldStartAt(stretch);
    if (top === undefined || top < 0 || top >= innerHeight) continue;
    layOut(stretch);
    any = true;
  }
  return any;
}

// Where a stretch out of the layout would start: at the end of the nearest box before it, or at the start of
// its parent's. Undefined inside content that is itself out of the layout.
function wouldStartAt(stretch: HTMLElement): number | undefined {
  for (let before = stretch.previousElementSibling; before; before = before.previousElementSibling) {
    const rect = before.getBoundingClientRect();
    if (rect.height > 0) return rect.bottom;
  }
  const parent = stretch.parentElement?.getBoundingClientRect();
  return parent && parent.height > 0 ? parent.top : undefined;
}
