// A small static server for dist/: correct MIME types (application/wasm), optional Content-Security-Policy,
// optional sub-path. Used by `npm start` and by the browser tests.
//   node scripts/serve.mjs [--root dist] [--port 5173] [--base /] [--csp "policy"]
// The request line and headers may take up to headerLimit bytes (Node's default is 16 KiB): the page's own links
// keep their query under 2,000 characters (web/src/lesson/url-state.ts), and links written before that, with
// every cell in the query, stay under 64 KiB. A longer request gets 431 with a sentence that says so.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';

const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.png': 'image/png',
};

export const headerLimit = 65536;

// What an over-long request gets: the status and a sentence (Node alone sends a bare 431). Other malformed
// requests get 400, as Node's default handler gives them.
function refuseRequest(error, socket) {
  if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  if (error.code !== 'HPE_HEADER_OVERFLOW') return void socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  const text = `The request's address and headers are longer than this server accepts (64 KiB). A lesson link keeps its numbers after the # when they would make the address long: copy the link from the lesson's page again.\n`;
  socket.end(`HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
}

export function serve({ root = 'dist', port = 0, base = '/', csp = '', headers = {} } = {}) {
  const top = resolve(root);
  const server = createServer({ maxHeaderSize: headerLimit }, async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (!url.pathname.startsWith(base)) {
      response.writeHead(404).end('not found');
      return;
    }
    let path = normalize(join(top, decodeURIComponent(url.pathname.slice(base.length))));
    if (!path.startsWith(top)) {
      response.writeHead(403).end('forbidden');
      return;
    }
    try {
      if ((await stat(path)).isDirectory()) path = join(path, 'index.html');
      const body = await readFile(path);
      const extra = { ...headers };
      if (csp) extra['Content-Security-Policy'] = csp;
      response.writeHead(200, { 'Content-Type': types[extname(path)] ?? 'application/octet-stream', ...extra });
      response.end(body);
    } catch {
      response.writeHead(404).end('not found');
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
