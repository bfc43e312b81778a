// npm start's server (scripts/serve.mjs) and long requests (issue 18, item 4): links the page wrote before the
// fragment form, with every cell in the query, load; a request past its limit gets 431 and a sentence.
// Compression and cache headers as a good static host sends them (issue 19, item 3): brotli or gzip as the
// request accepts, bytes that decompress to the file, immutable hashed assets, no-cache pages with validators.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { headerLimit, serve } from '../../scripts/serve.mjs';
import { decode, fetchRaw as fetchHttp } from './http.mjs';

let server;
let port;
let root;
// Files as a build has them: a page, hashed assets under assets/, the service worker and a font.
const script = `export const lesson = ${JSON.stringify('query, key and value '.repeat(400))};\n`;
const wasm = Buffer.concat([Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]), Buffer.alloc(20000, 7)]);
const font = Buffer.from('wOF2 not compressible again');
before(async () => {
  root = mkdtempSync(join(tmpdir(), 'qkv-serve-'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>lesson</title>');
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'assets/define-CqfjqYFq.js'), script);
  writeFileSync(join(root, 'assets/qkv-x_QgRWtv.wasm'), wasm);
  writeFileSync(join(root, 'assets/KaTeX_Math-Italic-t53AETM-.woff2'), font);
  writeFileSync(join(root, 'sw.js'), script);
  server = await serve({ root, port: 0 });
  ({ port } = server.address());
});
after(() => new Promise((done) => server.close(done)));

// The raw bytes of an answer of this file's server (or the one `at` names), with its headers.
const fetchRaw = (path, headers = {}, method = 'GET', at = port) => fetchHttp(at, path, headers, method);

function get(path) {
  return new Promise((done, fail) => {
    const sent = request({ host: '127.0.0.1', port, path }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => done({ status: response.statusCode, type: response.headers['content-type'], body }));
    });
    sent.on('error', fail);
    sent.end();
  });
}

test('the limit is 64 KiB, four times Node’s default of 16 KiB', () => {
  assert.equal(headerLimit, 65536);
});

test('an 18,000-character link (the issue’s, refused with 431 by Node’s default) loads', async () => {
  const link = `/?b=8&t=8&d=8&h=8&x=${'-0.25%2C'.repeat(2240)}`;
  assert.ok(link.length > 16384 && link.length < 20000, `${link.length} characters`);
  const answer = await get(link);
  assert.equal(answer.status, 200);
  assert.equal(answer.body, '<!doctype html><title>lesson</title>');
});

