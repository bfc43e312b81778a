// npm start's server (scripts/serve.mjs) and long requests (issue 18, item 4): links the page wrote before the
// fragment form, with every cell in the query, load; a request past its limit gets 431 and a sentence.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { headerLimit, serve } from '../../scripts/serve.mjs';

let server;
let port;
before(async () => {
  const root = mkdtempSync(join(tmpdir(), 'qkv-serve-'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>lesson</title>');
  server = await serve({ root, port: 0 });
  ({ port } = server.address());
});
after(() => new Promise((done) => server.close(done)));

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
