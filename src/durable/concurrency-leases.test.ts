// Cluster concurrency slots in process: several real schedulers (each with its own DurableState,
// host and process token) on one FakeClock and one store, as several daemons on one shared mount.
// The slot lease is the only thing that keeps them apart, so overlap counted across them is the
// property itself. Cross-process fencing of the lease is the store's (fs-multiprocess.test.ts);
// real daemons are test/e2e/concurrency-leases.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createDeferred, FakeClock, TaskSet, YacronError, type Deferred } from '../common/index.js';
import { recordingLogger } from '../logging/testing.js';
import { makeJob } from '../config/testing.js';
import type { ResolvedJob } from '../config/index.js';
import { StateWriteQueue, type StateStore } from '../state/index.js';
import { FaultyStateStore } from '../state/testing.js';
import { DelegatingStateStore, type StoreMethod } from '../state/testing.js';
import { ConcurrencyLeases } from './concurrency-leases.js';
import {
  flush,
  openMemoryStore,
  SECOND,
  startDaemon,
  T0,
  tick,
  type Daemon,
} from './durable-fixture.test.js';
import { isoAt } from './records.js';
import { StoreAccess } from './store-access.js';

const TTL = 5 * SECOND;

function clusterJob(overrides: Parameters<typeof makeJob>[0] = {}): ResolvedJob {
  return makeJob({
    name: 'report',
    schedule: '* * * * * * *',
    concurrencyPolicy: 'Forbid',
    concurrencyScope: 'cluster',
    ...overrides,
  });
}

function node(
  clock: FakeClock,
  store: StateStore,
  host: string,
  job: ResolvedJob,
  settings: { onStoreUnavailable?: 'degrade' | 'fail-closed' } = {},
): Daemon {
  return startDaemon({
    clock,
    store,
    jobs: [job],
    host,
    settings: { slotTtlMs: TTL, ...settings },
  });
}

/** Every start and finish of every node, in the order they happened. */
function timeline(daemons: Record<string, Daemon>): { node: string; edge: 'start' | 'end' }[] {
  const events: { node: string; edge: 'start' | 'end' }[] = [];
  for (const [name, daemon] of Object.entries(daemons)) {
    daemon.scheduler.events.on('run:started', () => events.push({ node: name, edge: 'start' }));
    daemon.scheduler.events.on('run:finished', () => events.push({ node: name, edge: 'end' }));
  }
  return events;
}

void test('Forbid: 3 nodes, 200 fires of a 1.5 s job, never two runs at once across them', async () => {
  const clock = new FakeClock(T0);
  const store = await openMemoryStore(clock);
  const job = clusterJob();
  const daemons = {
    a: node(clock, store, 'host-a', job),
    b: node(clock, store, 'host-b', job),
    c: node(clock, store, 'host-c', job),
  };
  for (const daemon of Object.values(daemons)) daemon.runner.setDefault({ durationMs: 1500 });
  const events = timeline(daemons);
  await tick(clock, 200 * SECOND);
  for (const daemon of Object.values(daemons)) await daemon.stop();

  let running = 0;
  let maxRunning = 0;
  for (const event of events) {
    running += event.edge === 'start' ? 1 : -1;
    maxRunning = Math.max(maxRunning, running);
  }
  const starts = events.filter((event) => event.edge === 'start');
  const skips = Object.values(daemons).flatMap((daemon) => daemon.of('fire:skipped'));
  assert.equal(maxRunning, 1, 'never two runs at once across the nodes');
  // A run takes 1.5 s, so at most every other second starts one; the slot frees at each end.
  assert.ok(starts.length >= 60 && starts.length <= 105, `${starts.length} runs`);
  assert.ok(new Set(starts.map((event) => event.node)).size >= 2, 'the slot moves between nodes');
  assert.ok(
    skips.every((skip) => skip.reason === 'forbid'),
    'every refusal is a Forbid skip',
  );
  assert.ok(skips.length >= 3 * 200 - 3 * starts.length, `${skips.length} skips`);
  const foreign = Object.values(daemons).flatMap((daemon) =>
    daemon.logged('skipped: its cluster concurrency slot is held by host-'),
  );
  assert.ok(foreign.length > 0, 'a cross-node skip names the holder node');
  const lease = await store.inspectLease('slots/report');
  assert.equal(lease?.expiresAtMs, 0, 'released at the end');
  assert.ok((lease?.fence ?? 0) >= starts.length / 2, `fence ${lease?.fence}`);
});

