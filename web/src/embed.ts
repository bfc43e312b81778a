// The iframe embed: the same element, configured from this page's query string, reporting its height to
// the parent in three dialects (H5P's resizer, Canvas's lti.frameResize, and our own message).
import './lesson/define';
import { readHostMessage, heightMessages, embedAttributes, helloRepeatDelays, readParentOrigin } from './lesson/embed-protocol';

const lesson = document.querySelector('qkv-lesson')!;
for (const [name, value] of embedAttributes(location.search)) lesson.setAttribute(name, value);

// Normalised (https://example.org/ → https://example.org), or null if not set or not an origin (the element
// warns about that); only answers need it, which the element posts itself.
const parentOrigin = readParentOrigin(lesson.getAttribute('parent-origin')).origin;
let h5pConnected = false;
let helloTimer: number | undefined;

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

function reportHeight(): void {
  for (const message of heightMessages(sizes(), h5pConnected)) post(message);
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
  if (message === 'h5p-resize-prepared') post({ context: 'h5p', action: 'resize', scrollHeight: sizes().scrollHeight });
  else reportHeight();
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

new ResizeObserver(reportHeight).observe(document.body);
if (window.parent !== window) repeatHello();
reportHeight();
