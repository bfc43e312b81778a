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
  if (ahead) {
    job.next = nextJob();
    firstJob = job;
    lastJob ??= job;
  } else {
    if (lastJob) lastJob.next = job;
    else firstJob = job;
    lastJob = job;
  }
  waitForIdle();
  return () => {
    if (job.done) return;
    job.done = true;
    if (nextJob()) return;
    cancelIdleWait?.(); // nothing left to wait for
    cancelIdleWait = undefined;
  };
}

// The queue is a linked list, not an array: a host page may have changed Array.prototype (links.test.mjs).
type IdleJob = { callback: () => void; due: number; done?: boolean; next?: IdleJob }; // done: run or cancelled
let firstJob: IdleJob | undefined;
let lastJob: IdleJob | undefined;
let cancelIdleWait: (() => void) | undefined;

function nextJob(): IdleJob | undefined {
  while (firstJob?.done) firstJob = firstJob.next;
  if (!firstJob) lastJob = undefined;
  return firstJob;
}

function waitForIdle(): void {
  if (cancelIdleWait || !nextJob()) return;
  let due = Infinity;
  for (let job = firstJob; job; job = job.next) if (!job.done && job.due < due) due = job.due;
  cancelIdleWait = nextIdleMoment(() => {
    cancelIdleWait = undefined;
    const job = nextJob();
    try {
      if (job) {
        job.done = true;
        job.callback();
      }
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
