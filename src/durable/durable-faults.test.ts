// The seed's onStoreUnavailable table (spec "When the store is unavailable"), row by row, under
// both policies and four kinds of store trouble, driven by FaultyStateStore over a
// MemoryStateStore: a hung mount ('hang': calls never answer until released) and three errors
// (EIO, ENOSPC, EACCES: calls reject at once). Every wait the store can impose is bounded by the
// 10 s scheduling-path timeout, which the tests cross on the FakeClock; nothing sleeps.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Registry } from 'prom-client';
import { createDeferred, FakeClock, formatIsoUtc } from '../common/index.js';
import { makeJob, type MakeJobOverrides } from '../config/testing.js';
import { MemoryStateStore, StateMetrics, type StateStore } from '../state/index.js';
import { FaultyStateStore, type StoreFault } from '../state/testing.js';
import {
  BOOT_1,
  HOST,
  HOUR,
  MINUTE,
  RETRY_FIELDS,
  SECOND,
  T0,
  flush,
  ledgerRow,
  pick,
  startDaemon,
  streamData,
  tick,
  type Daemon,
  type DaemonOptions,
} from './durable-fixture.test.js';

const FAULTS = ['hang', 'eio', 'enospc', 'eacces'] as const;
const POLICIES = ['degrade', 'fail-closed'] as const;
type Policy = (typeof POLICIES)[number];
type Fault = (typeof FAULTS)[number];

/** The scheduling-path bound (SCHEDULING_READ_TIMEOUT_MS). */
const BOUND = 10 * SECOND;
/** Store writes; the reads are everything the boot sequence and the gates ask. */
const WRITES = ['append', 'prune'] as const;
const READS = ['list', 'deriveMax', 'listStreams'] as const;

interface Rig {
  readonly clock: FakeClock;
  /** What the store holds, read behind the fault's back. */
  readonly inner: StateStore;
  readonly faulty: FaultyStateStore;
  readonly registry: Registry;
  readonly metrics: StateMetrics;
}

async function rig(startMs = T0): Promise<Rig> {
  const clock = new FakeClock(startMs);
  const inner = new MemoryStateStore({ clock });
  await inner.open();
  const registry = new Registry();
  return {
    clock,
    inner,
    faulty: new FaultyStateStore(inner),
    registry,
    metrics: new StateMetrics(registry),
  };
}

function daemon(r: Rig, policy: Policy, options: Omit<DaemonOptions, 'clock' | 'store'>): Daemon {
  return startDaemon({
    clock: r.clock,
    store: r.faulty,
    metrics: r.metrics,
    ...options,
    settings: { onStoreUnavailable: policy, ...options.settings },
  });
}

/** yacron2_state_dropped_writes_total by kind. */
async function droppedWrites(registry: Registry): Promise<Record<string, number>> {
  const metric = registry.getSingleMetric('yacron2_state_dropped_writes_total');
  assert.ok(metric, 'the family is registered');
  const { values } = await metric.get();
  return Object.fromEntries(
    values
      .filter((value) => value.value > 0)
      .map((value) => [String(value.labels['kind']), value.value]),
  );
}

const job = (overrides: MakeJobOverrides): ReturnType<typeof makeJob> =>
  makeJob({ schedule: '* * * * *', ...overrides });

function setFault(r: Rig, fault: StoreFault, ops?: readonly (keyof StateStore)[]): void {
  r.faulty.setFault(fault, ops);
}

/** How long a store call takes to give up under this fault: the bound for a hang, else nothing. */
const giveUpMs = (fault: Fault): number => (fault === 'hang' ? BOUND : 0);

void describe('a store that never opens', () => {
  for (const policy of POLICIES) {
    void test(`${policy}: scheduled fires launch at their slots`, async () => {
      const r = await rig();
      const never = createDeferred<boolean>();
      const d = daemon(r, policy, {
        jobs: [job({ name: 'plain' })],
        storeOpened: never.promise,
        runs: { exitCode: 0 },
      });
      await tick(r.clock, 3 * MINUTE);
      assert.deepEqual(
        d.of('run:started').map((event) => event.startedAtMs - T0),
        [1, 2, 3].map((minutes) => minutes * MINUTE),
      );
      never.resolve(false);
      await d.stop();
    });
  }
});

