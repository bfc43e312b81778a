// Right after the first frame, the rest of the lesson is laid out (in the next frame), all of it from then on:
// .visible-first lays out only what is near the viewport until then (styles.css). A document the browser does
// not render gets no animation frame (an off-screen cross-origin iframe, a background tab): without one, the
// rest is laid out after 500 ms anyway (far more than a rendered page takes to its first frame), so that the
// lesson's real height, not .visible-first's estimates, is there to report. Returns a cancel function.
export function layOutAfterFirstFrame(article: HTMLElement, laidOut: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let frame = 0;
  const cancel = () => {
    cancelAnimationFrame(frame);
    clearTimeout(timer);
  };
  const layOut = () => {
    cancel();
    article.classList.remove('visible-first');
    laidOut();
  };
  frame = requestAnimationFrame(() => {
    clearTimeout(timer);
    timer = setTimeout(layOut, 0);
  });
  timer = setTimeout(layOut, 500);
  return cancel;
}
