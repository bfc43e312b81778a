// A small static server for dist/: correct MIME types (application/wasm), optional Content-Security-Policy,
// optional sub-path. Used by `npm start` and by the browser tests.
//   node scripts/serve.mjs [--root dist] [--port 5173] [--base /] [--csp "policy"]
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

export function serve({ root = 'dist', port = 0, base = '/', csp = '', headers = {} } = {}) {
  const top = resolve(root);
  const server = createServer(async (request, response) => {
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
