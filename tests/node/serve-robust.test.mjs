// npm start's server under a class and under an attacker (issue 41, item 3): concurrent cold requests share one
// compression, the cache's memory is bounded, slow and silent clients are closed by timeouts, no symlink leads
// out of the root, methods other than GET and HEAD get 405, and conditional requests follow RFC 9110 (section 13)
// with an ETag for each encoding.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { serve } from '../../scripts/serve.mjs';
import { decode, fetchRaw } from './http.mjs';

let root;
let outside;
const tempFolders = [];
// A script of about 600 kB that is not one phrase repeated (brotli-11 takes a noticeable time on it).
const large = Array.from({ length: 12000 }, (_, i) => `export const cell${i} = ${JSON.stringify((i * 7919) % 104729)} + ${i % 97};\n`).join('');
const page = '<!doctype html><title>lesson</title>';
const modified = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
before(() => {
  root = mkdtempSync(join(tmpdir(), 'qkv-serve-robust-'));
  outside = mkdtempSync(join(tmpdir(), 'qkv-serve-outside-'));
  tempFolders.push(root, outside);
  writeFileSync(join(root, 'index.html'), page);
  utimesSync(join(root, 'index.html'), modified, modified);
  writeFileSync(join(root, 'large.js'), large);
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'assets/other-CqfjqYFq.js'), large.replaceAll('cell', 'item'));
  writeFileSync(join(outside, 'secret.txt'), 'not for the web');
  symlinkSync(join(outside, 'secret.txt'), join(root, 'secret.txt'));
  symlinkSync(outside, join(root, 'elsewhere'));
  symlinkSync(join(root, 'index.html'), join(root, 'alias.html'));
  symlinkSync(join(root, 'assets'), join(root, 'linked-assets'));
});
after(() => tempFolders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

// A server for one test, closed when the callback ends.
async function withServer(options, use) {
  const server = await serve({ root, port: 0, ...options });
  try {
    return await use(server.address().port);
  } finally {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
}

// --- one compression per file version ----------------------------------------------------------------------

test('200 concurrent cold requests for a large file: one brotli compression, and every body decodes to the file', async () => {
  const compressions = [];
  await withServer({ onCompress: (path, encoding) => compressions.push([path, encoding]) }, async (port) => {
    const answers = await Promise.all(Array.from({ length: 200 }, () => fetchRaw(port, '/large.js', { 'Accept-Encoding': 'br' })));
    assert.deepEqual(compressions, [[realpathSync(join(root, 'large.js')), 'br']]);
    for (const answer of answers) {
      assert.equal(answer.status, 200);
      assert.equal(answer.headers['content-encoding'], 'br');
      assert.equal(decode(answer).toString(), large);
    }
  });
});

test('the cache keeps at most cacheLimit bytes: a file pushed out by another is compressed again', async () => {
  const compressions = [];
  await withServer({ cacheLimit: large.length * 1.5, onCompress: (path, encoding) => compressions.push(encoding) }, async (port) => {
    for (const path of ['/large.js', '/large.js', '/assets/other-CqfjqYFq.js', '/large.js']) {
      assert.equal(decode(await fetchRaw(port, path, { 'Accept-Encoding': 'gzip' })).length, large.length);
    }
    assert.equal(compressions.length, 3, 'large.js once, other once, large.js again after other pushed it out');
  });
  compressions.length = 0;
  await withServer({ onCompress: (path, encoding) => compressions.push(encoding) }, async (port) => {
    for (const path of ['/large.js', '/assets/other-CqfjqYFq.js', '/large.js']) await fetchRaw(port, path, { 'Accept-Encoding': 'gzip' });
    assert.equal(compressions.length, 2, 'under the default limit both stay');
  });
});

// --- slow and silent clients ------------------------------------------------------------------------------

// Each test makes one timeout short and the others long, so only that one can close the connection.
const long = 60000;
const only = (name) => ({ headers: long, request: long, keepAlive: long, idle: long, check: 50, [name]: 300 });

// Opens a raw connection, lets `talk` write to it, and resolves with what the server sent once the server has
// closed it (the test never closes it; a test that hangs here fails at its own timeout).
function closedByServer(port, talk) {
  return new Promise((done, fail) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (received += chunk));
    socket.on('error', (error) => (error.code === 'ECONNRESET' ? undefined : fail(error)));
    socket.on('close', () => done(received));
    socket.on('connect', () => talk(socket));
  });
}

