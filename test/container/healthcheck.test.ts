// The image's HEALTHCHECK script (docker/healthcheck.mjs) against a real HTTP server on
// 127.0.0.1, without containers: unset is healthy; an answer below 500 is healthy (a 401 proves
// the API serves); with a token file the token is sent and only a 2xx counts; a 5xx, a refused
// connection, a server that never answers (bounded at 4 s) or a bad URL is unhealthy, and the
// token is never printed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT, freePort, useTempDir } from '../e2e/harness.js';

const SCRIPT = join(REPO_ROOT, 'docker/healthcheck.mjs');

async function check(env: Record<string, string>): Promise<{ code: number; output: string }> {
  const child = spawn(process.execPath, [SCRIPT], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number];
  return { code, output };
}

void test('the health check: unset, the status classes, the token file, a refused connection, a bad URL', async (t) => {
  const seen: IncomingMessage[] = [];
  let status = 200;
  const server = createServer((req, res) => {
    seen.push(req);
    res.writeHead(status).end('0.1.0');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/version`;

  assert.equal((await check({})).code, 0, 'no control API configured');
  assert.equal((await check({ YACRON2_HEALTH_URL: url })).code, 0);
  assert.equal(seen.at(-1)?.headers.authorization, undefined);
  status = 401;
  assert.equal((await check({ YACRON2_HEALTH_URL: url })).code, 0, 'a 401 proves it serves');
  status = 503;
  const down = await check({ YACRON2_HEALTH_URL: url });
  assert.equal(down.code, 1);
  assert.match(down.output, /answered 503/);

  const dir = await useTempDir(t);
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, 'health-secret\n');
  status = 401;
  const refused = await check({ YACRON2_HEALTH_URL: url, YACRON2_HEALTH_TOKEN_FILE: tokenFile });
  assert.equal(refused.code, 1, 'with a token only a 2xx counts');
  assert.equal(seen.at(-1)?.headers.authorization, 'Bearer health-secret');
  assert.doesNotMatch(refused.output, /health-secret/);
  status = 200;
  assert.equal(
    (await check({ YACRON2_HEALTH_URL: url, YACRON2_HEALTH_TOKEN_FILE: tokenFile })).code,
    0,
  );
  const missing = await check({
    YACRON2_HEALTH_URL: url,
    YACRON2_HEALTH_TOKEN_FILE: join(dir, 'absent'),
  });
  assert.equal(missing.code, 1);
  assert.match(missing.output, /cannot read YACRON2_HEALTH_TOKEN_FILE .*absent: ENOENT/);

  const closed = await check({ YACRON2_HEALTH_URL: `http://127.0.0.1:${await freePort()}/` });
  assert.equal(closed.code, 1);
  assert.match(closed.output, /ECONNREFUSED/);
  const bad = await check({ YACRON2_HEALTH_URL: 'https://127.0.0.1:8080/version' });
  assert.equal(bad.code, 1);
  assert.match(bad.output, /YACRON2_HEALTH_URL https:\/\/127\.0\.0\.1:8080\/version is not usable/);
});

void test('the health check gives up on a server that never answers, within its 4 s bound', async (t) => {
  const server = createServer(() => {
    // Never answers.
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const started = performance.now();
  const result = await check({
    YACRON2_HEALTH_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/version`,
  });
  const seconds = (performance.now() - started) / 1000;
  assert.equal(result.code, 1);
  assert.match(result.output, /no answer within 4 s/);
  assert.ok(
    seconds < 4.9,
    `gave up after ${seconds.toFixed(2)} s (the HEALTHCHECK timeout is 5 s)`,
  );
});
