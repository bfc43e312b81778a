// The iframe protocol, as pure functions so that they can be tested without a browser.
export const heightMessageType = 'qkv-lesson:height';
export const heightRequestType = 'qkv-lesson:height-request';

// parent-origin names the page the lesson's iframe sits in, as an http(s) origin; a URL of that page means its
// origin (https://example.org/ and https://example.org/course/1 are https://example.org). Anything else is a
// problem, reported in words, and names no origin: no answers go to the parent, and postMessage never throws.
export function readParentOrigin(value: string | null): { origin: string | null; problem: string | null } {
  if (value === null || value === '') return { origin: null, problem: null };
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    // not a URL (e.g. no scheme): reported below
  }
  if (url && (url.protocol === 'https:' || url.protocol === 'http:')) return { origin: url.origin, problem: null };
  return {
    origin: null,
    problem: `parent-origin="${value}" is not an origin: write the course page's scheme and host, e.g. https://example.org. Answers are not posted to the parent page.`,
  };
}

// Where answer statements may be posted: the origin parent-origin names; without the attribute, the lesson's
// own origin if the parent page is on it (such a page can read the frame's document anyway); never "*".
export function answerTarget(parentOrigin: string | null): string | null {
  if (window.parent === window) return null;
  const { origin, problem } = readParentOrigin(parentOrigin);
  if (origin || problem) return origin;
  try {
    return window.parent.location.origin === location.origin ? location.origin : null;
  } catch {
    return null; // another origin's location cannot be read
  }
}

export type HostMessage = 'h5p-ready' | 'h5p-hello' | 'h5p-resize-prepared' | 'h5p-resize' | 'height-request';

// Recognises the few messages a host may send; anything else (wrong type, extra shape) is ignored.
export function readHostMessage(data: unknown): HostMessage | null {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return null;
  const message = data as Record<string, unknown>;
  if (message.context === 'h5p') {
    if (message.action === 'ready') return 'h5p-ready';
    if (message.action === 'hello') return 'h5p-hello';
    if (message.action === 'resizePrepared') return 'h5p-resize-prepared';
    if (message.action === 'resize') return 'h5p-resize';
    return null;
  }
  if (message.type === heightRequestType) return 'height-request';
  return null;
}

// Whether the lesson's height measured now is the one to report: not from ready until data-laid-out, while
// stretches of the lesson wait out of the layout (laid-out.ts; issue 17: a height reported too early was 694 px
// for a lesson of about 2,500 px). Before ready the frame shows the loading state: that height is real.
export function heightIsReal(lesson: { state?: string; laidOut?: string }): boolean {
  return lesson.state !== 'ready' || lesson.laidOut !== undefined;
}

// What the iframe sends when its content height may have changed.
export function heightMessages(size: { scrollHeight: number; clientHeight: number }, h5pConnected: boolean): unknown[] {
  const messages: unknown[] = [
    { type: heightMessageType, height: size.scrollHeight },
    // Canvas LMS reads a JSON string with subject lti.frameResize.
    JSON.stringify({ subject: 'lti.frameResize', height: size.scrollHeight }),
  ];
  // H5P's resizer first shrinks the frame to the client height, then grows it to the scroll height.
  if (h5pConnected) messages.push({ context: 'h5p', action: 'prepareResize', scrollHeight: size.scrollHeight, clientHeight: size.clientHeight });
  return messages;
}

// H5P's resizer answers a frame's hello only if it is already listening, and announces itself (`ready`) only
// to frames whose address contains "h5p"; a course page may load it after the frame. So the frame repeats
// hello until the resizer answers: these are the waits (ms) before each repeat, growing, a minute in all.
// After that only a `ready` starts the handshake.
export const helloRepeatDelays: readonly number[] = [250, 500, 1000, 2000, ...new Array<number>(14).fill(4000)];
