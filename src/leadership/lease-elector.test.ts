// The lease elector on a FakeClock over the in-memory store: one holder, renewals, the fence
// deadline 1 s short of the TTL (a stalled holder self-demotes with no store call), freshness,
// the availability reads, the ran-set scoped by the job-set id, and the gate's verdicts (Leader
// fails closed while the store is unreachable, PreferLeader runs).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../common/index.js';
import { recordingLogger } from '../logging/testing.js';
import { MemoryLeaseClient, MemoryLeaseStore } from './backends/memory.js';
import { ClusterGate, meshOf } from './gate.js';
import {
  encodeRanSet,
  type LeaseClient,
  type RanSetMarks,
  type RoundOutcome,
} from './lease-client.js';
import { LEASE_HANDOVER_HOLD_MS, LeaseElector } from './lease-elector.js';
import { StaticLeadershipSource } from './static-leadership.js';

const TTL_MS = 9000; // period 3 s, round deadline 5 s

async function node(
  store: MemoryLeaseStore,
  name: string,
  jobSetId = { id: 'v1:a' },
): Promise<{ elector: LeaseElector; logger: ReturnType<typeof recordingLogger> }> {
  const logger = recordingLogger();
  const client = new MemoryLeaseClient(store, { identity: name, ttlMs: TTL_MS });
  const elector = await LeaseElector.start(
    client,
    { nodeName: name, releaseTimeoutMs: 1000 },
    { clock: store.clock, logger, jobSetId: () => jobSetId.id },
  );
  return { elector, logger };
}

void test('the first node to run a round holds the lease; the second follows and names it', async () => {
  const clock = new FakeClock();
  const store = new MemoryLeaseStore(clock);
  const a = await node(store, 'a');
  const b = await node(store, 'b');
  assert.equal(a.elector.isLeader(), true);
  assert.equal(b.elector.isLeader(), false);
  assert.equal(b.elector.isQuorate(), true);
  assert.equal(b.elector.leaderName(), 'a');
  assert.equal(b.elector.isAvailableLeader(), false, 'a healthy follower defers');
  assert.equal(b.elector.availableLeaderName(), 'a');
  assert.equal(a.elector.isAvailableLeader(), true);
  // One holder: no size, conflict, convergence or per-job owner of its own (those are the gossip
  // mesh's reads); the gate treats a lease backend as a settled single leader whose held lease is
  // its own quorum confirmation, and a follower defers to the holder.
  assert.equal(meshOf(a.elector), null);
  const verdictOf = (
    n: { elector: LeaseElector },
    clusterPolicy: 'Leader' | 'PreferLeader',
  ): ReturnType<ClusterGate['verdict']> =>
    new ClusterGate(new StaticLeadershipSource(true, n.elector), a.logger).verdict(
      { name: 'j', clusterPolicy },
      'schedule',
    );
  // The new holder holds its Leader jobs for the handover second (docs/clustering.md "Clock
  // skew"); PreferLeader is not held.
  assert.equal(a.elector.handoverHeld(), true);
  assert.deepEqual(verdictOf(a, 'Leader'), {
    kind: 'deny',
    reason: 'handover',
    detail: 'this node gained the lease under a second ago (the clock-skew hold)',
  });
  assert.equal(verdictOf(a, 'PreferLeader').kind, 'allow');
  await clock.advance(LEASE_HANDOVER_HOLD_MS - 1);
  assert.equal(a.elector.handoverHeld(), true, 'held until the full second has passed');
  await clock.advance(1);
  assert.equal(a.elector.handoverHeld(), false);
  assert.equal(b.elector.handoverHeld(), false, 'a follower holds nothing');
  assert.deepEqual(verdictOf(a, 'Leader'), {
    kind: 'allow',
    basis: 'leader',
  });
  assert.deepEqual(verdictOf(b, 'Leader'), {
    kind: 'deny',
    reason: 'not-leader',
    detail: 'the elected leader is a',
  });
  assert.equal(verdictOf(b, 'PreferLeader').kind, 'deny');
  assert.deepEqual(a.elector.leaseDetails(), {
    identity: 'a',
    holder: 'a',
    expiry: store.expiresAtMs,
  });
  assert.match(a.logger.at('info')[0]?.message ?? '', /^cluster: memory lease backend/);
  await clock.advance(30_000);
  assert.equal(a.elector.isLeader(), true, 'renewed every period');
  assert.equal(b.elector.isLeader(), false);
  await a.elector.stop();
  await b.elector.stop();
});

