// Cross-node retry resume end to end in one process: two "nodes" (each the real scheduler with
// the real cluster gate over a StaticLeadership the test steers, and a DurableState) on one
// store, shared topology. Ownership moves mid-ladder and the retry runs exactly once, on the new
// owner; a crashed owner's pending is claimed only after the 30 s grace; a gate-deferred owner
// whose ladder was claimed meanwhile aborts at its due time; the claim lease follows
// onStoreUnavailable; a single-node store keeps the legacy owner-moved settle.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { FakeClock, formatIsoUtc } from '../common/index.js';
import { recordingLogger } from '../logging/testing.js';
import type { ResolvedJob } from '../config/index.js';
import { makeJob } from '../config/testing.js';
import { ClusterGate, DeferredReboots, schedulerSeams } from '../leadership/index.js';
import { StaticLeadership, StaticLeadershipSource } from '../leadership/testing.js';
import { FsStateStore, type StateStore } from '../state/index.js';
import { FaultyStateStore } from '../state/testing.js';
import {
  flush,
  HOUR,
  ledgerRow,
  MINUTE,
  newProcess,
  openMemoryStore,
  pick,
  RETRY_FIELDS,
  SECOND,
  startDaemon,
  streamData,
  T0,
  tick,
  until,
  type Daemon,
} from './durable-fixture.test.js';

const A = 'node-a';
const B = 'node-b';
const FAIL_AT = T0 + HOUR;
const DELAY = MINUTE;

const flaky = (overrides: Parameters<typeof makeJob>[0] = {}): ResolvedJob =>
  makeJob({
    name: 'flaky',
    schedule: '0 * * * *',
    retry: { maximumRetries: 3, initialDelayMs: DELAY, backoffMultiplier: 2, maximumDelayMs: HOUR },
    ...overrides,
  });

interface Node {
  readonly daemon: Daemon;
  readonly backend: StaticLeadership;
}

/**
 * A node named `host` under `distribution: spread` whose view says `owner` owns every job, on
 * `store` (shared topology unless `shared` is false).
 */
function node(
  host: string,
  clock: FakeClock,
  store: StateStore,
  options: {
    owner: string;
    jobs?: readonly ResolvedJob[];
    shared?: boolean;
    onStoreUnavailable?: 'degrade' | 'fail-closed';
  },
): Node {
  const backend = new StaticLeadership({
    nodeName: host,
    distribution: 'spread',
    defaultOwner: options.owner,
  });
  const source = new StaticLeadershipSource(true, backend);
  const logger = recordingLogger();
  const gate = new ClusterGate(source, logger);
  const seams = schedulerSeams({
    gate,
    deferrals: new DeferredReboots(source, logger),
    onPass: () => undefined,
  });
  const daemon = startDaemon({
    clock,
    store,
    host,
    jobs: options.jobs ?? [flaky()],
    process: newProcess(host === A ? 'aaaaaaaaaaaa' : 'bbbbbbbbbbbb'),
    settings: { onStoreUnavailable: options.onStoreUnavailable ?? 'degrade' },
    seams,
    resume: {
      shared: options.shared ?? true,
      // As the daemon answers it (daemon/cluster.ts): election on, manager running, the gate.
      cluster: {
        running: () => source.electLeaderConfigured() && source.current() !== null,
        owns: (job) => gate.verdict(job, 'retry').kind === 'allow',
      },
    },
  });
  return { daemon, backend };
}

const retryStarts = (d: Daemon): number[] =>
  d
    .of('run:started')
    .filter((event) => event.trigger === 'retry')
    .map((event) => event.attempt);

const retryRecords = async (store: StateStore): Promise<Record<string, unknown>[]> =>
  (await streamData(store, 'retries/flaky')).map(
    (data) => pick(data, [...RETRY_FIELDS, 'fromHost', 'claimedFrom']) ?? {},
  );

/** Both nodes see `owner` own the job from now on. */
function moveOwnership(owner: string, ...nodes: Node[]): void {
  for (const { backend } of nodes) backend.state.defaultOwner = owner;
}

