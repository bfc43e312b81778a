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
// stable qkv-lesson.js, the favicon) is `no-cache` with an ETag and Last-Modified, and a matching If-None-Match
// (or an If-Modified-Since not older than the file) gets 304. Compression: each compressible file is compressed
// once per version (path, size and mtime), brotli at quality 11 and gzip at level 9, and kept in memory.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
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

// woff2 and png are compressed already; .ttf/.woff are not shipped (vite.config.ts) but would gain too.
const compressible = new Set(['.html', '.js', '.mjs', '.css', '.wasm', '.svg', '.json', '.webmanifest', '.txt', '.ttf', '.woff']);
const textTypes = new Set(['.js', '.mjs', '.css', '.svg', '.json', '.webmanifest', '.txt']);
// Vite's [name]-[hash] file names under assets/: the hash is 8 characters of [A-Za-z0-9_-].
export const hashedAsset = /^assets\/[^/]+-[\w-]{8}\.[a-z0-9]+$/;
export const immutable = 'public, max-age=31536000, immutable';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

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

// What an over-long request gets: the status and a sentence (Node alone sends a bare 431). Other malformed
// requests get 400, as Node's default handler gives them.
function refuseRequest(error, socket) {
  if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  if (error.code !== 'HPE_HEADER_OVERFLOW') return void socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  const text = `The request's address and headers are longer than this server accepts (64 KiB). A lesson link keeps its numbers after the # when they would make the address long: copy the link from the lesson's page again.\n`;
  socket.end(`HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
}

// Options beyond the command line's, for tests:
//   headers    extra response headers for every file
//   cache      false: every response `no-store`, no validators (a test that counts each page's downloads)
//   compress   false: send files as they are
//   route(url) called first for every request: undefined serves the file at url.pathname; { pathname } serves
//              that file instead; { ext, body } answers with that body (a page the test makes)
//   inject(html, url) rewrites every HTML page served from the folder (a script the test puts first);
//   transform(path, text, url) rewrites any other text file (.js, .css, …) it returns a string for.
export function serve({ root = 'dist', port = 0, base = '/', csp = '', headers = {}, cache = true, compress = true, route, inject, transform } = {}) {
  const top = resolve(root);
  // path -> { version, etag, lastModified, raw, br, gzip }: one entry per file, replaced when the file changes.
  const files = new Map();

  async function load(path) {
    const info = await stat(path);
    const version = `${info.size}-${info.mtimeMs}`;
    const known = files.get(path);
    if (known?.version === version) return known;
    const raw = await readFile(path);
    const entry = { version, raw, etag: `"${createHash('sha1').update(raw).digest('base64url')}"`, lastModified: new Date(Math.floor(info.mtimeMs / 1000) * 1000).toUTCString() };
    files.set(path, entry);
    return entry;
  }

  // Compressed once per file version (the promise is kept, so concurrent requests share one compression).
  function encoded(entry, encoding) {
    entry[encoding] ??= encoding === 'br'
      ? brotli(entry.raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: entry.raw.length } })
      : gzipped(entry.raw, { level: 9 });
    return entry[encoding];
  }

  const server = createServer({ maxHeaderSize: headerLimit }, async (request, response) => {
    try {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const routed = route?.(url);
      const extra = { ...headers };
      if (csp) extra['Content-Security-Policy'] = csp;
      const encoding = compress ? chooseEncoding(request.headers['accept-encoding']) : undefined;
      const head = request.method === 'HEAD';

      // The file's bytes, or its brotli/gzip form when the type gains from it and the browser takes one.
      const reply = async (ext, entry, fields) => {
        let body = entry.raw;
        if (compress && compressible.has(ext)) {
          fields.Vary = 'Accept-Encoding';
          if (encoding && body.length > 0) {
            body = await encoded(entry, encoding);
            fields['Content-Encoding'] = encoding;
          }
        }
        response.writeHead(200, { 'Content-Type': types[ext] ?? 'application/octet-stream', 'Content-Length': body.length, ...fields, ...extra });
        response.end(head ? undefined : body);
      };

      if (routed?.body !== undefined) return void (await reply(routed.ext, { raw: Buffer.from(routed.body) }, { 'Cache-Control': 'no-store' }));
      const pathname = routed?.pathname ?? url.pathname;
      if (!pathname.startsWith(base)) return void response.writeHead(404).end('not found');
      let path = normalize(join(top, decodeURIComponent(pathname.slice(base.length))));
      if (path !== top && !path.startsWith(top + sep)) return void response.writeHead(403).end('forbidden');
      if ((await stat(path)).isDirectory()) path = join(path, 'index.html');
      const ext = extname(path);
      let entry = await load(path);
      const changed = ext === '.html' && inject
        ? inject(entry.raw.toString('utf8'), url)
        : transform && textTypes.has(ext) ? transform(path, entry.raw.toString('utf8'), url) : undefined;
      if (typeof changed === 'string') entry = { raw: Buffer.from(changed) }; // made for this request: not kept

      const fields = {};
      if (!cache) fields['Cache-Control'] = 'no-store';
      else if (hashedAsset.test(relative(top, path).split(sep).join('/'))) fields['Cache-Control'] = immutable;
      else {
        fields['Cache-Control'] = 'no-cache';
        if (entry.etag) {
          fields.ETag = entry.etag;
          fields['Last-Modified'] = entry.lastModified;
          const match = request.headers['if-none-match'];
          const since = request.headers['if-modified-since'];
          const fresh = match !== undefined
            ? match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === entry.etag || tag.trim() === '*')
            : since !== undefined && Date.parse(since) >= Date.parse(entry.lastModified);
          if (fresh) {
            if (compress && compressible.has(ext)) fields.Vary = 'Accept-Encoding';
            response.writeHead(304, { ...fields, ...extra });
            return void response.end();
          }
        }
      }
      await reply(ext, entry, fields);
    } catch {
      if (!response.headersSent) response.writeHead(404).end('not found');
      else response.destroy();
    }
  });
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