test('a request past the limit gets 431 and a sentence that says why', async () => {
  const answer = await get(`/?x=${'1'.repeat(headerLimit)}`);
  assert.equal(answer.status, 431);
  assert.equal(answer.type, 'text/plain; charset=utf-8');
  assert.match(answer.body, /^The request's address and headers are longer than this server accepts \(64 KiB\)\. A lesson link keeps its numbers after the # /);
});

test('a request that is not HTTP still gets 400, as from Node’s own handler', async () => {
  const reply = await new Promise((done, fail) => {
    const socket = connect(port, '127.0.0.1', () => socket.end('NOT HTTP\r\n\r\n'));
    let text = '';
    socket.on('data', (chunk) => (text += chunk));
    socket.on('end', () => done(text));
    socket.on('error', fail);
  });
  assert.match(reply, /^HTTP\/1\.1 400 Bad Request\r\n/);
});

const browserAccepts = 'gzip, deflate, br, zstd';
for (const [accept, expected] of [
  [browserAccepts, 'br'],
  ['gzip, deflate', 'gzip'],
  ['br;q=0, gzip', 'gzip'],
  ['gzip;q=0.5, br;q=0.2', 'gzip'],
  ['*', 'br'],
  ['identity', undefined],
  [undefined, undefined],
]) {
  test(`Accept-Encoding ${JSON.stringify(accept)}: the script and the .wasm come ${expected ?? 'uncompressed'}, and decode to the files`, async () => {
    const headers = accept === undefined ? {} : { 'Accept-Encoding': accept };
    for (const [path, file, type] of [['/assets/define-CqfjqYFq.js', Buffer.from(script), 'text/javascript; charset=utf-8'], ['/assets/qkv-x_QgRWtv.wasm', wasm, 'application/wasm']]) {
      const answer = await fetchRaw(path, headers);
      assert.equal(answer.status, 200);
      assert.equal(answer.headers['content-encoding'], expected, path);
      assert.equal(answer.headers['content-type'], type);
      assert.equal(answer.headers.vary, 'Accept-Encoding');
      assert.equal(Number(answer.headers['content-length']), answer.body.length);
      if (expected) assert.ok(answer.body.length < file.length / 4, `${path}: ${answer.body.length} bytes for ${file.length}`);
      assert.deepEqual(decode(answer), file);
    }
  });
}

test('compressed once: the same bytes again, and a changed file is compressed anew', async () => {
  const first = await fetchRaw('/index.html', { 'Accept-Encoding': 'br' });
  assert.equal(decode(first).toString(), '<!doctype html><title>lesson</title>');
  const again = await fetchRaw('/index.html', { 'Accept-Encoding': 'br' });
  assert.deepEqual(again.body, first.body);
  const page = join(root, 'changed.html');
  writeFileSync(page, '<!doctype html><title>one</title>');
  utimesSync(page, new Date(2026, 0, 1), new Date(2026, 0, 1));
  assert.equal(decode(await fetchRaw('/changed.html', { 'Accept-Encoding': 'gzip' })).toString(), '<!doctype html><title>one</title>');
  writeFileSync(page, '<!doctype html><title>two</title>');
  utimesSync(page, new Date(2026, 0, 2), new Date(2026, 0, 2));
  assert.equal(decode(await fetchRaw('/changed.html', { 'Accept-Encoding': 'gzip' })).toString(), '<!doctype html><title>two</title>');
});

test('a woff2 font is sent as it is (compressed already)', async () => {
  const answer = await fetchRaw('/assets/KaTeX_Math-Italic-t53AETM-.woff2', { 'Accept-Encoding': browserAccepts });
  assert.equal(answer.headers['content-encoding'], undefined);
  assert.equal(answer.headers['content-type'], 'font/woff2');
  assert.deepEqual(answer.body, font);
  assert.equal(answer.headers['cache-control'], 'public, max-age=31536000, immutable');
});

test('hashed build assets are cached for a year, immutable', async () => {
  for (const path of ['/assets/define-CqfjqYFq.js', '/assets/qkv-x_QgRWtv.wasm']) {
    assert.equal((await fetchRaw(path)).headers['cache-control'], 'public, max-age=31536000, immutable', path);
  }
});

test('pages, the service worker and unhashed files: no-cache, with an ETag and Last-Modified; a matching If-None-Match gets 304', async () => {
  for (const path of ['/', '/index.html', '/sw.js']) {
    const answer = await fetchRaw(path, { 'Accept-Encoding': browserAccepts });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['cache-control'], 'no-cache', path);
    assert.match(answer.headers.etag, /^"[\w-]+"$/);
    assert.ok(Date.parse(answer.headers['last-modified']) > 0, answer.headers['last-modified']);
    const again = await fetchRaw(path, { 'Accept-Encoding': browserAccepts, 'If-None-Match': answer.headers.etag });
    assert.equal(again.status, 304, path);
    assert.equal(again.body.length, 0);
    assert.equal(again.headers.etag, answer.headers.etag);
    const other = await fetchRaw(path, { 'If-None-Match': '"another-version"' });
    assert.equal(other.status, 200, 'a different ETag gets the file');
    const since = await fetchRaw(path, { 'If-Modified-Since': answer.headers['last-modified'] });
    assert.equal(since.status, 304, 'If-Modified-Since the file’s time');
  }
  const a = await fetchRaw('/index.html');
  const b = await fetchRaw('/sw.js');
  assert.notEqual(a.headers.etag, b.headers.etag, 'the ETag follows the content');
});

test('HEAD gets the headers without a body; a missing file 404; a path out of the folder does not escape it', async () => {
  const head = await fetchRaw('/assets/define-CqfjqYFq.js', { 'Accept-Encoding': 'gzip' }, 'HEAD');
  assert.equal(head.status, 200);
  assert.equal(head.headers['content-encoding'], 'gzip');
  assert.equal(head.body.length, 0);
  assert.equal((await fetchRaw('/nothing.js')).status, 404);
  assert.notEqual((await fetchRaw('/..%2f..%2fetc%2fpasswd')).status, 200);
});

test('options for tests: no caching, a route, and a script injected into every page', async () => {
  const other = await serve({
    root,
    port: 0,
    cache: false,
    csp: "default-src 'self'",
    route: (url) => (url.pathname === '/made.js' ? { ext: '.js', body: 'made();' } : url.pathname.startsWith('/alias/') ? { pathname: url.pathname.slice('/alias'.length) } : undefined),
    inject: (html) => html.replace('<title>', '<script src="/made.js"></script><title>'),
  });
  const at = (path, headers) => fetchRaw(path, headers, 'GET', other.address().port);
  try {
    const page = await at('/alias/index.html', { 'Accept-Encoding': 'br' });
    assert.equal(decode(page).toString(), '<!doctype html><script src="/made.js"></script><title>lesson</title>');
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.equal(page.headers['content-security-policy'], "default-src 'self'");
    assert.equal(page.headers.etag, undefined);
    const made = await at('/made.js');
    assert.equal(made.body.toString(), 'made();');
    assert.equal(made.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal((await at('/assets/define-CqfjqYFq.js')).headers['cache-control'], 'no-store');
  } finally {
    await new Promise((done) => other.close(done));
  }
});
