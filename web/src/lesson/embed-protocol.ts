// The iframe protocol, as pure functions so that they can be tested without a browser.
export const heightMessageType = 'qkv-lesson:height';

// Attributes an embedding author may set through the iframe's query string (?sections=diagram&reveal=never).
const allowed = ['sections', 'reveal', 'progress-key', 'parent-origin', 'theme'] as const;

export function embedAttributes(search: string): [string, string][] {
  const params = new URLSearchParams(search);
  const out: [string, string][] = [];
  for (const name of allowed) {
    const value = params.get(name);
    if (value !== null && value.length <= 200) out.push([name, value]);
  }
  // The lesson's own numbers may come in the same query string (a shared link): keep them in sync.
  if (params.has('b')) out.push(['sync-url', '']);
  return out;
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
  if (message.type === 'qkv-lesson:height-request') return 'height-request';
  return null;
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
