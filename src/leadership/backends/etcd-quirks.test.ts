// The etcd client against a scripted gateway (node:http on 127.0.0.1) for what a healthy etcd
// will not do on demand: an expired token (401 → one re-authentication), a keepalive that answers
// 200 without a TTL (the lease is gone: re-grant and re-campaign), a granted TTL below the 3 s
// floor (one WARNING, INFO on recovery), a failed txn (no `succeeded`) whose key is bound to our
// own lease (still ours), a dead first endpoint, and a reply that is not a JSON object.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { systemClock } from '../../common/index.js';
import { recordingLogger } from '../../common/testing.js';
import { makeTestCa } from '../../cluster/testing.js';
import { EtcdLeaseClient } from './etcd.js';

type Handler = (path: string, body: Record<string, unknown>, auth: string | undefined) => unknown;

let handler: Handler = () => ({});
const calls: string[] = [];
const ca = makeTestCa('gateway');
const cert = ca.issue('gateway', ['IP:127.0.0.1']);
const server = createServer(
  { cert: readFileSync(cert.certPath), key: readFileSync(cert.keyPath) },
  (req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      calls.push(req.url ?? '');
      const answer = handler(
        req.url ?? '',
        JSON.parse(text || '{}') as Record<string, unknown>,
        req.headers.authorization,
      );
      if (typeof answer === 'number') {
        res.writeHead(answer, { 'Content-Type': 'application/json' }).end('{"error":"scripted"}');
        return;
      }
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(typeof answer === 'string' ? answer : JSON.stringify(answer));
    });
  },
);
let url = '';

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const signal = (): AbortSignal => new AbortController().signal;
const marks = { jobSetId: 'v1:x', jobs: new Set<string>() };

function client(
  logger = recordingLogger(),
  overrides: { endpoints?: string[]; username?: string } = {},
) {
  return new EtcdLeaseClient(
    {
      nodeName: 'me',
      electionName: 'yacron2/leader',
      ttlSeconds: 6,
      endpoints: overrides.endpoints ?? [url],
      username: overrides.username ?? null,
      password: overrides.username ? 'pw' : null,
      tls: { ca: ca.caPath, cert: null, key: null },
      connectTimeoutMs: 10_000,
    },
    { clock: systemClock, logger },
  );
}

/** A gateway where we hold lease 7 (granted `ttl`), the key is ours, the ran-set absent. */
function healthy(ttl = '6', keepalive: unknown = { result: { ID: '7', TTL: '6' } }): Handler {
  return (path) => {
    switch (path) {
      case '/v3/lease/grant':
        return { ID: '7', TTL: ttl };
      case '/v3/lease/keepalive':
        return keepalive;
      case '/v3/kv/txn':
        return { header: {}, succeeded: true };
      case '/v3/kv/range':
        return { header: {}, count: '0' };
      default:
        return 404;
    }
  };
}

void test('401 with a username: re-authenticate once, retry with the new raw token', async () => {
  let tokens = 0;
  const base = healthy();
  handler = (path, body, auth) => {
    if (path === '/v3/auth/authenticate') {
      assert.deepEqual(body, { name: 'root', password: 'pw' });
      tokens += 1;
      return { token: `t${tokens}` };
    }
    if (auth !== `t${tokens}` || (tokens === 1 && path === '/v3/lease/grant')) return 401;
    return base(path, body, auth);
  };
  const etcd = client(recordingLogger(), { username: 'root' });
  await etcd.start();
  assert.deepEqual(etcd.trackedFiles(), [ca.caPath], 'its TLS files are tracked for rotation');
  const outcome = await etcd.round(marks, signal());
  assert.equal(outcome.kind, 'leader');
  assert.equal(tokens, 2, 'the first token expired and was replaced once');
  await etcd.close();
});

void test('a keepalive answered 200 without a TTL means the lease is gone: re-grant, re-campaign', async () => {
  handler = healthy('6', { result: { header: {} } });
  const etcd = client();
  await etcd.start();
  assert.equal((await etcd.round(marks, signal())).kind, 'leader');
  calls.length = 0;
  const again = await etcd.round(marks, signal());
  assert.equal(again.kind, 'leader');
  assert.deepEqual(calls.slice(0, 3), ['/v3/lease/keepalive', '/v3/lease/grant', '/v3/kv/txn']);
  await etcd.close();
});

void test('a granted TTL below 3 s warns once, narrows the timing, and recovers with an INFO', async () => {
  const logger = recordingLogger();
  handler = healthy('2', { result: { ID: '7', TTL: '2' } });
  const etcd = client(logger);
  await etcd.start();
  const outcome = await etcd.round(marks, signal());
  assert.equal(outcome.kind, 'leader');
  await etcd.round(marks, signal());
  assert.equal(logger.at('warn').length, 1);
  assert.match(
    logger.at('warn')[0]!.message,
    /^cluster: etcd granted a lease ttl of 2s, below the 3s needed/,
  );
  assert.deepEqual(etcd.timing(true), { periodMs: 1000, roundDeadlineMs: 1000 });
  assert.equal(etcd.timing(false).periodMs, 2000, 'not quorate: back to the configured ttl');
  handler = healthy('6', { result: { ID: '7', TTL: '6' } });
  await etcd.round(marks, signal());
  assert.match(logger.at('info')[0]?.message ?? '', /^cluster: etcd lease ttl recovered to 6s/);
  await etcd.close();
});

void test('a failed txn whose key is bound to our lease is still ours; another lease is not', async () => {
  let lease = '7';
  handler = (path, body, auth) => {
    if (path === '/v3/kv/txn' && Array.isArray(body.failure) && body.failure.length > 0) {
      return {
        header: {},
        responses: [
          {
            response_range: { kvs: [{ key: b64('yacron2/leader'), value: b64('someone'), lease }] },
          },
        ],
      };
    }
    return healthy()(path, body, auth);
  };
  const etcd = client();
  await etcd.start();
  const mine = await etcd.round(marks, signal());
  assert.equal(mine.kind, 'leader', 'fenced on the lease id, not the name');
  lease = '8';
  const theirs = await etcd.round(marks, signal());
  assert.equal(theirs.kind, 'follower');
  assert.equal(theirs.holder, 'someone');
  assert.equal(etcd.details(false, 'someone').expiry, null);
  await etcd.close();
});

void test('a dead first endpoint and a non-object reply move on to the next endpoint', async () => {
  handler = healthy();
  const etcd = client(recordingLogger(), { endpoints: ['https://127.0.0.1:1', url] });
  await etcd.start();
  assert.equal((await etcd.round(marks, signal())).kind, 'leader');
  handler = (path, body, auth) =>
    path === '/v3/lease/keepalive' ? '[1,2]' : healthy()(path, body, auth);
  await assert.rejects(etcd.round(marks, signal()), /no endpoint answered .*answered HTTP 200/);
  await etcd.close();
});