test('a client that drips one header line at a time is answered 408 and closed at the headers timeout', { timeout: 20000 }, async () => {
  await withServer({ timeouts: { ...only('headers'), idle: 1000 } }, async (port) => {
    let lines = 0;
    const received = await closedByServer(port, (socket) => {
      socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      // Each line comes well inside the idle timeout, so only the headers timeout can end it; bounded in count.
      const drip = setInterval(() => {
        if (socket.destroyed || ++lines > 400) return void clearInterval(drip);
        socket.write(`X-Line-${lines}: 1\r\n`);
      }, 100);
      socket.on('close', () => clearInterval(drip));
    });
    assert.equal(received, 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    assert.ok(lines < 400, `closed after ${lines} lines`);
  });
});

test('a client that connects and sends nothing is answered 408 and closed at the headers timeout', { timeout: 20000 }, async () => {
  await withServer({ timeouts: only('headers') }, async (port) => {
    assert.equal(await closedByServer(port, () => {}), 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
  });
});

test('a connection with no traffic is closed at the idle timeout', { timeout: 20000 }, async () => {
  await withServer({ timeouts: only('idle') }, async (port) => {
    assert.equal(await closedByServer(port, (socket) => socket.write('GET / HTTP/1.1\r\n')), '');
  });
});

test('a kept-alive connection left idle after its answer is closed at the keep-alive timeout', { timeout: 20000 }, async () => {
  await withServer({ timeouts: only('keepAlive') }, async (port) => {
    const received = await closedByServer(port, (socket) => socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
    assert.match(received, /^HTTP\/1\.1 200 OK\r\n/);
    assert.ok(received.endsWith(page), 'the whole page came before the close');
  });
});

test('the default timeouts are set on the server (headers 15 s, request 30 s, keep-alive 5 s, idle 30 s)', async () => {
  const server = await serve({ root, port: 0 });
  try {
    assert.equal(server.headersTimeout, 15000);
    assert.equal(server.requestTimeout, 30000);
    assert.equal(server.keepAliveTimeout, 5000);
    assert.equal(server.timeout, 30000);
  } finally {
    await new Promise((done) => server.close(done));
  }
});

// --- symlinks -----------------------------------------------------------------------------------------------

test('a symlink to a file or folder outside the root is refused with 404; one inside the root is served', async () => {
  await withServer({}, async (port) => {
    for (const path of ['/secret.txt', '/elsewhere/secret.txt']) {
      const answer = await fetchRaw(port, path);
      assert.equal(answer.status, 404, path);
      assert.doesNotMatch(answer.body.toString(), /not for the web/);
    }
    assert.equal((await fetchRaw(port, '/alias.html')).body.toString(), page);
    assert.equal((await fetchRaw(port, '/linked-assets/other-CqfjqYFq.js')).status, 200);
  });
});

test('a root that is itself a symlink is served', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'qkv-serve-link-'));
  tempFolders.push(folder);
  const linkedRoot = join(folder, 'dist');
  symlinkSync(root, linkedRoot);
  const server = await serve({ root: linkedRoot, port: 0 });
  try {
    assert.equal((await fetchRaw(server.address().port, '/')).body.toString(), page);
    assert.equal((await fetchRaw(server.address().port, '/secret.txt')).status, 404);
  } finally {
    await new Promise((done) => server.close(done));
  }
});

// --- methods ------------------------------------------------------------------------------------------------

test('POST, PUT, DELETE, OPTIONS, TRACE, PATCH and PROPFIND get 405 with Allow: GET, HEAD and a short sentence', async () => {
  await withServer({ route: (url) => (url.pathname === '/made.html' ? { ext: '.html', body: page } : undefined) }, async (port) => {
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS', 'TRACE', 'PATCH', 'PROPFIND']) {
      for (const path of ['/index.html', '/made.html', '/nothing.js']) {
        const answer = await fetchRaw(port, path, {}, method);
        assert.equal(answer.status, 405, `${method} ${path}`);
        assert.equal(answer.headers.allow, 'GET, HEAD');
        assert.equal(answer.headers['content-type'], 'text/plain; charset=utf-8');
        assert.equal(answer.body.toString(), 'This server only sends files: it answers GET and HEAD.\n');
      }
    }
  });
});

// --- conditional requests (RFC 9110, section 13) ----------------------------------------------------------

test('each encoding has its own ETag; a 304 carries the ETag of the encoding it stands for', async () => {
  await withServer({}, async (port) => {
    const tags = {};
    for (const accept of ['br', 'gzip', 'identity']) {
      const answer = await fetchRaw(port, '/large.js', { 'Accept-Encoding': accept });
      assert.equal(answer.headers.vary, 'Accept-Encoding');
      tags[accept] = answer.headers.etag;
      const again = await fetchRaw(port, '/large.js', { 'Accept-Encoding': accept, 'If-None-Match': answer.headers.etag });
      assert.equal(again.status, 304, accept);
      assert.equal(again.headers.etag, answer.headers.etag);
      assert.equal(again.headers.vary, 'Accept-Encoding');
    }
    assert.equal(new Set(Object.values(tags)).size, 3, JSON.stringify(tags));
    const identityTagForBrotli = await fetchRaw(port, '/large.js', { 'Accept-Encoding': 'br', 'If-None-Match': tags.identity });
    assert.equal(identityTagForBrotli.status, 200, 'another encoding’s tag is another representation');
  });
});