for (const policy of POLICIES) {
  void describe(`onStoreUnavailable: ${policy}`, () => {
    for (const fault of FAULTS) {
      void describe(`store fault: ${fault}`, () => {
        void test('plain scheduled fires launch at their slot and never wait on the store', async () => {
          const r = await rig();
          setFault(r, fault);
          const d = daemon(r, policy, {
            jobs: [
              job({
                name: 'plain',
                archiveOutput: true,
                captureStdout: true,
                retry: { maximumRetries: 2 },
              }),
              job({ name: 'other', schedule: '*/2 * * * *' }),
            ],
            runs: { exitCode: 0, stdout: 'ok\n' },
          });
          await tick(r.clock, 4 * MINUTE);
          const starts = d.of('run:started');
          assert.deepEqual(
            starts.map((event) => [event.job.name, event.startedAtMs - T0]),
            [
              ['plain', 1 * MINUTE],
              ['plain', 2 * MINUTE],
              ['other', 2 * MINUTE],
              ['plain', 3 * MINUTE],
              ['plain', 4 * MINUTE],
              ['other', 4 * MINUTE],
            ],
          );
          for (const event of starts) {
            assert.equal(event.scheduledAtMs, event.startedAtMs, 'launched at the slot');
            assert.equal(event.decisionLatenessMs, 0);
            assert.equal(event.launchDelayMs, 0);
          }
          assert.equal(d.of('fire:skipped').length, 0, 'never gated');
          setFault(r, 'none');
          await d.stop();
        });

        void test(
          'onlyIfLastSucceeded, store unreadable: ' +
            (policy === 'degrade' ? 'decides from memory (fail open)' : 'blocks the fire'),
          async () => {
            const r = await rig();
            // The ledger says the last run failed, but the store cannot be read.
            await r.inner.append('runs/sync', ledgerRow('failure', T0 - HOUR));
            setFault(r, fault);
            const d = daemon(r, policy, {
              jobs: [job({ name: 'sync', onlyIfLastSucceeded: true })],
              runs: { exitCode: 1 },
            });
            await tick(r.clock, MINUTE);
            const skipped = d.of('fire:skipped');
            if (policy === 'degrade') {
              assert.deepEqual(skipped, [], 'nothing in memory: the gate opens');
              assert.equal(d.of('run:started')[0]?.startedAtMs, T0 + MINUTE);
              // From memory: that run failed, so the next fire is skipped.
              await tick(r.clock, MINUTE);
              assert.deepEqual(
                d.of('fire:skipped').map((event) => [event.reason, event.scheduledAtMs! - T0]),
                [['only-if-last-succeeded', 2 * MINUTE]],
              );
            } else {
              assert.deepEqual(
                skipped.map((event) => [
                  event.reason,
                  event.scheduledAtMs! - T0,
                  event.decisionLatenessMs,
                ]),
                [['only-if-last-succeeded', MINUTE, 0]],
                'blocked, decided at the slot (no wait on the store)',
              );
              assert.equal(d.of('run:started').length, 0);
              assert.equal(d.logged('onStoreUnavailable is fail-closed; blocking').length, 1);
            }
            setFault(r, 'none');
            await d.stop();
          },
        );

        void test(
          'a due durable retry ' +
            (policy === 'degrade' ? 'proceeds on the in-memory ladder' : 'defers and re-checks'),
          async () => {
            const r = await rig();
            const d = daemon(r, policy, {
              jobs: [
                makeJob({
                  name: 'flaky',
                  schedule: '0 * * * *',
                  retry: { maximumRetries: 3, initialDelayMs: MINUTE, backoffMultiplier: 2 },
                }),
              ],
            });
            d.runner.script('flaky', { exitCode: 1 }, { exitCode: 0 });
            await tick(r.clock, HOUR);
            const dueMs = T0 + HOUR + MINUTE;
            assert.deepEqual(
              d.of('retry:scheduled').map((event) => event.retryAtMs),
              [dueMs],
            );
            assert.equal((await streamData(r.inner, 'retries/flaky')).at(-1)?.['kind'], 'pending');
            setFault(r, fault);
            const retries = (): number[] =>
              d
                .of('run:started')
                .filter((event) => event.trigger === 'retry')
                .map((event) => event.startedAtMs);
            await tick(r.clock, MINUTE + giveUpMs(fault) - 1);
            assert.deepEqual(retries(), [], 'the settle write is waited for, at most the bound');
            await tick(r.clock, 1);
            if (policy === 'degrade') {
              assert.deepEqual(retries(), [dueMs + giveUpMs(fault)]);
              setFault(r, 'none');
            } else {
              assert.deepEqual(retries(), [], 'deferred like a closed cluster gate');
              assert.equal(
                d.logged(
                  'cannot settle retry #1 and onStoreUnavailable is fail-closed; re-checking in 60.000 seconds',
                ).length,
                1,
              );
              // The re-check follows the ladder's delay; still unavailable, it defers again.
              await tick(r.clock, MINUTE + giveUpMs(fault));
              assert.deepEqual(retries(), []);
              assert.equal(d.logged('re-checking in 60.000 seconds').length, 2);
              // The store answers again: the next re-check settles the record and launches.
              setFault(r, 'none');
              const recheckMs = dueMs + 2 * (giveUpMs(fault) + MINUTE);
              await tick(r.clock, recheckMs - r.clock.now());
              assert.deepEqual(retries(), [recheckMs]);
            }
            await flush();
            const newest = pick((await streamData(r.inner, 'retries/flaky')).at(-1), RETRY_FIELDS);
            if (policy === 'degrade' && fault !== 'hang') {
              // The settle write failed (dropped and counted); the retry ran anyway.
              assert.ok(((await droppedWrites(r.registry))['retry'] ?? 0) >= 1);
              assert.equal(newest?.['kind'], 'pending', 'nothing landed while the store failed');
            } else if (policy === 'degrade') {
              // The hung settle landed once the store answered (and the retry's success may have
              // settled the record again): either way it is settled, not pending.
              assert.equal(newest?.['kind'], 'settled');
              assert.ok(['launched', 'succeeded'].includes(String(newest?.['reason'])));
            } else {
              // Fail-closed launched only once the settle had landed.
              assert.deepEqual(newest, {
                kind: 'settled',
                host: HOST,
                attempt: 1,
                reason: 'launched',
              });
            }
            await d.stop();
          },
        );

        for (const problem of ['unreadable', 'unwritable'] as const) {
          const ops = problem === 'unreadable' ? READS : WRITES;
          void test(
            `an ${problem} @reboot marker ` +
              (policy === 'degrade' ? 'runs the job (at-least-once)' : 'skips the boot run'),
            async () => {
              const r = await rig();
              setFault(r, fault, ops);
              const d = daemon(r, policy, {
                jobs: [makeJob({ name: 'warm', schedule: '@reboot' })],
                boot: BOOT_1,
              });
              if (fault === 'hang') {
                await tick(r.clock, BOUND - 1);
                assert.equal(
                  d.of('run:started').length + d.of('fire:skipped').length,
                  0,
                  'undecided until the bound',
                );
                await tick(r.clock, 1);
              } else {
                await flush();
              }
              if (policy === 'degrade') {
                assert.deepEqual(
                  d.of('run:started').map((event) => [event.trigger, event.startedAtMs]),
                  [['reboot', T0 + giveUpMs(fault)]],
                );
                assert.equal(d.logged('running the @reboot job anyway (degrade)').length, 1);
              } else {
                assert.equal(d.of('run:started').length, 0);
                assert.deepEqual(
                  d.of('fire:skipped').map((event) => [event.jobName, event.trigger]),
                  [['warm', 'reboot']],
                );
                assert.equal(d.logged('skipping the boot run (fail-closed)').length, 1);
              }
              setFault(r, 'none');
              await d.stop();
            },
          );
        }

        if (fault === 'hang') {
          void test('hung writes never block scheduling, are not counted as dropped, and land once the store answers', async () => {
            const r = await rig();
            setFault(r, 'hang', WRITES);
            const d = daemon(r, policy, { jobs: [job({ name: 'plain' })], runs: { exitCode: 0 } });
            await tick(r.clock, 2 * MINUTE);
            assert.equal(d.of('run:finished').length, 2);
            assert.ok(r.faulty.held > 0, 'writes are waiting on the store');
            assert.deepEqual(await droppedWrites(r.registry), {});
            setFault(r, 'none');
            await flush();
            assert.equal((await streamData(r.inner, 'runs/plain')).length, 2);
            await d.stop();
          });

          void test('shutdown waits at most 5 s for writes a hung store holds', async () => {
            const r = await rig();
            const d = daemon(r, policy, { jobs: [job({ name: 'plain' })], runs: { exitCode: 0 } });
            await tick(r.clock, MINUTE);
            setFault(r, 'hang');
            await tick(r.clock, MINUTE);
            assert.ok(r.faulty.held > 0);
            await d.scheduler.shutdown(0);
            let closed = false;
            const closing = d.durable.close().then(() => (closed = true));
            await tick(r.clock, 5 * SECOND - 1);
            assert.equal(closed, false);
            await tick(r.clock, 1);
            await closing;
            assert.equal(closed, true);
            setFault(r, 'none');
          });
        } else {
          void test('failed durable writes are dropped with a warning and counted by kind', async () => {
            const r = await rig(T0 + 10 * MINUTE);
            // Reads answer (the boot sequence, markers, watermark); every write fails.
            await r.inner.append('runs/report', ledgerRow('success', T0 - 90 * MINUTE));
            setFault(r, fault, WRITES);
            const d = daemon(r, policy, {
              jobs: [
                makeJob({ name: 'report', schedule: '0 * * * *', onMissed: 'run-once' }),
                job({
                  name: 'dump',
                  captureStdout: true,
                  archiveOutput: true,
                  retry: { maximumRetries: 1 },
                }),
                makeJob({ name: 'warm', schedule: '@reboot' }),
              ],
              boot: BOOT_1,
              counters: { snapshot: () => ({}), seed: () => undefined },
            });
            d.runner.script('dump', { exitCode: 1, stdout: 'x\n' });
            d.runner.setDefault({ exitCode: 0 });
            await tick(r.clock, MINUTE);
            const dropped = await droppedWrites(r.registry);
            for (const kind of [
              'run-record',
              'inflight',
              'archive',
              'retry',
              'reboot-marker',
              'checkpoint',
              'counters',
            ]) {
              assert.ok(
                (dropped[kind] ?? 0) >= 1,
                `a ${kind} write was counted (${JSON.stringify(dropped)})`,
              );
            }
            const total = Object.values(dropped).reduce((sum, value) => sum + value, 0);
            assert.equal(
              d.logged('the write was dropped').length,
              total,
              'one warning per dropped write',
            );
            assert.equal(
              r.faulty.calls('append') + r.faulty.calls('prune'),
              total,
              'every write attempted was dropped',
            );
            // The catch-up checkpoint could not be recorded: degrade backfills anyway, fail-closed not.
            assert.equal(
              d.of('run:started').filter((event) => event.trigger === 'catchup').length,
              policy === 'degrade' ? 1 : 0,
            );
            setFault(r, 'none');
            await d.stop();
          });
        }
      });
    }
  });
}

