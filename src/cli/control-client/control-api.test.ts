// The control API client against a real node:http server: a unix socket and a path prefix, the
// bearer header, and the bounds (a body too large, a line too long, an answer that stalls).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { systemClock } from '../../common/index.js';
import { resolveTarget } from './api-target.js';
import { ControlApi } from './control-api.js';

async function serve(
  t: TestContext,
  listener: RequestListener,
  socketPath?: string,
): Promise<string> {
  const server = createServer(listener);
  if (socketPath === undefined) server.listen(0, '127.0.0.1');
  else server.listen(socketPath);
  await once(server, 'listening');
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  if (socketPath !== undefined) return `unix://${socketPath}`;
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function api(url: string, token?: string): ControlApi {
  const target = resolveTarget(token === undefined ? { url } : { url, token }, {}, () => '');
  assert.equal(target.kind, 'ok');
  if (target.kind !== 'ok') throw new Error('unreachable');
  return new ControlApi(target.target, systemClock);
}

const OPTIONS = { accept: 'application/json', headerTimeoutMs: 5_000, idleTimeoutMs: 5_000 };

void test('a unix socket, with the bearer token', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'yacron2-api-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const url = await serve(
    t,
    (request, response) => response.end(`${request.url} ${request.headers.authorization}`),
    join(dir, 'api.sock'),
  );
  assert.deepEqual(await api(url, 'tok').getBody({ ...OPTIONS, path: '/jobs/a', maxBytes: 100 }), {
    kind: 'ok',
    body: '/jobs/a Bearer tok',
  });
});

void test('a path prefix is kept; no token, no header; an error body is kept', async (t) => {
  const url = await serve(t, (request, response) => {
    if (request.url === '/cron/jobs') response.end(String(request.headers.authorization));
    else response.writeHead(418).end('teapot');
  });
  assert.deepEqual(
    await api(`${url}/cron/`).getBody({ ...OPTIONS, path: '/jobs', maxBytes: 100 }),
    {
      kind: 'ok',
      body: 'undefined',
    },
  );
  assert.deepEqual(await api(url).getBody({ ...OPTIONS, path: '/jobs', maxBytes: 100 }), {
    kind: 'status',
    status: 418,
    body: 'teapot',
  });
});

void test('bounds: a body too large, a line too long, an answer that stalls', async (t) => {
  const url = await serve(t, (request, response) => {
    if (request.url === '/stall') {
      response.writeHead(200);
      response.flushHeaders();
      return;
    }
    response.end('x'.repeat(1000));
  });
  const client = api(url);
  assert.deepEqual(await client.getBody({ ...OPTIONS, path: '/big', maxBytes: 999 }), {
    kind: 'too-large',
  });
  assert.deepEqual(
    await client.streamLines({ ...OPTIONS, path: '/big', maxLineBytes: 999 }, () => 'continue'),
    { kind: 'too-large' },
  );
  const lines: string[] = [];
  assert.deepEqual(
    await client.streamLines({ ...OPTIONS, path: '/big', maxLineBytes: 1000 }, (line) => {
      lines.push(line);
      return 'continue';
    }),
    { kind: 'ended' },
  );
  assert.deepEqual(lines, ['x'.repeat(1000)]);
  assert.deepEqual(
    await client.getBody({ ...OPTIONS, idleTimeoutMs: 100, path: '/stall', maxBytes: 10 }),
    { kind: 'idle', ms: 100 },
  );
});
