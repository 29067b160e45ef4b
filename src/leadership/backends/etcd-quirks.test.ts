// The etcd client against a scripted gateway (node:http on 127.0.0.1) for what a healthy etcd
// will not do on demand: an expired token (401 → one re-authentication), a keepalive that answers
// 200 without a TTL (the lease is gone: re-grant and re-campaign), a granted TTL below the 3 s
// floor (one WARNING, INFO on recovery), a failed txn (no `succeeded`) whose key is bound to our
// own lease (still ours), a dead first endpoint, a reply that is not a JSON object, answers
// 300 ms slow at ttl 3 (still a leader, fenced from the keepalive's send), a lease no round
// proved for a whole TTL (given up, never renewed again), and a first endpoint that hangs (its
// timeout paid once per round: the round's later requests go to the endpoint that answered).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { FakeClock, systemClock, type Clock } from '../../common/index.js';
import { recordingLogger } from '../../logging/testing.js';
import { makeTestCa } from '../../cluster/testing.js';
import { EtcdLeaseClient } from './etcd.js';

type Handler = (path: string, body: Record<string, unknown>, auth: string | undefined) => unknown;

let handler: Handler = () => ({});
/** How long the gateway holds each answer (a slow link). */
let replyDelayMs = 0;
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
      const reply = (): void => {
        if (typeof answer === 'number') {
          res.writeHead(answer, { 'Content-Type': 'application/json' }).end('{"error":"scripted"}');
          return;
        }
        res
          .writeHead(200, { 'Content-Type': 'application/json' })
          .end(typeof answer === 'string' ? answer : JSON.stringify(answer));
      };
      if (replyDelayMs > 0) setTimeout(reply, replyDelayMs);
      else reply();
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
  overrides: { endpoints?: string[]; username?: string; ttlSeconds?: number; clock?: Clock } = {},
) {
  return new EtcdLeaseClient(
    {
      nodeName: 'me',
      electionName: 'yacron2/leader',
      ttlSeconds: overrides.ttlSeconds ?? 6,
      endpoints: overrides.endpoints ?? [url],
      username: overrides.username ?? null,
      password: overrides.username ? 'pw' : null,
      tls: { ca: ca.caPath, cert: null, key: null },
      connectTimeoutMs: 10_000,
    },
    { clock: overrides.clock ?? systemClock, logger },
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
  assert.deepEqual(calls.slice(0, 2), ['/v3/lease/keepalive', '/v3/lease/grant']);
  assert.ok(calls.includes('/v3/kv/txn'), 're-campaigned in the same round');
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
  const { periodMs, roundDeadlineMs } = etcd.timing(true);
  assert.deepEqual({ periodMs, roundDeadlineMs }, { periodMs: 1000, roundDeadlineMs: 1000 });
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

void test('ttl 3 with every answer 300 ms slow: still the leader, fenced from the keepalive send', async () => {
  handler = healthy('3', { result: { ID: '7', TTL: '3' } });
  const etcd = client(recordingLogger(), { ttlSeconds: 3 });
  await etcd.start();
  assert.equal((await etcd.round(marks, signal())).kind, 'leader');
  replyDelayMs = 300;
  try {
    const sentMs = systemClock.monotonic();
    const outcome = await etcd.round(marks, signal());
    const tookMs = systemClock.monotonic() - sentMs;
    // Each request may take half the 1 s round deadline (was a fifth: 200 ms, every call failed).
    assert.equal(outcome.kind, 'leader');
    assert.ok(tookMs < 900, `the campaign ran beside the ran-set read (${tookMs} ms)`);
    assert.ok(
      outcome.fenceUntilMs >= sentMs + 2000 && outcome.fenceUntilMs < sentMs + 2050,
      'the fence is E − 1 s after the keepalive was sent, not after its answer came',
    );
    assert.equal(etcd.timing(true).periodFromMs! >= sentMs, true, 'the next round counts from it');
  } finally {
    replyDelayMs = 0;
    await etcd.close();
  }
});

void test('a lease no round proved for a whole TTL is given up: the next round grants anew', async () => {
  const clock = new FakeClock();
  const logger = recordingLogger();
  handler = healthy('3', { result: { ID: '7', TTL: '3' } });
  const etcd = client(logger, { ttlSeconds: 3, clock });
  await etcd.start();
  assert.equal((await etcd.round(marks, signal())).kind, 'leader');
  // Rounds whose keepalive answers were lost (on a real link they may still renew it at etcd).
  await clock.advance(2999);
  calls.length = 0;
  await etcd.round(marks, signal());
  assert.equal(calls[0], '/v3/lease/keepalive', 'proved 2.999 s ago: still renewed');
  await clock.advance(3000);
  calls.length = 0;
  const outcome = await etcd.round(marks, signal());
  assert.equal(outcome.kind, 'leader');
  assert.equal(calls[0], '/v3/lease/grant', 'not proved for 3 s: a new lease, the old one left');
  assert.match(
    logger.at('info').at(-1)?.message ?? '',
    /^cluster: etcd lease 7 was not confirmed for 3s; giving it up and campaigning with a new one$/,
  );
  await etcd.close();
});

void test('a first endpoint that hangs costs its timeout once per round, not once per request', async () => {
  const held = new Set<Socket>();
  const hung = createTcpServer((socket) => held.add(socket)); // accepts, never answers
  await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
  const hungUrl = `https://127.0.0.1:${(hung.address() as AddressInfo).port}`;
  handler = healthy('3', { result: { ID: '7', TTL: '3' } });
  const etcd = client(recordingLogger(), { ttlSeconds: 3, endpoints: [url, hungUrl] });
  try {
    await etcd.start();
    // rotate() moves each round one endpoint further: this round starts at the hung one.
    const startedMs = systemClock.monotonic();
    const outcome = await etcd.round(marks, signal());
    const tookMs = systemClock.monotonic() - startedMs;
    assert.equal(outcome.kind, 'leader');
    // One 0.5 s timeout (half the 1 s round deadline), then the rest at the answering endpoint;
    // trying the hung one first for every request took 1 s and more, past the round deadline.
    assert.ok(tookMs >= 450 && tookMs < 900, `the round took ${tookMs} ms`);
  } finally {
    await etcd.close();
    for (const socket of held) socket.destroy();
    await new Promise<void>((resolve) => hung.close(() => resolve()));
  }
});