void test('Replace: the holder cancels its run when a cancel names its fence; then the slot moves', async () => {
  const clock = new FakeClock(T0);
  const store = await openMemoryStore(clock);
  const job = clusterJob({ concurrencyPolicy: 'Replace', schedule: '@reboot' });
  const a = node(clock, store, 'host-a', job);
  await tick(clock, SECOND);
  assert.equal(a.runner.running('report').length, 1, 'the @reboot run holds the slot on a');
  const holder = await store.inspectLease('slots/report');
  assert.equal(holder?.holder, `host-a#${a.process.token}`);

  const b = node(clock, store, 'host-b', job);
  // b's @reboot run meets a's live tenure: it asks a to cancel, then polls for the slot.
  await tick(clock, 500);
  const [cancel] = await store.list('slots/report');
  assert.deepEqual(cancel?.data, {
    kind: 'cancel',
    fence: holder?.fence,
    by: 'host-b',
    at: isoAt(T0 + SECOND),
  });
  assert.equal(a.runner.last('report').cancels.length, 0, 'a has not read the stream yet');
  assert.equal(b.runner.runs.length, 0);
  // a reads the stream at its next renew (ttl/3), cancels as replaced and releases.
  await tick(clock, 4 * SECOND);
  assert.deepEqual(a.runner.last('report').cancels, ['replaced']);
  assert.equal(a.of('run:finished')[0]?.disposition, 'replaced');
  assert.equal(b.runner.running('report').length, 1, 'b won the slot after the cancel');
  const taken = await store.inspectLease('slots/report');
  assert.equal(taken?.holder, `host-b#${b.process.token}`);
  assert.equal(taken?.fence, (holder?.fence ?? 0) + 1);
  assert.deepEqual(await store.list('inflight/report').then((records) => records.length > 0), true);
  await a.stop();
  await b.stop();
});

void test('Replace gives up after 2 x ttl when the holder does not let go (no-run over double-run)', async () => {
  const clock = new FakeClock(T0);
  const store = await openMemoryStore(clock);
  // Another daemon process holds the slot and keeps renewing, but never reads cancels.
  await store.acquireLease('slots/report', 'host-z#aaaaaaaaaaaa', TTL);
  const b = node(
    clock,
    store,
    'host-b',
    clusterJob({ concurrencyPolicy: 'Replace', schedule: '@reboot' }),
  );
  for (let second = 0; second < 12; second++) {
    await store.renewLease('slots/report', 'host-z#aaaaaaaaaaaa', 1, TTL);
    await tick(clock, SECOND);
  }
  assert.equal(b.runner.runs.length, 0);
  assert.deepEqual(
    b.of('fire:skipped').map((skip) => skip.reason),
    ['forbid'],
  );
  assert.equal(b.logged('is still held by host-z 10 s after asking it to cancel').length, 1);
  await b.stop();
});

void test('a fresh takeover of a lapsed foreign tenure reconciles its orphaned run', async (t) => {
  for (const [onMissed, field] of [
    ['skip', 'finished_at'],
    ['run-once', 'interruptedAt'],
  ] as const) {
    await t.test(`onMissed ${onMissed}`, async () => {
      const clock = new FakeClock(T0);
      const store = await openMemoryStore(clock);
      // A crashed holder: its lease lapses, its open in-flight record stays newest.
      await store.acquireLease('slots/report', 'host-z#aaaaaaaaaaaa', TTL);
      await store.append('inflight/report', {
        kind: 'open',
        host: 'host-z',
        proc: 'aaaaaaaaaaaa',
        pid: 4242,
        startedAt: isoAt(T0),
        jobDigest: 'd',
      });
      await clock.advance(TTL + SECOND);
      const b = node(clock, store, 'host-b', clusterJob({ schedule: '@reboot', onMissed }));
      await tick(clock, SECOND);
      assert.equal(b.runner.running('report').length, 1);
      const inflight = await store.list('inflight/report');
      const closed = inflight.find((record) => record.data['kind'] === 'closed');
      assert.deepEqual(closed?.data, {
        kind: 'closed',
        host: 'host-b',
        proc: b.process.token,
        reason: 'reconciled-takeover',
        at: isoAt(T0 + TTL + SECOND),
      });
      const [row] = await store.list('runs/report');
      assert.equal(row?.data['outcome'], 'unknown');
      assert.equal(row?.data[field], isoAt(T0));
      assert.equal(
        row?.data['fail_reason'],
        `run interrupted: no completion was recorded for the run started at ${isoAt(T0)} on host-z (daemon crash, or the node lost access to the state store mid-run)`,
      );
      assert.equal(b.logged('took over its cluster concurrency slot from host-z').length, 1);
      await b.stop();
    });
  }
});

