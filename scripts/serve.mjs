// A small static server for dist/ that behaves as a good static host: correct MIME types (application/wasm),
// brotli or gzip as the browser accepts, cache headers, optional Content-Security-Policy, optional sub-path.
// Used by `npm start` and by the browser and engine tests.
//   node scripts/serve.mjs [--root dist] [--port 5173] [--base /] [--csp "policy"]
// The request line and headers may take up to headerLimit bytes (Node's default is 16 KiB): the page's own links
// keep their query under 2,000 characters (web/src/lesson/url-state.ts), and links written before that, with
// every cell in the query, stay under 64 KiB. A longer request gets 431 with a sentence that says so.
//
// Caching: a build's hashed files (assets/<name>-<8-character hash>.<ext>) never change under their name, so they
// are `public, max-age=31536000, immutable`; everything else (the HTML pages, the service worker sw.js, the
// stable qkv-lesson.js, the favicon) is `no-cache`. Every file has an ETag (one per encoding) and Last-Modified,
// and conditional requests are answered as RFC 9110 section 13 says. Compression: each compressible file is
// compressed once per version (path, size and mtime), brotli at quality 11 and gzip at level 9, however many
// requests wait for it, and kept in memory up to cacheLimit bytes.
//
// A class opening the link at once, or a client that never finishes, must not stop the server answering: only
// GET and HEAD are served (405 otherwise), slow or silent connections are closed (timeouts), and no symlink is
// followed out of the root.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { readFile, realpath, stat } from 'node:fs/promises';
import { extname, join, normalize, relative, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

export const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.png': 'image/png',
};

export const headerLimit = 65536;

// Milliseconds. A browser sends its request line and headers in one packet, so 15 s for them is ample even over a
// lossy phone link, and a client that drips them is cut off; a GET has no body, so the whole request gets 30 s.
// An idle kept-alive connection is closed after 5 s (Node's default; browsers reuse theirs sooner or reconnect),
// and any connection with no traffic either way for 30 s. Timeouts are checked every second (Node's default
// checks every 30 s, which would let a dripping client stay up to 45 s).
export const timeouts = { headers: 15000, request: 30000, keepAlive: 5000, idle: 30000, check: 1000 };

// The files and their compressed forms kept in memory: a build is about 3 MB raw, so 64 MiB holds several builds
// side by side and still bounds a server left running across many rebuilds.
export const cacheLimit = 64 * 1024 * 1024;

// woff2 and png are compressed already; .ttf/.woff are not shipped (vite.config.ts) but would gain too.
const compressible = new Set(['.html', '.js', '.mjs', '.css', '.wasm', '.svg', '.json', '.webmanifest', '.txt', '.ttf', '.woff']);
const textTypes = new Set(['.js', '.mjs', '.css', '.svg', '.json', '.webmanifest', '.txt']);
// Vite's [name]-[hash] file names under assets/: the hash is 8 characters of [A-Za-z0-9_-].
export const hashedAsset = /^assets\/[^/]+-[\w-]{8}\.[a-z0-9]+$/;
export const immutable = 'public, max-age=31536000, immutable';

const compressors = {
  br: (raw) => promisify(brotliCompress)(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }),
  gzip: (raw) => promisify(gzip)(raw, { level: 9 }),
};
// The suffix that makes each encoding's ETag its own (RFC 9110 8.8.3: a tag names one representation).
const etagSuffix = { br: '-br', gzip: '-gz' };

// The encoding to send for an Accept-Encoding header: brotli, else gzip, else none; q=0 refuses one.
export function chooseEncoding(header = '') {
  const accepted = new Map();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    accepted.set(name, q ? Number(q.slice(2)) : 1);
  }
  const weight = (name) => accepted.get(name) ?? (accepted.has('*') ? accepted.get('*') : 0);
  const best = ['br', 'gzip'].filter((name) => weight(name) > 0).sort((a, b) => weight(b) - weight(a));
  return best[0];
}

