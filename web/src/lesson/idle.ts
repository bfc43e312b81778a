// The page's idle work (the numerical checks, the self-score experiment, the warm-up) and when it runs.

// Runs `callback` once the page's thread is idle, `latest` ms later at the latest (Chromium gives some frames,
// a sandboxed iframe's, no idle period at all). Callers keep each callback short (a slice of work, well under
// 50 ms) and ask again for the next. The callbacks of the whole page wait in one queue and run one per idle
// moment, in the order asked: two slices run back to back would make one long frame. Returns a cancel function.
export function whenIdle(callback: () => void): () => void {
  return enqueue(callback, false);
}

// The same, ahead of every callback waiting: the next step of a piece of work split over idle moments (drawing
// what a step computed), so that it does not wait behind the work asked for since (the warm-up's slices).
export function whenIdleNext(callback: () => void): () => void {
  return enqueue(callback, true);
}

const latest = 2000;

function enqueue(callback: () => void, ahead: boolean): () => void {
  const job: IdleJob = { callback, due: performance.now() + latest };
  if (ahead) waiting.unshift(job);
  else waiting.push(job);
  waitForIdle();
  return () => {
    const at = waiting.indexOf(job);
    if (at < 0) return; // run already, or cancelled
    waiting.splice(at, 1);
    if (waiting.length > 0) return;
    cancelIdleWait?.(); // nothing left to wait for
    cancelIdleWait = undefined;
  };
}

type IdleJob = { callback: () => void; due: number };
const waiting: IdleJob[] = []; // in the order they run
let cancelIdleWait: (() => void) | undefined;

function waitForIdle(): void {
  if (cancelIdleWait || waiting.length === 0) return;
  let due = Infinity;
  for (const job of waiting) if (job.due < due) due = job.due;
  cancelIdleWait = nextIdleMoment(() => {
    cancelIdleWait = undefined;
    try {
      waiting.shift()?.callback();
    } finally {
      waitForIdle();
    }
  }, due - performance.now());
}

// requestIdleCallback, where the engine has it (a callback asked for during an idle period waits for the next).
// Where it has not (WebKit), a task of its own right after the next frame is drawn, through a MessageChannel (no
// timer clamping), or after `timeout` ms if no frame comes (a document that is not rendered).
function nextIdleMoment(callback: () => void, timeout: number): () => void {
  if (typeof requestIdleCallback === 'function') {
    // 1 ms at least: requestIdleCallback takes a timeout of 0 (or less) as none at all.
    const handle = requestIdleCallback(() => callback(), { timeout: timeout > 1 ? timeout : 1 });
    return () => cancelIdleCallback(handle);
  }
  const channel = new MessageChannel();
  let frame = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const cancel = () => {
    cancelAnimationFrame(frame);
    clearTimeout(timer);
    channel.port1.onmessage = null;
    channel.port1.close();
  };
  const run = () => {
    cancel();
    callback();
  };
  channel.port1.onmessage = run;
  frame = requestAnimationFrame(() => channel.port2.postMessage(null));
  timer = setTimeout(run, timeout);
  return cancel;
}
