// The iframe embed: the same element, configured from this page's query string, reporting its height to
// the parent in three dialects (H5P's resizer, Canvas's lti.frameResize, and our own message).
import './lesson/define';
import { registerOffline } from './offline';
import { embedAttributes } from './lesson/attributes';
import { readHostMessage, heightMessages, heightIsReal, helloRepeatDelays, readParentOrigin } from './lesson/embed-protocol';

const lesson = document.querySelector('qkv-lesson')!;
const query = embedAttributes(location.search);
for (const [name, value] of query.attributes) lesson.setAttribute(name, value);
for (const problem of query.problems) console.warn(`<qkv-lesson>: ${problem}`);
registerOffline(lesson); // offline after one visit (web/pwa.ts)

// Normalised (https://example.org/ → https://example.org), or null if not set or not an origin (the element
// warns about that); only answers need it, which the element posts itself.
const parentOrigin = readParentOrigin(lesson.getAttribute('parent-origin')).origin;
let h5pConnected = false;
let helloTimer: number | undefined;
let reported: number | undefined; // the last height posted
let checkTimer: number | undefined;

// Heights and the H5P handshake tell nothing about the learner, so they go to any parent.
function post(message: unknown): void {
  if (window.parent !== window) window.parent.postMessage(message, '*');
}

// The body's height, not the document's: the document is never shorter than the frame, so measuring it
// would let the frame grow but never shrink. scrollHeight rounds a fractional layout height down, which
// would leave the last fraction of a pixel outside the frame: the body's box, rounded up, covers it.
function sizes() {
  const box = Math.ceil(document.body.getBoundingClientRect().height); // layout pixels, not lesson numbers
  return { scrollHeight: Math.max(document.body.scrollHeight, box), clientHeight: document.documentElement.clientHeight }; // layout pixels, not lesson numbers
}

// Not while the lesson holds estimated heights: qkv-lesson-laid-out reports the real one (below).
function reportHeight(): void {
  if (!heightIsReal(lesson.dataset)) return;
  const size = sizes();
  reported = size.scrollHeight;
  for (const message of heightMessages(size, h5pConnected)) post(message);
}

// A height that differs from the last one posted.
function reportChange(): void {
  if (heightIsReal(lesson.dataset) && sizes().scrollHeight !== reported) reportHeight();
}

// One measurement for a burst of changes (a render touches many nodes).
function checkSoon(): void {
  if (checkTimer !== undefined) return;
  checkTimer = window.setTimeout(() => {
    checkTimer = undefined;
    reportChange();
  }, 100);
}

// Messages from the parent are only ever compared with expected shapes; nothing is evaluated or inserted.
window.addEventListener('message', (event) => {
  if (event.source !== window.parent) return;
  if (parentOrigin && event.origin !== parentOrigin) return;
  const message = readHostMessage(event.data);
  if (!message) return;
  if (message === 'h5p-ready') return sayHello();
  if (message === 'h5p-hello') {
    h5pConnected = true;
    window.clearTimeout(helloTimer);
  }
  if (message !== 'h5p-resize-prepared') reportHeight();
  else if (heightIsReal(lesson.dataset)) post({ context: 'h5p', action: 'resize', scrollHeight: sizes().scrollHeight });
});

function sayHello(): void {
  post({ context: 'h5p', action: 'hello' });
}

// Hello now, and again after each of the growing waits until H5P's resizer answers (it may load later).
function repeatHello(repeat = 0): void {
  if (h5pConnected) return;
  sayHello();
  if (repeat < helloRepeatDelays.length) helloTimer = window.setTimeout(() => repeatHello(repeat + 1), helloRepeatDelays[repeat]);
}

// A frame the browser does not render (an off-screen cross-origin one) gets no ResizeObserver callbacks and no
// animation frames. So it also reports when the lesson is laid out (the element does that without a frame
// too), checks its height after the lesson's DOM changes (the self-score section's first result comes from a
// worker, after ready) and after fonts load, and answers the host's height requests (qkv-embed-host.js asks
// on load and as the frame nears the viewport). getBoundingClientRect lays the document out on the spot,
// rendered or not.
new ResizeObserver(reportChange).observe(document.body);
lesson.addEventListener('qkv-lesson-laid-out', reportHeight);
new MutationObserver(checkSoon).observe(lesson.shadowRoot ?? lesson, { subtree: true, childList: true, characterData: true, attributes: true });
document.fonts?.addEventListener('loadingdone', checkSoon);
if (window.parent !== window) repeatHello();
reportHeight();