/** Answers acquireLease only when the test lets it: a store that decided, then was slow to say. */
class SlowAnswers extends DelegatingStateStore {
  readonly answers: Deferred<void>[] = [];
  protected around<T>(method: StoreMethod, call: () => Promise<T>): Promise<T> {
    if (method !== 'acquireLease') return call();
    const answer = createDeferred();
    this.answers.push(answer);
    return call().then(async (result) => {
      await answer.promise;
      return result;
    });
  }
}

void test('a denial answered after the holder\u2019s expiry is a Forbid skip, never a node-local run', async () => {
  const clock = new FakeClock(T0);
  const shared = await openMemoryStore(clock);
  await shared.acquireLease('slots/report', 'host-z#aaaaaaaaaaaa', TTL);
  await clock.advance(TTL - 500);
  const slow = new SlowAnswers(shared);
  const b = node(clock, slow, 'host-b', clusterJob({ schedule: '@reboot' }));
  await flush();
  // The store denied while host-z was live (T0 + TTL - 500); the answer comes back after expiry.
  assert.equal(slow.answers.length, 1);
  await clock.advance(SECOND);
  slow.answers[0]!.resolve();
  await flush();
  assert.equal(b.runner.runs.length, 0, 'no run beside a holder the store vouched for');
  assert.deepEqual(
    b.of('fire:skipped').map((skip) => skip.reason),
    ['forbid'],
  );
  assert.equal(b.logged('node-local').length, 0);
  await b.stop();
});

void test('the slot frees only once its run\u2019s closed in-flight record landed: the stream stays in tenure order', async () => {
  const clock = new FakeClock(T0);
  const shared = await openMemoryStore(clock);
  // a's appends can be held: a slow shared mount under a's closed record.
  const viaA = new FaultyStateStore(shared);
  // a runs once (@reboot), b every second: the next tenure is b's.
  const a = node(clock, viaA, 'host-a', clusterJob({ schedule: '@reboot' }));
  await tick(clock, SECOND);
  assert.equal(a.runner.running('report').length, 1, 'a holds the slot and runs');
  const b = node(clock, shared, 'host-b', clusterJob());
  await tick(clock, SECOND);
  assert.equal(b.runner.runs.length, 0, 'b meets a\u2019s tenure');

  viaA.setFault('hang', ['append']);
  a.runner.last('report').succeed();
  await viaA.untilHeld();
  await tick(clock, 3 * SECOND);
  assert.equal(b.runner.runs.length, 0, 'the slot is still a\u2019s while its closed record hangs');
  assert.equal((await shared.inspectLease('slots/report'))?.holder, `host-a#${a.process.token}`);

  viaA.setFault('none');
  await tick(clock, 2 * SECOND);
  assert.equal(b.runner.running('report').length, 1, 'then b takes the slot');
  const order = (await shared.list('inflight/report'))
    .reverse()
    .map((record) => `${String(record.data['kind'])} ${String(record.data['host'])}`);
  assert.deepEqual(order, ['open host-a', 'closed host-a', 'open host-b']);
  b.runner.last('report').succeed();
  await tick(clock, SECOND);
  await a.stop();
  await b.stop();
});

void test('a takeover leaves a closed or another process\u2019s record alone', async () => {
  const clock = new FakeClock(T0);
  const store = await openMemoryStore(clock);
  await store.acquireLease('slots/report', 'host-z#aaaaaaaaaaaa', TTL);
  // The newest record is an open one of a different process than the lapsed holder.
  await store.append('inflight/report', {
    kind: 'open',
    host: 'host-y',
    proc: 'bbbbbbbbbbbb',
    pid: null,
    startedAt: isoAt(T0),
    jobDigest: 'd',
  });
  await clock.advance(TTL + SECOND);
  const b = node(clock, store, 'host-b', clusterJob({ schedule: '@reboot' }));
  await tick(clock, SECOND);
  assert.equal(b.runner.running('report').length, 1);
  const lease = await store.inspectLease('slots/report');
  assert.deepEqual([lease?.holder, lease?.fence], [`host-b#${b.process.token}`, 2], 'taken over');
  assert.deepEqual(await store.list('runs/report'), []);
  assert.equal((await store.list('inflight/report')).length, 2, 'only b\u2019s own open was added');
  await b.stop();
});