const monthNames = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const month = monthNames.join('|');
const day = 'Mon|Tue|Wed|Thu|Fri|Sat|Sun';
// RFC 9110 5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms, which a recipient must accept too;
// each with how its captures map to [year, month, day, hour, minute, second].
const httpDateForms = [
  [new RegExp(`^(?:${day}), (\\d{2}) (${month}) (\\d{4}) (\\d{2}):(\\d{2}):(\\d{2}) GMT$`), (d, m, y, ...time) => [y, m, d, ...time]],
  [new RegExp(`^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-(${month})-(\\d{2}) (\\d{2}):(\\d{2}):(\\d{2}) GMT$`), (d, m, y, ...time) => [fullYear(Number(y)), m, d, ...time]],
  [new RegExp(`^(?:${day}) (${month}) ([ \\d]\\d) (\\d{2}):(\\d{2}):(\\d{2}) (\\d{4})$`), (m, d, hour, minute, second, y) => [y, m, d, hour, minute, second]],
];

// RFC 850's two-digit year: the year with those digits that is at most 50 years ahead of now (RFC 9110 5.6.7).
function fullYear(twoDigits) {
  const now = new Date().getUTCFullYear();
  const year = now - (now % 100) + twoDigits;
  if (year > now + 50) return year - 100;
  return year + 100 <= now + 50 ? year + 100 : year;
}

// An HTTP-date in milliseconds, or undefined for any other text, an impossible day or time included.
export function parseHttpDate(text) {
  for (const [form, order] of httpDateForms) {
    const match = form.exec(text);
    if (!match) continue;
    const [year, monthName, date, ...time] = order(...match.slice(1));
    const parts = [Number(year), monthNames.indexOf(monthName), Number(date), ...time.map(Number)];
    const parsed = new Date(Date.UTC(...parts));
    const back = [parsed.getUTCFullYear(), parsed.getUTCMonth(), parsed.getUTCDate(), parsed.getUTCHours(), parsed.getUTCMinutes(), parsed.getUTCSeconds()];
    return back.every((value, i) => value === parts[i]) ? parsed.getTime() : undefined;
  }
  return undefined;
}