void describe('partial and transient outages', () => {
  void test('fail-closed: a store whose writes fail while its reads answer does not make the gate flap', async () => {
    const r = await rig();
    const d = daemon(r, 'fail-closed', {
      jobs: [job({ name: 'sync', onlyIfLastSucceeded: true })],
      runs: { exitCode: 0 },
    });
    await flush();
    setFault(r, 'enospc', WRITES);
    await tick(r.clock, 4 * MINUTE);
    assert.deepEqual(
      d.of('fire:skipped').map((event) => event.reason),
      [],
      'every run succeeded and the ledger answers: nothing to block',
    );
    setFault(r, 'none');
    await d.stop();
  });

  void test('degrade: a retry that launched while its settle write failed is not replayed by the next boot', async () => {
    const r = await rig();
    const flaky = makeJob({
      name: 'flaky',
      schedule: '0 * * * *',
      retry: { maximumRetries: 3, initialDelayMs: MINUTE },
    });
    const first = daemon(r, 'degrade', { jobs: [flaky] });
    first.runner.script('flaky', { exitCode: 1 }, { exitCode: 0, durationMs: 30 * SECOND });
    await tick(r.clock, HOUR);
    // A transient outage exactly when the retry is due: its `launched` settle is dropped.
    setFault(r, 'eio', WRITES);
    await tick(r.clock, MINUTE);
    assert.equal(first.of('run:started').at(-1)?.trigger, 'retry', 'degrade: it launched');
    setFault(r, 'none');
    await tick(r.clock, 30 * SECOND);
    assert.equal(first.of('run:finished').at(-1)?.outcome.kind, 'succeeded');
    await first.stop();
    const second = daemon(r, 'degrade', { jobs: [flaky], runs: { exitCode: 0 } });
    await tick(r.clock, MINUTE);
    assert.deepEqual(
      second.of('run:started').map((event) => event.trigger),
      [],
      'the retry already ran in the previous process',
    );
    await second.stop();
  });
});