void test('store trouble: degrade runs node-local with a warning; fail-closed skips', async () => {
  for (const policy of ['degrade', 'fail-closed'] as const) {
    const clock = new FakeClock(T0);
    const store = new FaultyStateStore(await openMemoryStore(clock));
    store.setFault('eio', ['acquireLease']);
    const b = node(clock, store, 'host-b', clusterJob({ schedule: '@reboot' }), {
      onStoreUnavailable: policy,
    });
    await tick(clock, SECOND);
    if (policy === 'degrade') {
      assert.equal(b.runner.runs.length, 1);
      assert.equal(
        b
          .logged('cannot claim its cluster concurrency slot (EIO')
          .filter((line) =>
            line.endsWith('running with node-local enforcement only (onStoreUnavailable degrade)'),
          ).length,
        1,
      );
      b.runner.last('report').succeed();
    } else {
      assert.equal(b.runner.runs.length, 0);
      assert.deepEqual(
        b.of('fire:skipped').map((skip) => skip.reason),
        ['state-unavailable'],
      );
    }
    await flush();
    await b.stop();
  }
});

void test('instances of one node share one tenure; the last one releases it', async () => {
  const clock = new FakeClock(T0);
  const store = await openMemoryStore(clock);
  const job = clusterJob({ concurrencyPolicy: 'Replace', schedule: '@reboot' });
  const a = node(clock, store, 'host-a', job);
  await tick(clock, SECOND);
  const first = await store.inspectLease('slots/report');
  // A manual start under Replace: the local run is replaced, the slot kept or re-taken by a.
  void a.scheduler.startJob('report');
  await tick(clock, SECOND);
  assert.equal(a.runner.running('report').length, 1);
  const lease = await store.inspectLease('slots/report');
  assert.equal(lease?.holder, first?.holder);
  assert.ok((lease?.expiresAtMs ?? 0) > clock.now(), 'held while the run lives');
  // Renewed while it runs: after several TTLs the lease is still ours, same tenure.
  await tick(clock, 3 * TTL);
  const renewed = await store.inspectLease('slots/report');
  assert.equal(renewed?.fence, lease?.fence);
  assert.ok((renewed?.expiresAtMs ?? 0) > clock.now());
  a.runner.last('report').succeed();
  await tick(clock, SECOND);
  assert.equal((await store.inspectLease('slots/report'))?.expiresAtMs, 0);
  await a.stop();
});

void test('locks that fail the fidelity probe: every claim follows the policy, one ERROR', async () => {
  for (const policy of ['degrade', 'fail-closed'] as const) {
    const clock = new FakeClock(T0);
    const store = await openMemoryStore(clock);
    const logger = recordingLogger();
    const tasks = new TaskSet((error) => assert.fail(String(error)));
    let probes = 0;
    const slots = new ConcurrencyLeases({
      store,
      storeOpened: Promise.resolve(true),
      lockFidelity: () => {
        probes += 1;
        return Promise.reject(
          new YacronError(
            'YC_ERR_STATE_UNSAFE',
            'flock(2) does not exclude across processes on this filesystem',
          ),
        );
      },
      access: new StoreAccess(store, new StateWriteQueue({ logger }), clock),
      clock,
      logger,
      host: 'host-a',
      processToken: 'aaaaaaaaaaaa',
      ttlMs: TTL,
      onStoreUnavailable: policy,
      tasks,
    });
    const request = { replace: false, onCancelRequested: () => assert.fail('no cancel') };
    const claims = [
      await slots.claim(clusterJob(), request),
      await slots.claim(clusterJob(), request),
    ];
    assert.deepEqual(
      claims,
      policy === 'degrade'
        ? [
            { kind: 'run', hold: null },
            { kind: 'run', hold: null },
          ]
        : [
            { kind: 'skip', reason: 'state-unavailable' },
            { kind: 'skip', reason: 'state-unavailable' },
          ],
    );
    assert.equal(probes, 1, 'probed once per backend');
    assert.deepEqual(logger.messages('error'), [
      'State store: its locks cannot be trusted: flock(2) does not exclude across processes on this filesystem; every concurrencyScope cluster claim follows onStoreUnavailable',
    ]);
    assert.equal(await store.inspectLease('slots/report'), undefined, 'the lease is never taken');
    await slots.close();
  }
});