test('If-None-Match: weak comparison, a list of tags, and *', async () => {
  await withServer({}, async (port) => {
    const { etag } = (await fetchRaw(port, '/index.html')).headers;
    for (const match of [`W/${etag}`, `"other", ${etag}`, `"a",W/"b" ,  W/${etag}`, '*']) {
      assert.equal((await fetchRaw(port, '/index.html', { 'If-None-Match': match })).status, 304, match);
      assert.equal((await fetchRaw(port, '/index.html', { 'If-None-Match': match }, 'HEAD')).status, 304, `HEAD ${match}`);
    }
    assert.equal((await fetchRaw(port, '/index.html', { 'If-None-Match': '"other", W/"another"' })).status, 200);
    assert.equal((await fetchRaw(port, '/nothing.html', { 'If-None-Match': '*' })).status, 404, '* matches only a file that exists');
  });
});

test('If-None-Match takes precedence: a matching If-Modified-Since does not make a 304 when the tags differ', async () => {
  await withServer({}, async (port) => {
    const answer = await fetchRaw(port, '/index.html', { 'If-None-Match': '"other"', 'If-Modified-Since': new Date().toUTCString() });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.toString(), page);
  });
});

// RFC 9110 5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms a recipient must also accept.
const httpDateForms = {
  'IMF-fixdate': 'Sat, 03 Jan 2026 00:00:00 GMT',
  'RFC 850': 'Saturday, 03-Jan-26 00:00:00 GMT',
  asctime: 'Sat Jan  3 00:00:00 2026',
};

test('If-Modified-Since in each HTTP-date form, after the file’s time, gets 304; before it, 200', async () => {
  await withServer({}, async (port) => {
    for (const [form, since] of Object.entries(httpDateForms)) {
      assert.equal((await fetchRaw(port, '/index.html', { 'If-Modified-Since': since })).status, 304, form);
    }
    assert.equal((await fetchRaw(port, '/index.html', { 'If-Modified-Since': modified.toUTCString() })).status, 304, 'the file’s own time');
    assert.equal((await fetchRaw(port, '/index.html', { 'If-Modified-Since': 'Thu, 01 Jan 2026 00:00:00 GMT' })).status, 200);
  });
});

test('If-Modified-Since is ignored when it is later than now, not an HTTP-date, or not a real date', async () => {
  await withServer({}, async (port) => {
    const tomorrow = new Date(Date.now() + 86400000);
    for (const since of [
      tomorrow.toUTCString(),
      new Date().toISOString(),
      '2026-06-01',
      'Sat, 03 Jan 2026 00:00:00 UTC',
      'Mon, 31 Feb 2026 00:00:00 GMT',
      'Sat, 03 Jan 2026 24:00:00 GMT',
      'yesterday',
    ]) {
      const answer = await fetchRaw(port, '/index.html', { 'If-Modified-Since': since });
      assert.equal(answer.status, 200, since);
      assert.equal(answer.body.toString(), page);
    }
  });
});

test('If-Match and If-Unmodified-Since: a failed precondition gets 412', async () => {
  await withServer({}, async (port) => {
    const { etag } = (await fetchRaw(port, '/index.html')).headers;
    assert.equal((await fetchRaw(port, '/index.html', { 'If-Match': etag })).status, 200);
    assert.equal((await fetchRaw(port, '/index.html', { 'If-Match': '*' })).status, 200);
    assert.equal((await fetchRaw(port, '/index.html', { 'If-Match': '"other"' })).status, 412);
    assert.equal((await fetchRaw(port, '/index.html', { 'If-Match': `W/${etag}` })).status, 412, 'If-Match compares strongly');
    assert.equal((await fetchRaw(port, '/index.html', { 'If-Unmodified-Since': 'Thu, 01 Jan 2026 00:00:00 GMT' })).status, 412);
    assert.equal((await fetchRaw(port, '/index.html', { 'If-Unmodified-Since': httpDateForms['IMF-fixdate'] })).status, 200);
    assert.equal((await fetchRaw(port, '/index.html', { 'If-Match': etag, 'If-Unmodified-Since': 'Thu, 01 Jan 2026 00:00:00 GMT' })).status, 200, 'If-Match takes precedence');
  });
});