// Whether an If-Match or If-None-Match field names the representation's ETag: `*` names any; the weak comparison
// ignores W/ on both sides, the strong one matches strong tags only (RFC 9110 8.8.3.2).
function tagMatches(field, etag, weak) {
  if (field.trim() === '*') return true;
  const tags = field.match(/(?:W\/)?"[^"]*"/g) ?? [];
  return tags.some((tag) => (weak ? tag.replace(/^W\//, '') === etag : tag === etag));
}

// The status a request's preconditions give, in RFC 9110 13.2.2's order, or undefined to send the file. Only GET
// and HEAD reach here, so a matching If-None-Match is 304. If-Modified-Since counts only without If-None-Match and
// when it is an HTTP-date not later than now (13.1.3: "a date which is later than the server's current time is
// invalid"). Ranges are not served, so If-Range has nothing to decide.
function preconditionStatus(headers, etag, modified) {
  const unmodifiedSince = parseHttpDate(headers['if-unmodified-since'] ?? '');
  if (headers['if-match'] !== undefined) {
    if (!tagMatches(headers['if-match'], etag, false)) return 412;
  } else if (unmodifiedSince !== undefined && modified > unmodifiedSince) return 412;
  if (headers['if-none-match'] !== undefined) return tagMatches(headers['if-none-match'], etag, true) ? 304 : undefined;
  const since = parseHttpDate(headers['if-modified-since'] ?? '');
  return since !== undefined && since <= Date.now() && modified <= since ? 304 : undefined;
}

// Files read and compressed, one entry per path for its current version (size and mtime), the least recently used
// dropped first once all entries hold more than `limit` bytes. Each step is a promise kept in its entry, so
// concurrent requests for a file share one read and one compression per encoding.
function fileCache(limit, onCompress) {
  const entries = new Map(); // path -> entry, the least recently used first
  let bytes = 0;
  const drop = (entry) => {
    if (entries.get(entry.path) !== entry) return;
    entries.delete(entry.path);
    bytes -= entry.bytes;
  };
  const count = (entry, size) => {
    if (entries.get(entry.path) !== entry) return; // dropped already, or made for one request
    entry.bytes += size;
    bytes += size;
    for (const oldest of entries.values()) {
      if (bytes <= limit) break;
      drop(oldest);
    }
  };
  const hash = (raw) => ({ raw, tag: createHash('sha1').update(raw).digest('base64url') });

  async function load(path) {
    const info = await stat(path);
    const version = `${info.size}-${info.mtimeMs}`;
    let entry = entries.get(path);
    if (entry?.version === version) {
      entries.delete(path); // and back at the end: the most recently used
      entries.set(path, entry);
      return entry;
    }
    if (entry) drop(entry);
    entry = { path, version, bytes: 0, modified: Math.floor(info.mtimeMs / 1000) * 1000, encoded: new Map() };
    entry.ready = readFile(path).then(hash);
    entry.ready.then(({ raw }) => count(entry, raw.length), () => drop(entry));
    entries.set(path, entry);
    return entry;
  }

  // A body made for one request (a test's route or injected script): compressed for it alone, never kept, no tag.
  const transient = (raw, path) => ({ path, ready: Promise.resolve({ raw }), encoded: new Map() });

  function encoded(entry, raw, encoding) {
    if (!entry.encoded.has(encoding)) {
      onCompress?.(entry.path, encoding);
      const body = compressors[encoding](raw);
      entry.encoded.set(encoding, body);
      body.then((buffer) => count(entry, buffer.length), () => entry.encoded.delete(encoding));
    }
    return entry.encoded.get(encoding);
  }
  return { load, transient, encoded };
}

// The file a request names, as asked for (path) and with every symlink resolved (real), or undefined when the
// real path is outside the root's; a folder stands for its index.html. A missing file throws, as stat does.
async function realFile(top, path) {
  const realTop = await realpath(top);
  let real = await realpath(path);
  if ((await stat(real)).isDirectory()) {
    path = join(path, 'index.html');
    real = await realpath(join(real, 'index.html'));
  }
  return real.startsWith(realTop + sep) ? { path, real } : undefined;
}

// What an over-long or unfinished request gets: the status and, for 431, a sentence (Node alone sends a bare
// 431). Other malformed requests get 400, as Node's default handler gives them.
function refuseRequest(error, socket) {
  if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return void socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
  if (error.code !== 'HPE_HEADER_OVERFLOW') return void socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  const text = `The request's address and headers are longer than this server accepts (64 KiB). A lesson link keeps its numbers after the # when they would make the address long: copy the link from the lesson's page again.\n`;
  socket.end(`HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
}

function refuseMethod(response, extra) {
  const text = 'This server only sends files: it answers GET and HEAD.\n';
  response.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...extra });
  response.end(text);
}

// Options beyond the command line's, for tests:
//   headers    extra response headers for every file
//   cache      false: every response `no-store`, no validators (a test that counts each page's downloads)
//   compress   false: send files as they are
//   route(url) called first for every request: undefined serves the file at url.pathname; { pathname } serves
//              that file instead; { ext, body } answers with that body (a page the test makes)
//   inject(html, url) rewrites every HTML page served from the folder (a script the test puts first);
//   transform(path, text, url) rewrites any other text file (.js, .css, …) it returns a string for.
//   onCompress(path, encoding) is called as each compression starts (a test counts them)
//   cacheLimit bytes of files and compressed forms kept in memory; timeouts, in ms, any of those above
export function serve({ root = 'dist', port = 0, base = '/', csp = '', headers = {}, cache = true, compress = true, route, inject, transform, onCompress, cacheLimit: limit = cacheLimit, timeouts: timing = {} } = {}) {
  const top = resolve(root);
  const files = fileCache(limit, onCompress);
  const extra = { ...headers, ...(csp ? { 'Content-Security-Policy': csp } : {}) };

  // The entry a request names, with its extension and the path it was asked by, or undefined (not found).
  async function find(url) {
    const routed = route?.(url);
    if (routed?.body !== undefined) return { ext: routed.ext, entry: files.transient(Buffer.from(routed.body), url.pathname), made: true };
    const pathname = routed?.pathname ?? url.pathname;
    if (!pathname.startsWith(base)) return undefined;
    const asked = normalize(join(top, decodeURIComponent(pathname.slice(base.length))));
    if (!asked.startsWith(top + sep) && asked !== top) return undefined;
    const file = await realFile(top, asked);
    if (!file) return undefined;
    const { path, real } = file;
    const ext = extname(path);
    const entry = await files.load(real);
    const { raw } = await entry.ready;
    const changed = ext === '.html' && inject
      ? inject(raw.toString('utf8'), url)
      : transform && textTypes.has(ext) ? transform(path, raw.toString('utf8'), url) : undefined;
    return { ext, path, entry: typeof changed === 'string' ? files.transient(Buffer.from(changed), real) : entry };
  }

  async function answer(request, response) {
    if (request.method !== 'GET' && request.method !== 'HEAD') return refuseMethod(response, extra);
    const url = new URL(request.url ?? '/', 'http://localhost');
    const found = await find(url);
    if (!found) return void response.writeHead(404).end('not found');
    const { ext, path, entry, made } = found;
    const { raw, tag } = await entry.ready;
    const fields = { 'Cache-Control': made || !cache ? 'no-store' : hashedAsset.test(relative(top, path).split(sep).join('/')) ? immutable : 'no-cache' };
    const gains = compress && compressible.has(ext);
    if (gains) fields.Vary = 'Accept-Encoding';
    const encoding = gains && raw.length > 0 ? chooseEncoding(request.headers['accept-encoding']) : undefined;
    if (cache && tag) {
      fields.ETag = `"${tag}${etagSuffix[encoding] ?? ''}"`;
      fields['Last-Modified'] = new Date(entry.modified).toUTCString();
      const status = preconditionStatus(request.headers, fields.ETag, entry.modified);
      if (status) return void response.writeHead(status, { ...fields, ...(status === 412 ? { 'Content-Length': 0 } : {}), ...extra }).end();
    }
    const body = encoding ? await files.encoded(entry, raw, encoding) : raw;
    if (encoding) fields['Content-Encoding'] = encoding;
    response.writeHead(200, { 'Content-Type': types[ext] ?? 'application/octet-stream', 'Content-Length': body.length, ...fields, ...extra });
    response.end(request.method === 'HEAD' ? undefined : body);
  }

  const times = { ...timeouts, ...timing };
  const server = createServer({ maxHeaderSize: headerLimit, connectionsCheckingInterval: times.check }, (request, response) =>
    answer(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(404).end('not found');
      else response.destroy();
    }),
  );
  Object.assign(server, { headersTimeout: times.headers, requestTimeout: times.request, keepAliveTimeout: times.keepAlive });
  server.setTimeout(times.idle); // no 'timeout' listener: Node destroys the idle socket
  server.on('clientError', refuseRequest);
  return new Promise((done) => server.listen(port, '127.0.0.1', () => done(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : fallback;
  };
  const server = await serve({
    root: option('root', 'dist'),
    port: Number(option('port', '5173')),
    base: option('base', '/'),
    csp: option('csp', ''),
  });
  const { port } = server.address();
  console.log(`The lesson is served at http://127.0.0.1:${port}${option('base', '/')}  (Ctrl+C stops it)`);
}