void test('a tenure another node asked to cancel is not shared by a new local launch', async () => {
  const clock = new FakeClock(T0);
  const store = await openMemoryStore(clock);
  const logger = recordingLogger();
  const tasks = new TaskSet((error) => assert.fail(String(error)));
  const slotsOf = (host: string, token: string): ConcurrencyLeases =>
    new ConcurrencyLeases({
      store,
      storeOpened: Promise.resolve(true),
      access: new StoreAccess(store, new StateWriteQueue({ logger }), clock),
      clock,
      logger,
      host,
      processToken: token,
      ttlMs: TTL,
      onStoreUnavailable: 'degrade',
      tasks,
    });
  const a = slotsOf('host-a', 'aaaaaaaaaaaa');
  const b = slotsOf('host-b', 'bbbbbbbbbbbb');
  const job = clusterJob({ concurrencyPolicy: 'Replace' });
  let asked = 0;
  const held = await a.claim(job, { replace: true, onCancelRequested: () => (asked += 1) });
  assert.equal(held.kind, 'run');
  const taking = b.claim(job, { replace: true, onCancelRequested: () => assert.fail('b') });
  await tick(clock, 2 * SECOND); // a's renew (ttl/3) reads b's cancel
  assert.equal(asked, 1);
  assert.deepEqual(await a.claim(job, { replace: true, onCancelRequested: () => undefined }), {
    kind: 'skip',
    reason: 'forbid',
  });
  assert.ok(
    logger
      .messages('warn')
      .includes(
        'Job report skipped: another node is replacing its run here (concurrencyScope cluster)',
      ),
  );
  if (held.kind === 'run') held.hold?.release();
  await tick(clock, 2 * SECOND);
  const taken = await taking;
  assert.equal(taken.kind, 'run');
  assert.deepEqual(
    b.held().map((slot) => [slot.slot, slot.holder, slot.fence, slot.refs]),
    [['slots/report', 'host-b#bbbbbbbbbbbb', 2, 1]],
  );
  assert.deepEqual(a.held(), []);
  assert.equal(b.heldFor('report')?.holder, 'host-b#bbbbbbbbbbbb');
  assert.equal(a.heldFor('report'), undefined);
  if (taken.kind === 'run') taken.hold?.release();
  await a.close();
  await b.close();
  await tasks.close();
});

void test('a lock probe that could not tell is asked again at the next claim', async () => {
  const clock = new FakeClock(T0);
  const store = await openMemoryStore(clock);
  const logger = recordingLogger();
  const tasks = new TaskSet((error) => assert.fail(String(error)));
  const verdicts = [
    () => Promise.reject(new YacronError('YC_ERR_STATE_IO', 'lock probe: exited SIGKILL')),
    () => Promise.resolve(),
  ];
  const slots = new ConcurrencyLeases({
    store,
    storeOpened: Promise.resolve(true),
    lockFidelity: () => verdicts.shift()!(),
    access: new StoreAccess(store, new StateWriteQueue({ logger }), clock),
    clock,
    logger,
    host: 'host-a',
    processToken: 'aaaaaaaaaaaa',
    ttlMs: TTL,
    onStoreUnavailable: 'fail-closed',
    tasks,
  });
  const request = { replace: false, onCancelRequested: () => assert.fail('no cancel') };
  assert.deepEqual(await slots.claim(clusterJob(), request), {
    kind: 'skip',
    reason: 'state-unavailable',
  });
  assert.deepEqual(logger.messages('warn'), [
    'Job report skipped: cannot claim its cluster concurrency slot (its locks could not be checked: lock probe: exited SIGKILL) and onStoreUnavailable is fail-closed',
  ]);
  const second = await slots.claim(clusterJob(), request);
  assert.equal(second.kind, 'run');
  assert.equal(verdicts.length, 0, 'probed again, then trusted');
  assert.deepEqual(logger.messages('error'), []);
  if (second.kind === 'run') second.hold?.release();
  await slots.close();
  await tasks.close();
});
