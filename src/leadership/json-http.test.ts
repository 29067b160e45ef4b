// The lease stores' HTTP client: JSON in and out, redirects not followed, the reply capped, a
// timeout and the caller's abort both bounding a call, and only http(s) URLs.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { systemClock } from '../common/index.js';
import { JsonHttpClient, MAX_STORE_REPLY_BYTES, asObject } from './json-http.js';

let url = '';
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
  req.on('end', () => {
    switch (req.url ?? '') {
      case '/echo':
        res
          .writeHead(200)
          .end(JSON.stringify({ method: req.method, body, type: req.headers['content-type'] }));
        return;
      case '/redirect':
        res.writeHead(302, { Location: '/echo' }).end();
        return;
      case '/big':
        res.writeHead(200).end('x'.repeat(MAX_STORE_REPLY_BYTES + 10));
        return;
      case '/text':
        res.writeHead(400).end('  plain words  ');
        return;
      default:
        return; // /hang: never answers
    }
  });
});
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

void test('JSON round trip; a redirect is returned, not followed; a text body is kept for messages', async () => {
  const http = new JsonHttpClient(systemClock);
  const echo = await http.request({
    method: 'PUT',
    url: `${url}/echo`,
    body: '{"a":1}',
    timeoutMs: 5000,
  });
  assert.deepEqual(echo, {
    status: 200,
    json: { method: 'PUT', body: '{"a":1}', type: 'application/json' },
    text: '',
  });
  const redirect = await http.request({ method: 'GET', url: `${url}/redirect`, timeoutMs: 5000 });
  assert.equal(redirect.status, 302);
  const text = await http.request({ method: 'GET', url: `${url}/text`, timeoutMs: 5000 });
  assert.deepEqual(text, { status: 400, json: undefined, text: 'plain words' });
  http.close();
});

void test('a reply over the cap, a timeout, an abort and a non-http URL each fail the call', async () => {
  const http = new JsonHttpClient(systemClock);
  await assert.rejects(
    http.request({ method: 'GET', url: `${url}/big`, timeoutMs: 5000 }),
    /^YacronError: Cannot GET http:\/\/127\.0\.0\.1:\d+\/big: reply larger than 1048576 bytes$/,
  );
  await assert.rejects(
    http.request({ method: 'GET', url: `${url}/hang`, timeoutMs: 50 }),
    /no answer within 0\.05 s/,
  );
  const aborted = new AbortController();
  aborted.abort();
  await assert.rejects(
    http.request({ method: 'GET', url: `${url}/echo`, timeoutMs: 5000, signal: aborted.signal }),
    /: aborted$/,
  );
  const later = new AbortController();
  const pending = http.request({
    method: 'GET',
    url: `${url}/hang`,
    timeoutMs: 5000,
    signal: later.signal,
  });
  later.abort();
  await assert.rejects(pending, /: aborted$/);
  await assert.rejects(
    http.request({ method: 'GET', url: 'ftp://127.0.0.1/x', timeoutMs: 5000 }),
    /not an http\(s\) URL/,
  );
  http.close();
});

void test('asObject accepts plain objects only', () => {
  assert.deepEqual(asObject({ a: 1 }), { a: 1 });
  for (const value of [null, [], 'x', 3, undefined]) assert.equal(asObject(value), undefined);
});