void describe('cross-node retry resume', () => {
  void test('an ownership move mid-ladder hands it off; the new owner claims it and runs the retry once (one store directory)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'yacron2-retry-resume-'));
    const clock = new FakeClock(T0);
    const open = async (): Promise<FsStateStore> => {
      const store = new FsStateStore(
        { path: dir, topology: 'shared' },
        { clock, logger: recordingLogger() },
      );
      await store.open();
      return store;
    };
    const [storeA, storeB] = [await open(), await open()];
    try {
      const a = node(A, clock, storeA, { owner: A });
      const b = node(B, clock, storeB, { owner: A });
      // The boot sequences' real reads land before the FakeClock moves past their bound.
      await until(() => a.daemon.durable.booted && b.daemon.durable.booted, 'the boots');
      a.daemon.runner.script('flaky', { exitCode: 1 });
      b.daemon.runner.setDefault({ exitCode: 0 });
      await tick(clock, HOUR);
      await until(() => a.daemon.writes.pending === 0, 'the pending record');
      assert.deepEqual(
        a.daemon.of('retry:scheduled').map((event) => event.attempt),
        [1],
      );
      assert.deepEqual(b.daemon.of('run:started'), [], 'node-b does not own the job');

      // The cluster moves the job to node-b before the retry is due.
      moveOwnership(B, a, b);
      await tick(clock, DELAY);
      await until(() => a.daemon.writes.pending === 0, 'the handoff record');
      assert.deepEqual(a.daemon.logged('handed off'), [
        'Cron job flaky retry (#1) handed off: the cluster moved ownership of it to another node, which resumes the ladder',
      ]);
      assert.deepEqual(
        a.daemon.scheduler.getRuns('flaky').map((run) => run.outcome),
        ['failure'],
        'no cancelled run record: the attempt moves, it does not die',
      );

      // node-b's housekeeping pass, a little later, claims the handoff at once and runs the
      // retry. (Records order by their writer's clock: a claim in the handoff's very microsecond
      // could sort before it.)
      await tick(clock, SECOND);
      b.daemon.durable.scanRetryClaims();
      // The claim re-arms the ladder at its due time (now): a zero-delay timer.
      await until(async () => {
        await clock.advance(0);
        return retryStarts(b.daemon).length === 1;
      }, 'the claimed retry');
      await until(() => b.daemon.writes.pending === 0, 'the settle');
      assert.deepEqual(retryStarts(b.daemon), [1]);
      assert.deepEqual(retryStarts(a.daemon), []);
      const handoffAt = FAIL_AT + DELAY;
      assert.deepEqual(await retryRecords(storeB), [
        {
          kind: 'pending',
          host: A,
          attempt: 1,
          notBefore: formatIsoUtc(handoffAt),
          jobDigest: flaky().digest,
        },
        {
          kind: 'handoff',
          attempt: 1,
          notBefore: formatIsoUtc(handoffAt),
          jobDigest: flaky().digest,
          fromHost: A,
        },
        {
          kind: 'pending',
          host: B,
          attempt: 1,
          notBefore: formatIsoUtc(handoffAt),
          jobDigest: flaky().digest,
          claimedFrom: A,
        },
        { kind: 'settled', host: B, attempt: 1, reason: 'launched' },
      ]);
      assert.deepEqual(b.daemon.logged('claimed retry'), [
        'Cron job flaky: claimed retry #1 from node-a (handed off)',
      ]);
      // The claim lease was taken and released by node-b's process.
      const lease = await storeB.inspectLease('retry-claim/flaky');
      assert.equal(lease?.holder, 'node-b#bbbbbbbbbbbb');
      assert.equal(lease?.expiresAtMs, 0);

      // A second scan finds the ladder settled: nothing more runs anywhere.
      b.daemon.durable.scanRetryClaims();
      a.daemon.durable.scanRetryClaims();
      await flush();
      await tick(clock, 10 * SECOND);
      assert.deepEqual(retryStarts(b.daemon), [1]);
      assert.deepEqual(retryStarts(a.daemon), []);
      await a.daemon.stop();
      await b.daemon.stop();
    } finally {
      await storeA.close();
      await storeB.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  void test("a crashed owner's pending is claimed only once it is 30 s past due", async () => {
    const clockA = new FakeClock(T0);
    const clock = new FakeClock(T0);
    const store = await openMemoryStore(clock);
    const a = node(A, clockA, store, { owner: A });
    a.daemon.runner.script('flaky', { exitCode: 1 });
    await tick(clockA, HOUR);
    await flush();
    // node-a crashes here: its clock never moves again and nothing of it is settled.
    const b = node(B, clock, store, { owner: A });
    b.daemon.runner.setDefault({ exitCode: 0 });
    await tick(clock, HOUR);
    moveOwnership(B, b);
    // Due at FAIL_AT + DELAY: 29 s later node-b's scan still leaves it to its owner.
    await tick(clock, DELAY + 29 * SECOND);
    b.daemon.durable.scanRetryClaims();
    await flush();
    assert.deepEqual(retryStarts(b.daemon), []);
    assert.deepEqual(
      (await retryRecords(store)).map((record) => record['kind']),
      ['pending'],
    );
    await tick(clock, SECOND);
    b.daemon.durable.scanRetryClaims();
    await tick(clock, 0);
    assert.deepEqual(retryStarts(b.daemon), [1]);
    assert.deepEqual(b.daemon.logged('claimed retry'), [
      'Cron job flaky: claimed retry #1 from node-a (its owner did not run it)',
    ]);
    assert.deepEqual((await retryRecords(store)).slice(1), [
      {
        kind: 'pending',
        host: B,
        attempt: 1,
        notBefore: formatIsoUtc(FAIL_AT + DELAY),
        jobDigest: flaky().digest,
        claimedFrom: A,
      },
      { kind: 'settled', host: B, attempt: 1, reason: 'launched' },
    ]);
    await b.daemon.stop();
  });

  void test('a node that boots as the owner claims a stale foreign pending in its boot sequence', async () => {
    const clock = new FakeClock(T0);
    const store = await openMemoryStore(clock);
    const a = node(A, clock, store, { owner: A });
    a.daemon.runner.script('flaky', { exitCode: 1 });
    await tick(clock, HOUR);
    await a.daemon.stop(); // a graceful stop leaves the pending record for its next boot
    await tick(clock, 2 * DELAY);
    const b = node(B, clock, store, { owner: B });
    await tick(clock, 0);
    assert.deepEqual(retryStarts(b.daemon), [1]);
    await b.daemon.stop();
  });

  void test('a gate-deferred owner whose ladder was claimed meanwhile aborts silently at its due time', async () => {
    const clock = new FakeClock(T0);
    const store = await openMemoryStore(clock);
    const a = node(A, clock, store, { owner: A });
    const b = node(B, clock, store, { owner: A });
    a.daemon.runner.script('flaky', { exitCode: 1 });
    b.daemon.runner.setDefault({ exitCode: 0 });
    await tick(clock, HOUR);
    // node-a loses quorum: its due retry is deferred (transient), re-checked after the delay.
    a.backend.state.quorate = false;
    await tick(clock, DELAY);
    assert.equal(a.daemon.logged('retry (#1) deferred').length, 1);
    // node-b, which now owns the job in its view, claims the stale pending and runs it.
    moveOwnership(B, b);
    await tick(clock, 30 * SECOND);
    b.daemon.durable.scanRetryClaims();
    await tick(clock, 0);
    assert.deepEqual(retryStarts(b.daemon), [1]);
    // node-a is quorate again and still thinks it owns the job: its re-check finds node-b's record.
    a.backend.state.quorate = true;
    const before = (await retryRecords(store)).length;
    await tick(clock, DELAY);
    assert.deepEqual(retryStarts(a.daemon), []);
    assert.deepEqual(a.daemon.of('retry:discarded'), [
      { jobName: 'flaky', reason: 'claimed-elsewhere' },
    ]);
    assert.equal((await retryRecords(store)).length, before, 'no settle: the claimer stays newest');
    assert.deepEqual((await retryRecords(store)).at(-1), {
      kind: 'settled',
      host: B,
      attempt: 1,
      reason: 'launched',
    });
    assert.equal(a.daemon.scheduler.getJobState('flaky').retry, null);
    await a.daemon.stop();
    await b.daemon.stop();
  });

  void test('the claim lease cannot be taken: degrade launches unserialised, fail-closed defers', async () => {
    for (const policy of ['degrade', 'fail-closed'] as const) {
      const clock = new FakeClock(T0);
      const store = new FaultyStateStore(await openMemoryStore(clock));
      const a = node(A, clock, store, { owner: A, onStoreUnavailable: policy });
      a.daemon.runner.script('flaky', { exitCode: 1 });
      await tick(clock, HOUR);
      store.setFault('eio', ['acquireLease']);
      await tick(clock, DELAY);
      assert.equal(a.daemon.logged('cannot serialise its due retry').length, 1, policy);
      if (policy === 'degrade') {
        assert.deepEqual(retryStarts(a.daemon), [1]);
        assert.deepEqual((await retryRecords(store)).at(-1), {
          kind: 'settled',
          host: A,
          attempt: 1,
          reason: 'launched',
        });
      } else {
        assert.deepEqual(retryStarts(a.daemon), []);
        assert.equal(a.daemon.scheduler.getJobState('flaky').retry?.attempt, 1, 'still armed');
        store.setFault('none');
        await tick(clock, DELAY);
        assert.deepEqual(
          retryStarts(a.daemon),
          [1],
          'the re-check launches once the store answers',
        );
      }
      await a.daemon.stop();
    }
  });

  void test('another holder of the claim lease makes the due retry wait for it, then abort on its record', async () => {
    const clock = new FakeClock(T0);
    const store = await openMemoryStore(clock);
    const a = node(A, clock, store, { owner: A });
    a.daemon.runner.script('flaky', { exitCode: 1 });
    await tick(clock, HOUR + DELAY - SECOND);
    // Another node holds the claim lease as the retry comes due, and writes its claim.
    const held = await store.acquireLease('retry-claim/flaky', 'node-c#cccccccccccc', 30_000);
    assert.equal(held.acquired, true);
    await tick(clock, 5 * SECOND);
    assert.deepEqual(retryStarts(a.daemon), []);
    await store.append('retries/flaky', {
      kind: 'pending',
      attempt: 1,
      notBefore: formatIsoUtc(FAIL_AT + DELAY),
      jobDigest: flaky().digest,
      host: 'node-c',
      at: formatIsoUtc(clock.now()),
      claimedFrom: A,
    });
    await store.releaseLease('retry-claim/flaky', 'node-c#cccccccccccc', held.fence);
    await tick(clock, SECOND);
    assert.deepEqual(retryStarts(a.daemon), []);
    assert.deepEqual(a.daemon.of('retry:discarded'), [
      { jobName: 'flaky', reason: 'claimed-elsewhere' },
    ]);
    await a.daemon.stop();
  });

  /** node-b owning `flaky` on a store holding a handoff from node-a (armed at FAIL_AT). */
  async function handedOff(
    jobDigest = flaky().digest,
  ): Promise<{ clock: FakeClock; store: FaultyStateStore; b: Node }> {
    const clock = new FakeClock(FAIL_AT + DELAY + SECOND);
    const store = new FaultyStateStore(await openMemoryStore(clock));
    await store.append('retries/flaky', {
      kind: 'handoff',
      attempt: 1,
      notBefore: formatIsoUtc(FAIL_AT + DELAY),
      jobDigest,
      fromHost: A,
      at: formatIsoUtc(FAIL_AT + DELAY),
      armedAt: formatIsoUtc(FAIL_AT),
    });
    const b = node(B, clock, store, { owner: A });
    b.daemon.runner.setDefault({ exitCode: 0 });
    await flush();
    moveOwnership(B, b);
    return { clock, store, b };
  }

  void test('a claim settles what may not resume: another definition, or a newer run in the durable ledger', async () => {
    const cases = [
      { digest: '0'.repeat(64), ledger: false, reason: 'config-changed' },
      // The run that resolved the ladder happened on another node: only the ledger knows it.
      { digest: flaky().digest, ledger: true, reason: 'superseded-by-run' },
    ];
    for (const { digest, ledger, reason } of cases) {
      const { clock, store, b } = await handedOff(digest);
      if (ledger) await store.append('runs/flaky', ledgerRow('success', FAIL_AT + DELAY));
      b.daemon.durable.scanRetryClaims();
      await tick(clock, SECOND);
      assert.deepEqual((await retryRecords(store)).at(-1), {
        kind: 'settled',
        host: B,
        attempt: 1,
        reason,
      });
      assert.deepEqual(retryStarts(b.daemon), []);
      assert.deepEqual(b.daemon.logged('settling the retry'), [
        `Cron job flaky: settling the retry #1 left by node-a (${reason})`,
      ]);
      await b.daemon.stop();
    }
  });

  void test('a claim finds the lease held, or its pending unwritable: nothing is claimed until a later scan', async () => {
    const { clock, store, b } = await handedOff();
    const held = await store.acquireLease('retry-claim/flaky', 'node-c#cccccccccccc', 30_000);
    b.daemon.durable.scanRetryClaims();
    await tick(clock, SECOND);
    assert.deepEqual(retryStarts(b.daemon), []);
    await store.releaseLease('retry-claim/flaky', 'node-c#cccccccccccc', held.fence);
    store.setFault('eio', ['append']);
    b.daemon.durable.scanRetryClaims();
    await tick(clock, 11 * SECOND);
    assert.deepEqual(retryStarts(b.daemon), []);
    assert.equal((await retryRecords(store)).length, 1, 'still only the handoff');
    store.setFault('none');
    b.daemon.durable.scanRetryClaims();
    await tick(clock, SECOND);
    assert.deepEqual(retryStarts(b.daemon), [1]);
    await b.daemon.stop();
  });

  void test('a claim whose record changed under it, or a store that cannot be read, claims nothing', async () => {
    const { clock, store, b } = await handedOff();
    // The first read sees the handoff; a settle lands before the re-read under the lease.
    store.setFault('hang', ['acquireLease']);
    b.daemon.durable.scanRetryClaims();
    await store.untilHeld(1);
    await store.append('retries/flaky', {
      kind: 'settled',
      reason: 'succeeded',
      host: A,
      at: formatIsoUtc(clock.now()),
      attempt: 1,
    });
    store.setFault('none');
    await tick(clock, SECOND);
    assert.deepEqual(retryStarts(b.daemon), []);
    assert.equal((await retryRecords(store)).length, 2, 'no claim, no settle of its own');
    store.setFault('eio', ['list']);
    b.daemon.durable.scanRetryClaims();
    await tick(clock, SECOND);
    assert.equal(b.daemon.logged('cannot check for a retry to resume').length, 1);
    store.setFault('none');
    await b.daemon.stop();
  });

  void test('an unknown record kind on top (a newer build) is never claimed', async () => {
    const clock = new FakeClock(T0);
    const store = await openMemoryStore(clock);
    await store.append('retries/flaky', {
      kind: 'relay',
      attempt: 1,
      notBefore: formatIsoUtc(T0),
      jobDigest: flaky().digest,
      host: A,
      at: formatIsoUtc(T0),
    });
    const b = node(B, clock, store, { owner: B, jobs: [flaky({ schedule: '0 0 1 1 * 2099' })] });
    await tick(clock, 2 * MINUTE);
    b.daemon.durable.scanRetryClaims();
    await tick(clock, MINUTE);
    assert.deepEqual(retryStarts(b.daemon), []);
    assert.equal((await retryRecords(store)).length, 1, 'nothing written');
    await b.daemon.stop();
  });

  void test('resume inactive: a single-node store keeps the legacy owner-moved settle and cancelled record', async () => {
    const clock = new FakeClock(T0);
    const store = await openMemoryStore(clock);
    const a = node(A, clock, store, { owner: A, shared: false });
    const b = node(B, clock, store, { owner: A, shared: false });
    a.daemon.runner.script('flaky', { exitCode: 1 });
    await tick(clock, HOUR);
    moveOwnership(B, a, b);
    await tick(clock, DELAY);
    b.daemon.durable.scanRetryClaims();
    await tick(clock, 2 * MINUTE);
    assert.deepEqual((await retryRecords(store)).at(-1), {
      kind: 'settled',
      host: A,
      attempt: 1,
      reason: 'owner-moved',
    });
    assert.deepEqual(
      a.daemon.scheduler.getRuns('flaky').map((run) => run.outcome),
      ['failure', 'cancelled'],
    );
    assert.deepEqual(retryStarts(b.daemon), []);
    await a.daemon.stop();
    await b.daemon.stop();
  });
});