void describe('the orphan watch under store trouble', () => {
  void test('a failing reconciliation is logged once and tried again at every look until it succeeds', async () => {
    const r = await rig();
    const startedAtMs = T0 - 10 * MINUTE;
    await r.inner.append('inflight/sync', {
      kind: 'open',
      host: HOST,
      proc: 'c0ffee000001',
      pid: 4242,
      startedAt: formatIsoUtc(startedAtMs),
      jobDigest: 'd',
    });
    let alive = true;
    const d = daemon(r, 'degrade', { jobs: [job({ name: 'sync' })], pidAlive: () => alive });
    await flush();
    assert.equal(d.logged('is still alive; leaving it alone until it ends').length, 1);
    setFault(r, 'eio', ['list']);
    alive = false;
    await tick(r.clock, 5 * SECOND);
    assert.equal(d.logged('cannot reconcile the interrupted runs of sync').length, 1);
    assert.deepEqual(await streamData(r.inner, 'runs/sync'), []);
    setFault(r, 'none');
    await tick(r.clock, 2 * SECOND);
    assert.deepEqual(
      (await streamData(r.inner, 'runs/sync')).map((row) => row['outcome']),
      ['unknown'],
    );
    await d.stop();
  });
});

void describe("record-before-run: an onMissed job's in-flight record under store trouble", () => {
  const report = (): ReturnType<typeof makeJob> =>
    job({ name: 'report', onMissed: 'run-once', schedule: '* * * * *' });

  for (const policy of POLICIES) {
    for (const fault of ['hang', 'eio'] as const) {
      void test(`${policy}, ${fault}: ${policy === 'degrade' ? 'the run starts once the write gave up, with a warning' : 'the run does not start, and the log says why'}`, async () => {
        const r = await rig();
        const d = daemon(r, policy, { jobs: [report()], runs: 'manual' });
        await flush();
        setFault(r, fault, ['append']);
        // The slot at T0 + 1 min; a hung write gives up after the bound.
        await tick(r.clock, MINUTE + giveUpMs(fault) - SECOND);
        if (fault === 'hang') {
          assert.equal(d.runner.runsOf('report').length, 0, 'waiting for the record');
        }
        await tick(r.clock, 2 * SECOND);
        if (policy === 'degrade') {
          assert.deepEqual(
            d.of('run:started').map((event) => event.startedAtMs - T0),
            [MINUTE],
            'started, its start instant the launch instant',
          );
          assert.equal(d.runner.runsOf('report').length, 1);
          assert.equal(
            d.logged(
              'Job report: its in-flight record did not reach the state store before the spawn (a store error, or no answer within 10 s); starting it anyway (onStoreUnavailable degrade)',
            ).length,
            1,
          );
          d.runner.last('report').succeed();
          await flush();
        } else {
          assert.deepEqual(d.runner.runsOf('report'), []);
          assert.deepEqual(
            d.of('fire:skipped').map((event) => [event.reason, event.trigger]),
            [['state-unavailable', 'schedule']],
          );
          assert.deepEqual(d.logged('Job report skipped: its in-flight record'), [
            `Job report skipped: its in-flight record did not reach the state store before the spawn (a store error, or no answer within 10 s); not starting it (onStoreUnavailable fail-closed)`,
          ]);
        }
        setFault(r, 'none');
        await tick(r.clock, SECOND);
        const kinds = (await streamData(r.inner, 'inflight/report')).map((data) => data['kind']);
        // A hung record lands late, in order: under fail-closed a close follows it (no reader
        // takes it for a run); under degrade the run's own records follow it. A failed one is
        // simply not there (nor is anything written while the writes failed).
        const landed = policy === 'fail-closed' ? ['open', 'closed'] : ['open', 'open', 'closed'];
        assert.deepEqual(kinds, fault === 'hang' ? landed : []);
        await d.stop();
      });
    }
  }
});