void test('a holder whose store stops answering self-demotes at ttl - 1 s; quorate lapses at ttl', async () => {
  const clock = new FakeClock();
  const store = new MemoryLeaseStore(clock);
  const a = await node(store, 'a');
  store.down = true;
  await clock.advance(TTL_MS - 1000 - 1);
  assert.equal(a.elector.isLeader(), true, 'inside the fence');
  await clock.advance(1);
  assert.equal(a.elector.isLeader(), false, 'the fence deadline passed: no network call needed');
  assert.equal(a.elector.isQuorate(), true, 'freshness has no skew margin');
  assert.equal(
    a.elector.isAvailableLeader(),
    true,
    'a self-demoted holder still runs PreferLeader',
  );
  await clock.advance(1000);
  assert.equal(a.elector.isQuorate(), false);
  assert.equal(a.elector.leaderName(), null);
  assert.match(a.logger.at('warn')[0]?.message ?? '', /^cluster: memory election round failed: /);
  const source = new StaticLeadershipSource(true, a.elector);
  const gate = new ClusterGate(source, a.logger);
  assert.deepEqual(gate.verdict({ name: 'j', clusterPolicy: 'Leader' }, 'schedule'), {
    kind: 'deny',
    reason: 'no-quorum',
    detail: 'this node sees no quorum',
  });
  assert.equal(
    gate.verdict({ name: 'j', clusterPolicy: 'PreferLeader' }, 'schedule').kind,
    'allow',
  );
  store.down = false;
  await clock.advance(3000);
  assert.equal(a.elector.isLeader(), true, 'leadership re-established once the store answers');
  await a.elector.stop();
});

void test('a dead holder is replaced after its ttl; a released one at the next round', async () => {
  const clock = new FakeClock();
  const store = new MemoryLeaseStore(clock);
  const a = await node(store, 'a');
  const b = await node(store, 'b');
  // "Kill" a: its client closes, so its rounds fail and it never renews.
  await a.elector.client.close();
  await clock.advance(TTL_MS + 3000);
  assert.equal(b.elector.isLeader(), true);
  assert.equal(a.elector.isLeader(), false);
  await b.elector.stop();
  const c = await node(store, 'c');
  assert.equal(c.elector.isLeader(), true, 'the released lease is free at once');
  await c.elector.stop();
  await a.elector.stop();
});

void test('the ran-set: marks persist for the cluster, and a new job-set id invalidates them', async () => {
  const clock = new FakeClock();
  const store = new MemoryLeaseStore(clock);
  const live = { id: 'v1:a' };
  const a = await node(store, 'a', live);
  const b = await node(store, 'b', live);
  assert.equal(a.elector.rebootRan('boot'), false);
  await a.elector.markRebootRan('boot');
  assert.equal(a.elector.rebootRan('boot'), true);
  assert.equal(store.ranSet, encodeRanSet('v1:a', ['boot']));
  await clock.advance(3000);
  assert.equal(b.elector.rebootRan('boot'), true, 'read back by the follower');
  live.id = 'v1:b';
  assert.equal(a.elector.rebootRan('boot'), false, 'another job set: the record no longer counts');
  assert.equal(b.elector.rebootRan('boot'), false);
  await a.elector.stop();
  await b.elector.stop();
});

