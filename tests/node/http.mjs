// The raw answer of the test server to one request on a connection of its own, and its body decoded.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

export function fetchRaw(port, path, headers = {}, method = 'GET') {
  return new Promise((done, fail) => {
    const sent = request({ host: '127.0.0.1', port, path, headers, method, agent: false }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => done({ status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    sent.on('error', fail);
    sent.end();
  });
}

export function decode({ headers, body }) {
  if (headers['content-encoding'] === 'br') return brotliDecompressSync(body);
  if (headers['content-encoding'] === 'gzip') return gunzipSync(body);
  assert.equal(headers['content-encoding'], undefined);
  return body;
}