void test('a holder that has not read the stored set since it won cannot answer rebootRan', async () => {
  const clock = new FakeClock();
  let ranSet = true;
  const client: LeaseClient = {
    backend: 'filesystem',
    identity: 'a',
    roundLabel: 'test round',
    initialLabel: 'test initial round',
    start: () => Promise.resolve(),
    timing: () => ({ periodMs: 3000, roundDeadlineMs: 5000 }),
    round: (): Promise<RoundOutcome> =>
      Promise.resolve({
        kind: 'leader',
        holder: 'a',
        fenceUntilMs: clock.monotonic() + 8000,
        freshUntilMs: clock.monotonic() + 9000,
        ...(ranSet && { ranSet: { jobSetId: 'v1:a', jobs: new Set(['x']) } }),
      }),
    release: () => Promise.resolve(),
    close: () => Promise.resolve(),
    details: () => ({}),
    startupLine: () => 'test backend',
  };
  ranSet = false;
  const elector = await LeaseElector.start(
    client,
    { nodeName: 'a', releaseTimeoutMs: 1000 },
    { clock, logger: recordingLogger(), jobSetId: () => 'v1:a' },
  );
  assert.equal(elector.isLeader(), true);
  assert.throws(() => elector.rebootRan('x'), /has not read the stored record since it won/);
  ranSet = true;
  await clock.advance(3000);
  assert.equal(elector.rebootRan('x'), true);
  assert.equal(elector.rebootRan('y'), false);
  await elector.stop();
});

void test('a round that outlives its deadline is abandoned and logged; stop releases the lease', async () => {
  const clock = new FakeClock();
  const store = new MemoryLeaseStore(clock);
  const logger = recordingLogger();
  let hang = false;
  class HangingClient extends MemoryLeaseClient {
    override round(marks: RanSetMarks): Promise<RoundOutcome> {
      return hang ? new Promise<RoundOutcome>(() => undefined) : super.round(marks);
    }
  }
  const client = new HangingClient(store, { identity: 'a', ttlMs: TTL_MS });
  const elector = await LeaseElector.start(
    client,
    { nodeName: 'a', releaseTimeoutMs: 1000 },
    { clock, logger, jobSetId: () => 'v1:a' },
  );
  hang = true;
  await clock.advance(3000 + 5000);
  assert.match(
    logger.at('warn')[0]?.message ?? '',
    /^cluster: memory election round failed: Cannot finish the etcd election round: no answer within 5 s$/,
  );
  hang = false;
  await clock.advance(3000);
  assert.equal(store.holder, 'a');
  await elector.stop();
  assert.equal(store.holder, null, 'released at stop');
});

void test('a client that dates its period from its round start gets rounds start to start', async () => {
  const clock = new FakeClock();
  const starts: number[] = [];
  let startedMs: number | null = null;
  const client: LeaseClient = {
    backend: 'etcd',
    identity: 'a',
    roundLabel: 'test round',
    initialLabel: 'test initial round',
    start: () => Promise.resolve(),
    timing: () => ({
      periodMs: 1000,
      roundDeadlineMs: 1000,
      ...(startedMs !== null && { periodFromMs: startedMs }),
    }),
    // Each round takes 600 ms (a slow link): dated from its end, the next would start 1.6 s on.
    round: async (): Promise<RoundOutcome> => {
      startedMs = clock.monotonic();
      starts.push(startedMs);
      await clock.sleep(600);
      return {
        kind: 'leader',
        holder: 'a',
        fenceUntilMs: startedMs + 2000,
        freshUntilMs: clock.monotonic() + 3000,
      };
    },
    release: () => Promise.resolve(),
    close: () => Promise.resolve(),
    details: () => ({}),
    startupLine: () => 'test backend',
  };
  const started = LeaseElector.start(
    client,
    { nodeName: 'a', releaseTimeoutMs: 1000 },
    { clock, logger: recordingLogger(), jobSetId: () => 'v1:a' },
  );
  await clock.advance(600);
  const elector = await started;
  const gaps: number[] = [];
  for (let ms = 0; ms < 5000; ms += 100) {
    await clock.advance(100);
    if (!elector.isLeader()) gaps.push(clock.monotonic());
  }
  assert.deepEqual(
    starts.map((ms) => ms - starts[0]!),
    [0, 1000, 2000, 3000, 4000, 5000],
  );
  assert.deepEqual(gaps, [], 'each round lands before the previous fence lapses');
  await elector.stop();
});
