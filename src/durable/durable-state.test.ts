// DurableState over a MemoryStateStore with the real scheduler on a FakeClock (seed "The durable
// run ledger" through "SLA trends"): what lands in which stream, what a restarted process (a new
// scheduler and DurableState over the same store) does with it, and the orderings the seed
// promises (record-before-run, record-then-run, checkpoints around backfills). Time moves only
// through the FakeClock; orderings are read from one journal of landed appends and events.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createDeferred, FakeClock, formatIsoUtc, isYacronError } from '../common/index.js';
import { computeTrends, renderJobRuns, renderRunRecord } from '../http/index.js';
import { makeConfig, makeJob, type MakeJobOverrides } from '../config/testing.js';
import { DEFAULT_MAX_RECORD_BYTES, type MemoryStateStore } from '../state/index.js';
import {
  BOOT_1,
  BOOT_2,
  HOST,
  HOUR,
  INFLIGHT_FIELDS,
  MINUTE,
  ObservedStore,
  RETRY_FIELDS,
  SECOND,
  T0,
  flush,
  ledgerRow,
  newProcess,
  openMemoryStore,
  pick,
  startDaemon,
  streamData,
  tick,
  type ClusterSeams,
  type Daemon,
  type DaemonOptions,
} from './durable-fixture.test.js';
import { CATCHUP_GATE_POLL_MS } from './catchup-runner.js';
import type { CounterSnapshots } from './durable-state.js';

interface World {
  readonly clock: FakeClock;
  readonly store: MemoryStateStore;
}

async function world(startMs = T0): Promise<World> {
  const clock = new FakeClock(startMs);
  return { clock, store: await openMemoryStore(clock) };
}

/** A daemon over the world's store whose boot sequence has run. */
async function boot(w: World, options: Omit<DaemonOptions, 'clock' | 'store'>): Promise<Daemon> {
  const daemon = startDaemon({ clock: w.clock, store: w.store, ...options });
  await flush();
  return daemon;
}

const job = (overrides: MakeJobOverrides): ReturnType<typeof makeJob> =>
  makeJob({ schedule: '* * * * *', ...overrides });

/** A ledger row's fields, exactly the reference's. */
const LEDGER_FIELDS = [
  'outcome',
  'exit_code',
  'started_at',
  'finished_at',
  'duration',
  'fail_reason',
  'resources',
] as const;

// ---- the ledger -----------------------------------------------------------------------------

void describe('the durable run ledger', () => {
  void test('a retry the cluster abandoned leaves its cancelled record in the ledger too', async () => {
    const w = await world();
    const d = await boot(w, { jobs: [job({ name: 'flaky' })] });
    const summary = {
      outcome: 'cancelled' as const,
      exitCode: null,
      startedAtMs: null,
      finishedAtMs: T0 + 5 * SECOND,
      durationMs: null,
      failReason: 'retry abandoned: cluster ownership moved to another node',
      resources: null,
    };
    // The scheduler emits this when a due retry's owner moved (leadership/scheduler-seams.test.ts).
    d.scheduler.events.emit('retry:abandoned', { jobName: 'flaky', attempt: 1, summary });
    await flush();
    const rows = await streamData(w.store, 'runs/flaky');
    assert.equal(rows.length, 1);
    const record = renderRunRecord(summary);
    assert.deepEqual(
      LEDGER_FIELDS.map((field) => rows[0]![field]),
      LEDGER_FIELDS.map((field) => record[field]),
    );
    assert.equal(rows[0]!['outcome'], 'cancelled');
    await d.stop();
  });

  void test('every finished run lands in runs/<job> in the GET /jobs/{name}/runs shape', async () => {
    const w = await world();
    const d = await boot(w, { jobs: [job({ name: 'backup' })] });
    d.runner.script(
      'backup',
      { exitCode: 0, durationMs: 2 * SECOND },
      { exitCode: 3, durationMs: SECOND },
    );
    await tick(w.clock, 2 * MINUTE + 5 * SECOND);

    const rows = await streamData(w.store, 'runs/backup');
    // The row is the run record GET /jobs/{name}/runs shows for the run in memory.
    const memory = d.scheduler.getRuns('backup').map(renderRunRecord);
    assert.equal(rows.length, 2);
    const finished = d.of('run:finished');
    rows.forEach((row, index) => {
      const record = memory[index]!;
      assert.deepEqual(
        {
          outcome: row['outcome'],
          exit_code: row['exit_code'],
          started_at: row['started_at'],
          finished_at: row['finished_at'],
          duration: row['duration'],
          fail_reason: row['fail_reason'],
        },
        {
          outcome: record.outcome,
          exit_code: record.exit_code,
          started_at: record.started_at,
          finished_at: record.finished_at,
          duration: record.duration,
          fail_reason: record.fail_reason,
        },
      );
      // The reference's fields and nothing else (resources: null until monitored).
      assert.deepEqual(Object.keys(row).sort(), [...LEDGER_FIELDS].sort());
      assert.equal(row['resources'], null);
      assert.equal(row['finished_at'], formatIsoUtc(finished[index]!.outcome.finishedAtMs));
    });
    assert.deepEqual(
      rows.map((row) => [row['outcome'], row['exit_code']]),
      [
        ['success', 0],
        ['failure', 3],
      ],
    );
    await d.stop();
  });

  void test('a daemon stopped while its store is still opening keeps the records of its runs', async () => {
    // The open under way ends 2 s into the stop (within the close's drain bound): the run's
    // in-flight records and its ledger row land instead of failing at close.
    const w = await world();
    const opened = createDeferred<boolean>();
    const attempt = createDeferred<boolean>();
    const d = startDaemon({
      clock: w.clock,
      store: w.store,
      jobs: [job({ name: 'backup' })],
      storeOpened: opened.promise,
      storeOpenAttempt: () => attempt.promise,
      runs: { exitCode: 0 },
    });
    await d.scheduler.startJob('backup');
    await flush();
    assert.equal(d.of('run:finished').length, 1);
    void w.clock.sleep(2 * SECOND).then(() => {
      attempt.resolve(true);
      opened.resolve(true);
    });
    await d.stop();
    assert.deepEqual(
      (await streamData(w.store, 'runs/backup')).map((row) => row['outcome']),
      ['success'],
    );
    assert.deepEqual(
      (await streamData(w.store, 'inflight/backup')).map((record) => record['kind']),
      ['open', 'closed'],
    );
  });

  void test('with no open attempt under way (the last one failed), the stop drops them at once', async () => {
    const w = await world();
    const never = createDeferred<boolean>();
    const d = startDaemon({
      clock: w.clock,
      store: w.store,
      jobs: [job({ name: 'backup' })],
      storeOpened: never.promise,
      storeOpenAttempt: () => Promise.resolve(false),
      runs: { exitCode: 0 },
    });
    await d.scheduler.startJob('backup');
    await flush();
    const stopAtMs = w.clock.monotonic();
    await d.stop();
    assert.ok(w.clock.monotonic() - stopAtMs <= SECOND, 'the stop did not wait for the store');
    assert.deepEqual(await streamData(w.store, 'runs/backup'), []);
  });

  void test('is pruned to maxRunsPerJob (on the first append and every 20th after it)', async () => {
    const w = await world();
    const d = await boot(w, { jobs: [job({ name: 'tick' })], settings: { maxRunsPerJob: 5 } });
    d.runner.setDefault({ exitCode: 0 });
    await tick(w.clock, 20 * MINUTE);
    assert.equal(d.of('run:finished').length, 20);
    assert.equal((await streamData(w.store, 'runs/tick')).length, 5, 'pruned on the 20th append');
    await tick(w.clock, 7 * MINUTE);
    const rows = await streamData(w.store, 'runs/tick');
    assert.ok(rows.length >= 5 && rows.length < 5 + 20, `${rows.length} rows stay bounded`);
    // The newest rows survive, and every reader of the ledger sees at most maxRunsPerJob of them.
    assert.equal(
      rows.at(-1)!['finished_at'],
      formatIsoUtc(d.of('run:finished').at(-1)!.outcome.finishedAtMs),
    );
    assert.equal((await d.durable.getTrends('tick')).runs.length, 5);
    await d.stop();
  });

  void test('a run killed by Replace is not recorded (it is not in the history either)', async () => {
    const w = await world();
    const d = await boot(w, { jobs: [job({ name: 'slow', concurrencyPolicy: 'Replace' })] });
    await tick(w.clock, MINUTE); // first instance runs until replaced
    await tick(w.clock, MINUTE); // replaced by the second
    d.runner.last('slow').succeed();
    await flush();
    const rows = await streamData(w.store, 'runs/slow');
    assert.deepEqual(
      rows.map((row) => row['outcome']),
      d.scheduler.getRuns('slow').map((run) => run.outcome),
    );
    assert.equal(rows.length, 1);
    await d.stop();
  });
});

// ---- rehydration ----------------------------------------------------------------------------

void describe('history rehydration', () => {
  async function firstProcess(w: World): Promise<void> {
    const d = await boot(w, { jobs: [job({ name: 'sync' })] });
    d.runner.script('sync', { exitCode: 0 }, { exitCode: 1 }, { exitCode: 0 });
    await tick(w.clock, 3 * MINUTE);
    assert.equal(d.of('run:finished').length, 3);
    await d.stop();
  }

  void test('a restarted process shows the pre-restart runs in getRuns() at once', async () => {
    const w = await world();
    await firstProcess(w);
    const before = await streamData(w.store, 'runs/sync');
    const d = await boot(w, { jobs: [job({ name: 'sync' })] });
    const runs = renderJobRuns('sync', d.scheduler.getRuns('sync'));
    assert.deepEqual(
      runs.runs.map((run) => [run.outcome, run.finished_at]),
      before.map((row) => [row['outcome'], row['finished_at']]),
    );
    assert.equal(runs.stats.total, 3);
    assert.equal(runs.stats.failure, 1);
    assert.equal(d.logged('rehydrated 3 run(s)').length, 1);
    await d.stop();
  });

  void test('happens once per process: a second DurableState on the same process state adds nothing', async () => {
    const w = await world();
    await firstProcess(w);
    const process = newProcess('process-2');
    const first = await boot(w, { jobs: [job({ name: 'sync' })], process });
    assert.equal(first.scheduler.getRuns('sync').length, 3);
    // A state-section reload: the old collaborator goes, a new one comes, same process.
    first.servingDurable.swap(null);
    await first.durable.close();
    const second = await boot(w, { jobs: [job({ name: 'sync' })], process, scheduler: first });
    assert.equal(second.scheduler.getRuns('sync').length, 3);
    assert.equal(process.historyRehydrated, true);
    await second.stop();
  });

  void test('a run that finished between the store opening and the rehydration read is shown once', async () => {
    const w = await world();
    const journal: string[] = [];
    const observed = new ObservedStore(w.store, journal);
    // The ledger read of the boot sequence is slow; the job runs meanwhile.
    const release = observed.hold('list', 'runs/');
    const d = startDaemon({
      clock: w.clock,
      store: observed.store,
      journal,
      jobs: [job({ name: 'sync' })],
    });
    d.runner.setDefault({ exitCode: 0 });
    await d.scheduler.startJob('sync');
    await flush();
    assert.equal((await streamData(w.store, 'runs/sync')).length, 1, 'its ledger row landed');
    release();
    await flush();
    assert.equal(d.scheduler.getRuns('sync').length, 1);
    await d.stop();
  });
});

// ---- in-flight records ----------------------------------------------------------------------

void describe('in-flight records', () => {
  void test('every run start writes an open record of its own, the 1 -> 0 transition a closed one', async () => {
    const w = await world();
    const j = job({ name: 'etl' });
    const d = await boot(w, { jobs: [j], process: newProcess('process-1') });
    await d.scheduler.startJob('etl');
    await d.scheduler.startJob('etl'); // Allow: the second live instance has its own record
    await flush();
    const started = d.of('run:started');
    const opens = started.map((event) => ({
      kind: 'open',
      host: HOST,
      proc: 'process-1',
      pid: event.pid,
      startedAt: formatIsoUtc(event.startedAtMs),
      jobDigest: j.digest,
    }));
    assert.equal(opens.length, 2);
    assert.notEqual(opens[0]!.pid, opens[1]!.pid);
    assert.deepEqual(
      (await streamData(w.store, 'inflight/etl')).map((record) => pick(record, INFLIGHT_FIELDS)),
      opens,
    );
    d.runner.runsOf('etl')[0]!.succeed();
    await flush();
    assert.equal((await streamData(w.store, 'inflight/etl')).length, 2, 'one instance still live');
    d.runner.runsOf('etl')[1]!.fail();
    await flush();
    const records = await streamData(w.store, 'inflight/etl');
    assert.deepEqual(records.at(-1), {
      kind: 'closed',
      host: HOST,
      proc: 'process-1',
      reason: 'finished',
      at: formatIsoUtc(w.clock.now()),
    });
    assert.equal(records.length, 3);
    // Each open record's start is its ledger row's started_at, to the millisecond.
    assert.deepEqual(
      (await streamData(w.store, 'runs/etl')).map((row) => row['started_at']).sort(),
      opens.map((open) => open.startedAt).sort(),
    );
    await d.stop();
  });

  void test("the closed record follows the last run's ledger row: a crash between them leaves the run to reconciliation", async () => {
    const w = await world();
    const journal: string[] = [];
    const observed = new ObservedStore(w.store, journal);
    // The row's append never returns: the daemon dies with it in flight.
    observed.hold('append', 'runs/');
    const d = startDaemon({
      clock: w.clock,
      store: observed.store,
      journal,
      jobs: [job({ name: 'etl' })],
      process: newProcess('process-1'),
    });
    await flush();
    await d.scheduler.startJob('etl');
    await flush();
    d.runner.last('etl').succeed();
    await tick(w.clock, 5 * SECOND);
    assert.deepEqual(
      (await streamData(w.store, 'inflight/etl')).map((record) => record['kind']),
      ['open'],
      'no close without its row',
    );
    const next = await boot(w, { jobs: [job({ name: 'etl' })], process: newProcess('process-2') });
    assert.deepEqual(
      (await streamData(w.store, 'runs/etl')).map((row) => row['outcome']),
      ['unknown'],
    );
    await next.stop();
  });

  void test('record-before-run: an onMissed job is spawned only once its open record (pid null) landed', async () => {
    const w = await world();
    const journal: string[] = [];
    const observed = new ObservedStore(w.store, journal);
    const release = observed.hold('append', 'inflight/');
    const j = job({ name: 'report', onMissed: 'run-once' });
    const d = startDaemon({
      clock: w.clock,
      store: observed.store,
      journal,
      jobs: [j],
      process: newProcess('process-1'),
    });
    await flush();
    const started = d.scheduler.startJob('report');
    await flush();
    assert.equal(d.runner.runsOf('report').length, 0, 'not asked to start before the record');
    release();
    await flush();
    const result = await started;
    assert.equal(result.kind, 'started');
    assert.equal(d.runner.runsOf('report').length, 1);
    await flush();
    const [event] = d.of('run:started');
    const open = {
      kind: 'open',
      host: HOST,
      proc: 'process-1',
      startedAt: formatIsoUtc(event!.startedAtMs),
      jobDigest: j.digest,
    };
    // The same start instant twice: before the spawn without a pid, after it with the pid.
    assert.deepEqual(
      (await streamData(w.store, 'inflight/report')).map((record) => pick(record, INFLIGHT_FIELDS)),
      [
        { ...open, pid: null },
        { ...open, pid: event!.pid },
      ],
    );
    assert.ok(
      journal.indexOf('append inflight/report open') < journal.indexOf('run:started report manual'),
      journal.join('\n'),
    );
    d.runner.last('report').succeed();
    await flush();
    const records = await streamData(w.store, 'inflight/report');
    assert.equal(records.at(-1)?.['reason'], 'finished', 'one run, one close');
    assert.equal(records.length, 3);
    // The ledger row's start is the records' start.
    assert.deepEqual(
      (await streamData(w.store, 'runs/report')).map((row) => row['started_at']),
      [open.startedAt],
    );
    await d.stop();
  });

  void test('a job without onMissed is spawned without waiting for its record', async () => {
    const w = await world();
    const observed = new ObservedStore(w.store, []);
    const release = observed.hold('append', 'inflight/');
    const d = startDaemon({ clock: w.clock, store: observed.store, jobs: [job({ name: 'etl' })] });
    await flush();
    assert.equal((await d.scheduler.startJob('etl')).kind, 'started');
    assert.equal(d.runner.runsOf('etl').length, 1);
    release();
    await d.stop();
  });

  void test('a crash right after the pre-spawn record: the next start reconciles the run (pid null)', async () => {
    // What a process killed between its pre-spawn record and the post-spawn one leaves.
    const w = await world();
    const j = job({ name: 'report', onMissed: 'run-once' });
    const startedAtMs = T0 - MINUTE;
    await w.store.append('inflight/report', {
      kind: 'open',
      host: HOST,
      proc: 'c0ffee000001',
      pid: null,
      startedAt: formatIsoUtc(startedAtMs),
      jobDigest: j.digest,
    });
    // Every pid is "alive": a run without one is still never taken for a live orphan.
    const d = await boot(w, { jobs: [j], pidAlive: () => true });
    const rows = await streamData(w.store, 'runs/report');
    assert.deepEqual(
      rows.map((row) => [row['outcome'], row['interruptedAt']]),
      [['unknown', formatIsoUtc(startedAtMs)]],
    );
    assert.equal(
      (await streamData(w.store, 'inflight/report')).at(-1)?.['reason'],
      'reconciled-crash',
    );
    await d.stop();
  });

  void test('a state-section reload under a live run still closes its in-flight record', async () => {
    const w = await world();
    const process = newProcess('process-1');
    const first = await boot(w, { jobs: [job({ name: 'etl' })], process });
    await first.scheduler.startJob('etl');
    await flush();
    first.servingDurable.swap(null);
    await first.durable.close();
    const second = await boot(w, { jobs: [job({ name: 'etl' })], process, scheduler: first });
    second.runner.last('etl').succeed();
    await flush();
    const records = await streamData(w.store, 'inflight/etl');
    assert.equal(records.at(-1)?.['kind'], 'closed');
    await second.stop();
  });
});

// ---- crash reconciliation -------------------------------------------------------------------

void describe('same-host crash reconciliation', () => {
  const STARTED_MS = T0 - 10 * MINUTE;

  async function seedOpen(
    w: World,
    name: string,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    await w.store.append(`inflight/${name}`, {
      kind: 'open',
      host: HOST,
      proc: 'c0ffee000001',
      pid: 4242,
      startedAt: formatIsoUtc(STARTED_MS),
      jobDigest: 'd',
      ...extra,
    });
  }

  void test("onMissed skip: a dead process's open record becomes reconciled-crash and an unknown row at its start instant", async () => {
    const w = await world();
    await seedOpen(w, 'sync');
    const d = await boot(w, { jobs: [job({ name: 'sync' })], process: newProcess('process-2') });
    assert.deepEqual((await streamData(w.store, 'inflight/sync')).at(-1), {
      kind: 'closed',
      host: HOST,
      proc: 'process-2',
      reason: 'reconciled-crash',
      at: formatIsoUtc(T0),
    });
    const rows = await streamData(w.store, 'runs/sync');
    // The reference's row exactly: no started_at (duration statistics are untouched), no
    // resources, and finished_at = the start instant, so the watermark advances over that slot.
    assert.deepEqual(rows, [
      {
        outcome: 'unknown',
        exit_code: null,
        started_at: null,
        duration: null,
        finished_at: formatIsoUtc(STARTED_MS),
        fail_reason: `run interrupted: no completion was recorded for the run started at ${formatIsoUtc(STARTED_MS)} on ${HOST} (daemon crash, or the node lost access to the state store mid-run)`,
      },
    ]);
    assert.deepEqual(d.logged('never finished'), [
      `Job sync: the run started at ${formatIsoUtc(STARTED_MS)} never finished (daemon crash); recorded as outcome unknown`,
    ]);
    const [run] = d.scheduler.getRuns('sync');
    assert.equal(run?.outcome, 'unknown');
    assert.equal(run?.finishedAtMs, STARTED_MS);
    await d.stop();
  });

  for (const onMissed of ['run-once', 'run-all'] as const) {
    void test(`onMissed ${onMissed}: the row carries interruptedAt instead of finished_at, and leaves the watermark alone`, async () => {
      const w = await world();
      await seedOpen(w, 'sync');
      const d = await boot(w, { jobs: [job({ name: 'sync', onMissed })] });
      const rows = await streamData(w.store, 'runs/sync');
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!['outcome'], 'unknown');
      assert.equal('finished_at' in rows[0]!, false);
      assert.equal(rows[0]!['interruptedAt'], formatIsoUtc(STARTED_MS));
      assert.equal(await w.store.deriveMax('runs/sync', 'finished_at'), undefined);
      assert.equal(
        d.scheduler.getRuns('sync')[0]?.finishedAtMs,
        STARTED_MS,
        'served as finished_at',
      );
      await d.stop();
    });
  }

  void test('skips an open record written by this very process (a state-section reload)', async () => {
    const w = await world();
    await seedOpen(w, 'sync', { proc: 'process-1' });
    const d = await boot(w, { jobs: [job({ name: 'sync' })], process: newProcess('process-1') });
    assert.equal((await streamData(w.store, 'inflight/sync')).length, 1);
    assert.equal((await streamData(w.store, 'runs/sync')).length, 0);
    await d.stop();
  });

  void test("reconciles another process's open run even while this process runs the job", async () => {
    // The reference skips the job while it has a live instance here; this process's records then
    // bury the crashed process's open one, and no later start reconciles it.
    const w = await world();
    await seedOpen(w, 'sync');
    const opened = createDeferred<boolean>();
    const d = startDaemon({
      clock: w.clock,
      store: w.store,
      jobs: [job({ name: 'sync' })],
      storeOpened: opened.promise,
      process: newProcess('process-1'),
    });
    await d.scheduler.startJob('sync');
    opened.resolve(true);
    await flush();
    assert.deepEqual(
      (await streamData(w.store, 'runs/sync')).map((row) => [row['outcome'], row['finished_at']]),
      [['unknown', formatIsoUtc(STARTED_MS)]],
    );
    // This process's own live run is not touched: its open record is the newest but one.
    const records = await streamData(w.store, 'inflight/sync');
    assert.deepEqual(
      records.map((record) => [record['kind'], record['reason'] ?? record['proc']]),
      [
        ['open', 'c0ffee000001'],
        ['open', 'process-1'],
        ['closed', 'reconciled-crash'],
      ],
    );
    await d.stop();
  });

  void test('leaves a record whose pid is still alive alone, with a warning', async () => {
    const w = await world();
    await seedOpen(w, 'sync');
    const probed: number[] = [];
    const d = await boot(w, {
      jobs: [job({ name: 'sync' })],
      pidAlive: (pid) => {
        probed.push(pid);
        return true;
      },
    });
    assert.deepEqual(probed, [4242]);
    assert.equal((await streamData(w.store, 'inflight/sync')).length, 1);
    assert.equal((await streamData(w.store, 'runs/sync')).length, 0);
    assert.equal(d.logged('(pid 4242) from a previous daemon process is still alive').length, 1);
    await d.stop();
  });

  void test("ignores other hosts and records already closed: this host's newest record decides", async () => {
    const w = await world();
    await seedOpen(w, 'sync', { proc: 'finished0001' });
    await w.store.append('inflight/sync', {
      kind: 'closed',
      host: HOST,
      proc: 'finished0001',
      reason: 'finished',
      at: formatIsoUtc(T0 - MINUTE),
    });
    await seedOpen(w, 'sync', { host: 'host-b' });
    const d = await boot(w, { jobs: [job({ name: 'sync' })] });
    assert.equal((await streamData(w.store, 'runs/sync')).length, 0);
    assert.equal((await streamData(w.store, 'inflight/sync')).length, 3);
    await d.stop();
  });

  void test("an open record of this host under another host's newer records is still reconciled", async () => {
    const w = await world();
    await seedOpen(w, 'sync');
    await seedOpen(w, 'sync', { host: 'host-b', proc: 'b00000000001' });
    const d = await boot(w, { jobs: [job({ name: 'sync' })] });
    assert.equal((await streamData(w.store, 'runs/sync')).length, 1);
    // Reconciled once: the closed record is now this host's newest.
    await d.stop();
    const again = await boot(w, { jobs: [job({ name: 'sync' })] });
    assert.equal((await streamData(w.store, 'runs/sync')).length, 1);
    await again.stop();
  });

  void test("reads the reference's records: an open one without a pid or with a naive startedAt", async () => {
    const w = await world();
    await seedOpen(w, 'sync', { pid: null, startedAt: '2025-12-31T23:50:00.250000' });
    const d = await boot(w, { jobs: [job({ name: 'sync' })] });
    const rows = await streamData(w.store, 'runs/sync');
    assert.equal(rows[0]?.['finished_at'], formatIsoUtc(STARTED_MS + 250), 'naive is UTC');
    await d.stop();
  });
  // ---- the whole stream, per process (the reference reads its newest record only) ----

  /** A closed record (reason finished) of `proc`: its process's last live run of the job ended. */
  const closedBy = (proc: string): Record<string, unknown> => ({
    kind: 'closed',
    host: HOST,
    proc,
    reason: 'finished',
    at: formatIsoUtc(T0 - MINUTE),
  });
  const unknownStarts = async (w: World, name: string): Promise<unknown[]> =>
    (await streamData(w.store, `runs/${name}`))
      .filter((row) => row['outcome'] === 'unknown')
      .map((row) => row['finished_at'] ?? row['interruptedAt']);

  void test('overlapping runs of a crashed process each get their own row; a run the ledger has gets none', async () => {
    const w = await world();
    // Three runs of one process overlapped; the first finished (its row landed), then it died.
    await seedOpen(w, 'sync', { pid: 4001 });
    await seedOpen(w, 'sync', { pid: 4002, startedAt: formatIsoUtc(STARTED_MS + SECOND) });
    await w.store.append(
      'runs/sync',
      ledgerRow('success', STARTED_MS + 2 * SECOND, { started_at: formatIsoUtc(STARTED_MS) }),
    );
    await seedOpen(w, 'sync', { pid: 4003, startedAt: formatIsoUtc(STARTED_MS + 3 * SECOND) });
    const d = await boot(w, { jobs: [job({ name: 'sync' })] });
    assert.deepEqual(await unknownStarts(w, 'sync'), [
      formatIsoUtc(STARTED_MS + SECOND),
      formatIsoUtc(STARTED_MS + 3 * SECOND),
    ]);
    assert.equal(d.logged('never finished').length, 2);
    await d.stop();
    // Reconciled once: the rows account for both runs at the next start.
    const again = await boot(w, { jobs: [job({ name: 'sync' })] });
    assert.equal((await unknownStarts(w, 'sync')).length, 2);
    assert.equal(again.logged('never finished').length, 0);
    await again.stop();
  });

  void test("a crashed process's open run under a later process's records is still reconciled", async () => {
    const w = await world();
    await seedOpen(w, 'sync');
    // The next process ran the job to completion before it, too, was stopped.
    await seedOpen(w, 'sync', {
      proc: 'c0ffee000002',
      pid: 4300,
      startedAt: formatIsoUtc(STARTED_MS + MINUTE),
    });
    await w.store.append('inflight/sync', closedBy('c0ffee000002'));
    const d = await boot(w, { jobs: [job({ name: 'sync' })] });
    assert.deepEqual(await unknownStarts(w, 'sync'), [formatIsoUtc(STARTED_MS)]);
    await d.stop();
  });

  void test('a run-all row (interruptedAt) accounts for its run: no second row at the next start', async () => {
    const w = await world();
    await seedOpen(w, 'sync');
    const first = await boot(w, { jobs: [job({ name: 'sync', onMissed: 'run-all' })] });
    await first.stop();
    // Another process's run closes after it: the crashed open record is no longer the newest.
    await w.store.append('inflight/sync', closedBy('c0ffee000002'));
    const again = await boot(w, { jobs: [job({ name: 'sync', onMissed: 'run-all' })] });
    assert.deepEqual(await unknownStarts(w, 'sync'), [formatIsoUtc(STARTED_MS)]);
    await again.stop();
  });

  void test("the first open record of this process does not prune a crashed process's one away before it is read", async () => {
    const w = await world();
    await seedOpen(w, 'sync');
    // Nine finished runs of later processes follow it: with this process's first open record,
    // a prune to the newest INFLIGHT_KEEP would drop it.
    for (let run = 0; run < 9; run++) {
      const proc = `c0ffee1000${String(run).padStart(2, '0')}`;
      const startedAt = formatIsoUtc(STARTED_MS + (run + 1) * SECOND);
      await seedOpen(w, 'sync', { proc, pid: 5000 + run, startedAt });
      await w.store.append('inflight/sync', closedBy(proc));
    }
    const opened = createDeferred<boolean>();
    const d = startDaemon({
      clock: w.clock,
      store: w.store,
      jobs: [job({ name: 'sync' })],
      storeOpened: opened.promise,
    });
    await d.scheduler.startJob('sync');
    await flush();
    opened.resolve(true);
    await flush();
    assert.deepEqual(await unknownStarts(w, 'sync'), [formatIsoUtc(STARTED_MS)]);
    await d.stop();
  });

  void test('a live orphan is watched: its row is appended once its pid has been gone twice in a row', async () => {
    const w = await world();
    await seedOpen(w, 'sync');
    let alive = true;
    const d = await boot(w, { jobs: [job({ name: 'sync' })], pidAlive: () => alive });
    assert.equal(d.logged('(pid 4242) from a previous daemon process is still alive').length, 1);
    // Its stream is not pruned meanwhile, whatever this process runs.
    d.runner.setDefault({ exitCode: 0 });
    for (let run = 0; run < 12; run++) {
      await d.scheduler.startJob('sync');
      await flush();
    }
    await tick(w.clock, 5 * SECOND);
    assert.deepEqual(await unknownStarts(w, 'sync'), []);
    assert.equal((await streamData(w.store, 'inflight/sync'))[0]?.['proc'], 'c0ffee000001');
    alive = false;
    await tick(w.clock, SECOND);
    assert.deepEqual(await unknownStarts(w, 'sync'), [], 'gone once: not yet');
    await tick(w.clock, SECOND);
    assert.deepEqual(await unknownStarts(w, 'sync'), [formatIsoUtc(STARTED_MS)]);
    assert.equal(d.logged('never finished').length, 1);
    assert.ok(d.scheduler.getRuns('sync').some((run) => run.outcome === 'unknown'));
    // Then the stream is pruned again.
    for (let run = 0; run < 12; run++) {
      await d.scheduler.startJob('sync');
      await flush();
    }
    assert.ok((await streamData(w.store, 'inflight/sync')).length <= 16);
    await d.stop();
  });
});

// ---- depends-on-past ------------------------------------------------------------------------

void describe('onlyIfLastSucceeded across memory and the ledger', () => {
  const gated = (overrides: MakeJobOverrides = {}): ReturnType<typeof makeJob> =>
    job({ name: 'sync', onlyIfLastSucceeded: true, ...overrides });
  const skips = (d: Daemon): number =>
    d.of('fire:skipped').filter((event) => event.reason === 'only-if-last-succeeded').length;
  const scheduledStarts = (d: Daemon): number =>
    d.of('run:started').filter((event) => event.trigger === 'schedule').length;

  void test('a failure in the ledger from before the restart blocks the first scheduled fire', async () => {
    const w = await world();
    await w.store.append('runs/sync', ledgerRow('failure', T0 - HOUR));
    const d = await boot(w, { jobs: [gated()] });
    await tick(w.clock, MINUTE);
    assert.equal(skips(d), 1);
    assert.equal(scheduledStarts(d), 0);
    await d.stop();
  });

  void test('a newer success in memory re-opens the gate (a manual start bypasses it)', async () => {
    const w = await world();
    await w.store.append('runs/sync', ledgerRow('failure', T0 - HOUR));
    const d = await boot(w, { jobs: [gated()] });
    d.runner.setDefault({ exitCode: 0 });
    assert.equal((await d.scheduler.startJob('sync')).kind, 'started');
    await tick(w.clock, MINUTE);
    assert.equal(skips(d), 0);
    assert.equal(scheduledStarts(d), 1);
    await d.stop();
  });

  void test('a newer failure in the ledger wins over an older success in memory', async () => {
    const w = await world();
    const opened = createDeferred<boolean>();
    const d = startDaemon({
      clock: w.clock,
      store: w.store,
      jobs: [gated()],
      storeOpened: opened.promise,
    });
    d.runner.setDefault({ exitCode: 0 });
    await d.scheduler.startJob('sync'); // success in memory at T0
    await tick(w.clock, 30 * SECOND);
    // Another node records a failure after it, then the backend start reads the ledger.
    await w.store.append('runs/sync', ledgerRow('failure', T0 + 20 * SECOND));
    opened.resolve(true);
    await tick(w.clock, 30 * SECOND);
    assert.equal(skips(d), 1);
    assert.equal(scheduledStarts(d), 0);
    await d.stop();
  });

  void test('cancelled and unknown rows are ignored: the newest real outcome decides', async () => {
    for (const [oldest, verdict] of [
      ['failure', 'blocks'],
      ['success', 'runs'],
    ] as const) {
      const w = await world();
      await w.store.append('runs/sync', ledgerRow(oldest, T0 - 3 * HOUR));
      await w.store.append('runs/sync', ledgerRow('cancelled', T0 - 2 * HOUR));
      await w.store.append('runs/sync', ledgerRow('unknown', T0 - HOUR));
      const d = await boot(w, { jobs: [gated()] });
      await tick(w.clock, MINUTE);
      assert.equal(skips(d), verdict === 'blocks' ? 1 : 0, `newest real outcome ${oldest}`);
      assert.equal(scheduledStarts(d), verdict === 'blocks' ? 0 : 1);
      await d.stop();
    }
  });

  void test('no prior run anywhere allows the first fire', async () => {
    for (const onStoreUnavailable of ['degrade', 'fail-closed'] as const) {
      const w = await world();
      const d = await boot(w, { jobs: [gated()], settings: { onStoreUnavailable } });
      await tick(w.clock, MINUTE);
      assert.equal(skips(d), 0, onStoreUnavailable);
      assert.equal(scheduledStarts(d), 1);
      await d.stop();
    }
  });

  void test('a failure another node records after this boot blocks by the next fire at the latest', async () => {
    const w = await world();
    await w.store.append('runs/sync', ledgerRow('success', T0 - HOUR));
    const d = await boot(w, { jobs: [gated()] });
    d.runner.setDefault({ exitCode: 0 });
    await tick(w.clock, MINUTE); // runs: last success
    await w.store.append('runs/sync', ledgerRow('failure', T0 + MINUTE + 30 * SECOND));
    await tick(w.clock, 2 * MINUTE);
    assert.ok(skips(d) >= 1, 'the foreign failure is newer than every local success');
    await d.stop();
  });

  void test('fail-closed: a job added by a reload, with no prior run, is not blocked on its first fire', async () => {
    const w = await world();
    const settings = { onStoreUnavailable: 'fail-closed' } as const;
    const d = await boot(w, { jobs: [job({ name: 'other' })], settings });
    // An ordinary reload keeps the backend: the scheduler and the collaborator get the new config.
    const next = makeConfig([job({ name: 'other' }), gated()]);
    d.scheduler.applyConfig(next);
    d.durable.updateConfig(next);
    await tick(w.clock, MINUTE);
    assert.equal(skips(d), 0);
    assert.equal(scheduledStarts(d), 2);
    await d.stop();
  });
});

// ---- durable retries ------------------------------------------------------------------------

void describe('restart-surviving retries', () => {
  const FAIL_AT = T0 + HOUR;
  const DELAY = MINUTE;
  const flaky = (overrides: MakeJobOverrides = {}): ReturnType<typeof makeJob> =>
    makeJob({
      name: 'flaky',
      schedule: '0 * * * *',
      retry: {
        maximumRetries: 3,
        initialDelayMs: DELAY,
        backoffMultiplier: 2,
        maximumDelayMs: HOUR,
      },
      ...overrides,
    });
  const retryStarts = (d: Daemon): number[] =>
    d
      .of('run:started')
      .filter((event) => event.trigger === 'retry')
      .map((event) => event.attempt);
  const newestRetryRecord = async (w: World): Promise<Record<string, unknown> | undefined> =>
    pick((await streamData(w.store, 'retries/flaky')).at(-1), RETRY_FIELDS);

  /** A daemon whose hourly run failed at FAIL_AT, with retry #1 armed for FAIL_AT + DELAY. */
  async function failedOnce(
    w: World,
    options: Omit<DaemonOptions, 'clock' | 'store' | 'jobs'> = {},
    j = flaky(),
  ): Promise<Daemon> {
    const d = await boot(w, { jobs: [j], ...options });
    d.runner.script('flaky', { exitCode: 1 });
    await tick(w.clock, HOUR);
    assert.deepEqual(
      d.of('retry:scheduled').map((event) => event.retryAtMs),
      [FAIL_AT + j.retry.initialDelayMs],
    );
    return d;
  }

  void test('arming a retry persists a pending record {attempt, notBefore, job digest, host, at}', async () => {
    const w = await world();
    const j = flaky();
    const d = await failedOnce(w, {}, j);
    const records = await streamData(w.store, 'retries/flaky');
    assert.deepEqual(records, [
      {
        kind: 'pending',
        attempt: 1,
        notBefore: formatIsoUtc(FAIL_AT + DELAY),
        jobDigest: j.digest,
        host: HOST,
        at: formatIsoUtc(FAIL_AT),
      },
    ]);
    await d.stop();
  });

  void test('record-before-run: the record is settled `launched` before the retry starts', async () => {
    const w = await world();
    const journal: string[] = [];
    const observed = new ObservedStore(w.store, journal);
    const d = startDaemon({ clock: w.clock, store: observed.store, journal, jobs: [flaky()] });
    d.runner.script('flaky', { exitCode: 1 }, { exitCode: 0 });
    await tick(w.clock, HOUR + DELAY);
    assert.deepEqual(retryStarts(d), [1]);
    const settled = journal.indexOf('append retries/flaky settled launched');
    const started = journal.indexOf('run:started flaky retry');
    assert.ok(settled >= 0 && started > settled, journal.join('\n'));
    assert.deepEqual(await newestRetryRecord(w), {
      kind: 'settled',
      host: HOST,
      attempt: 1,
      reason: 'launched',
    });
    // The launched retry succeeded: nothing further is written for the settled ladder.
    assert.equal((await streamData(w.store, 'retries/flaky')).length, 2);
    await d.stop();
  });

  void test('a success, a manual cancel and a superseding scheduled fire each settle the pending record', async () => {
    // succeeded: a manual run (it carries the current ladder) succeeds while the retry waits.
    {
      const w = await world();
      const d = await failedOnce(w);
      d.runner.script('flaky', { exitCode: 0 });
      await d.scheduler.startJob('flaky');
      await flush();
      assert.deepEqual(await newestRetryRecord(w), {
        kind: 'settled',
        host: HOST,
        attempt: 1,
        reason: 'succeeded',
      });
      await tick(w.clock, DELAY);
      assert.deepEqual(retryStarts(d), []);
      await d.stop();
    }
    // cancelled: the operator cancels the job while a retry waits.
    {
      const w = await world();
      const d = await failedOnce(w);
      await d.scheduler.startJob('flaky');
      await d.scheduler.cancelJob('flaky');
      await flush();
      assert.deepEqual(await newestRetryRecord(w), {
        kind: 'settled',
        host: HOST,
        attempt: 1,
        reason: 'cancelled',
      });
      await d.stop();
    }
    // superseded: the next scheduled fire comes before the (long) retry delay ends.
    {
      const w = await world();
      const d = await failedOnce(
        w,
        {},
        flaky({ retry: { maximumRetries: 3, initialDelayMs: 2 * HOUR } }),
      );
      d.runner.setDefault('manual');
      await tick(w.clock, HOUR);
      assert.deepEqual(await newestRetryRecord(w), {
        kind: 'settled',
        host: HOST,
        attempt: 1,
        reason: 'superseded',
      });
      await d.stop();
    }
  });

  void test('a graceful shutdown writes nothing: the pending record stays for the next boot', async () => {
    const w = await world();
    const d = await failedOnce(w);
    await d.stop();
    const records = await streamData(w.store, 'retries/flaky');
    assert.deepEqual(
      records.map((record) => pick(record, ['kind', 'attempt', 'notBefore', 'jobDigest'])),
      [
        {
          kind: 'pending',
          attempt: 1,
          notBefore: formatIsoUtc(FAIL_AT + DELAY),
          jobDigest: flaky().digest,
        },
      ],
    );
  });

  void test('boot re-arms a pending record, sleeping only the remaining time to notBefore', async () => {
    const w = await world();
    const first = await failedOnce(w);
    await first.stop();
    await tick(w.clock, FAIL_AT + 20 * SECOND - w.clock.now()); // restarted 20 s after the failure
    const d = await boot(w, { jobs: [flaky()] });
    assert.equal(d.logged('resuming retry #1 from the state store in 40.000 seconds').length, 1);
    d.runner.script('flaky', { exitCode: 0 });
    await tick(w.clock, 40 * SECOND - 1);
    assert.deepEqual(retryStarts(d), []);
    await tick(w.clock, 1);
    assert.deepEqual(retryStarts(d), [1]);
    assert.equal(d.of('run:started')[0]!.startedAtMs, FAIL_AT + DELAY, 'the absolute deadline');
    await d.stop();
  });

  void test('a deadline that passed while the daemon was down fires at once on boot', async () => {
    const w = await world();
    const first = await failedOnce(w);
    await first.stop();
    await tick(w.clock, FAIL_AT + 10 * MINUTE - w.clock.now());
    const bootedAtMs = w.clock.now();
    const d = await boot(w, { jobs: [flaky()] });
    d.runner.script('flaky', { exitCode: 0 });
    await tick(w.clock, 0);
    assert.deepEqual(retryStarts(d), [1]);
    assert.equal(d.of('run:started')[0]!.startedAtMs, bootedAtMs);
    await d.stop();
  });

  void test('a resumed ladder continues at its persisted position', async () => {
    const w = await world(T0 + 30 * MINUTE);
    await w.store.append('retries/flaky', {
      kind: 'pending',
      host: HOST,
      attempt: 2,
      notBefore: formatIsoUtc(T0 + 31 * MINUTE),
      jobDigest: flaky().digest,
      at: formatIsoUtc(T0 + 29 * MINUTE),
    });
    const d = await boot(w, { jobs: [flaky()] });
    d.runner.script('flaky', { exitCode: 1 });
    await tick(w.clock, MINUTE);
    assert.deepEqual(retryStarts(d), [2]);
    // Retry #3 waits the third step of the ladder (1 min x 2 x 2).
    assert.deepEqual(
      d.of('retry:scheduled').map((event) => [event.attempt, event.delayMs]),
      [[3, 4 * MINUTE]],
    );
    await d.stop();
  });

  void describe('a pending record is settled instead of re-armed', () => {
    interface Case {
      readonly reason: string;
      readonly jobs: readonly ReturnType<typeof makeJob>[];
      readonly record?: Record<string, unknown>;
      readonly boot?: typeof BOOT_1;
      readonly markers?: readonly Record<string, unknown>[];
      /** Ledger rows written before the boot. */
      readonly runs?: readonly Record<string, unknown>[];
      /** The settled record's attempt, when not the pending one's. */
      readonly attempt?: number | null;
    }
    const NOT_BEFORE = T0 + 5 * MINUTE;
    const cases: Case[] = [
      { reason: 'config-changed', jobs: [flaky()], record: { jobDigest: 'an-older-definition' } },
      { reason: 'config-changed', jobs: [flaky()], record: { jobDigest: null } },
      { reason: 'job-removed', jobs: [makeJob({ name: 'unrelated' })] },
      { reason: 'disabled', jobs: [flaky({ enabled: false })] },
      {
        reason: 'exhausted',
        jobs: [flaky({ retry: { maximumRetries: 1 } })],
        record: { attempt: 2 },
      },
      {
        reason: 'deadline-passed',
        jobs: [flaky({ startingDeadlineMs: 10 * MINUTE })],
        record: { notBefore: formatIsoUtc(T0 - 11 * MINUTE) },
      },
      {
        reason: 'superseded-by-reboot',
        jobs: [flaky({ schedule: '@reboot', retry: { maximumRetries: -1 } })],
        boot: BOOT_2,
        markers: [{ bootId: 'boot-1' }],
      },
      // A newer run (here another node's, in the ledger) ended the ladder.
      {
        reason: 'superseded-by-run',
        jobs: [flaky()],
        runs: [ledgerRow('success', T0 - 2 * MINUTE)],
      },
      // The reference settles what it cannot parse: attempt and notBefore must be usable.
      { reason: 'invalid-record', jobs: [flaky()], record: { attempt: '1' }, attempt: null },
      { reason: 'invalid-record', jobs: [flaky()], record: { attempt: 0 }, attempt: null },
      {
        reason: 'invalid-record',
        jobs: [flaky()],
        record: { notBefore: T0 + 5 * MINUTE },
        attempt: null,
      },
      {
        reason: 'invalid-record',
        jobs: [flaky()],
        record: { notBefore: 'soon' },
        attempt: null,
      },
    ];
    for (const c of cases) {
      void test(`${c.reason} ${JSON.stringify(c.record ?? {})}`, async () => {
        const w = await world();
        const definition = c.jobs.find((candidate) => candidate.name === 'flaky') ?? flaky();
        for (const marker of c.markers ?? []) {
          await w.store.append('reboot/flaky', {
            host: HOST,
            bootTime: null,
            jobDigest: definition.digest,
            at: formatIsoUtc(T0 - HOUR),
            ...marker,
          });
        }
        for (const row of c.runs ?? []) await w.store.append('runs/flaky', row);
        await w.store.append('retries/flaky', {
          kind: 'pending',
          attempt: 1,
          notBefore: formatIsoUtc(NOT_BEFORE),
          jobDigest: definition.digest,
          host: HOST,
          at: formatIsoUtc(T0 - 3 * MINUTE),
          ...c.record,
        });
        const d = await boot(w, { jobs: c.jobs, ...(c.boot ? { boot: c.boot } : {}) });
        const attempt =
          c.attempt !== undefined
            ? c.attempt
            : typeof c.record?.['attempt'] === 'number'
              ? c.record['attempt']
              : 1;
        assert.deepEqual((await streamData(w.store, 'retries/flaky')).at(-1), {
          kind: 'settled',
          reason: c.reason,
          host: HOST,
          at: formatIsoUtc(T0),
          ...(attempt === null ? {} : { attempt }),
        });
        await tick(w.clock, 10 * MINUTE);
        assert.deepEqual(retryStarts(d), []);
        if (c.reason === 'superseded-by-reboot') {
          assert.deepEqual(
            d.of('run:started').map((event) => event.trigger),
            ['reboot'],
            'the fresh boot run supersedes the stale ladder',
          );
        }
        await d.stop();
      });
    }

    void test('not a record of another host (that is another node’s live ladder)', async () => {
      const w = await world();
      await w.store.append('retries/flaky', {
        kind: 'pending',
        host: 'host-b',
        attempt: 1,
        notBefore: formatIsoUtc(NOT_BEFORE),
        jobDigest: flaky().digest,
        at: formatIsoUtc(T0 - 3 * MINUTE),
      });
      const d = await boot(w, { jobs: [flaky()] });
      await tick(w.clock, 10 * MINUTE);
      assert.equal((await streamData(w.store, 'retries/flaky')).length, 1);
      assert.deepEqual(retryStarts(d), []);
      await d.stop();
    });

    void test('not a handoff, a settled record or an unknown kind (never pending at boot)', async () => {
      for (const newest of [
        {
          kind: 'handoff',
          attempt: 1,
          notBefore: formatIsoUtc(NOT_BEFORE),
          jobDigest: flaky().digest,
          fromHost: HOST,
          at: formatIsoUtc(T0 - MINUTE),
          armedAt: formatIsoUtc(T0 - 3 * MINUTE),
        },
        { kind: 'settled', reason: 'launched', host: HOST, at: formatIsoUtc(T0 - MINUTE) },
        { kind: 'resumed-elsewhere', attempt: 1, host: HOST },
      ]) {
        const w = await world();
        await w.store.append('retries/flaky', newest);
        const d = await boot(w, { jobs: [flaky()] });
        await tick(w.clock, 10 * MINUTE);
        assert.equal((await streamData(w.store, 'retries/flaky')).length, 1, newest.kind);
        assert.deepEqual(retryStarts(d), []);
        await d.stop();
      }
    });
  });

  void test('a ladder armed in this process before the re-arm step keeps its pending record', async () => {
    const w = await world(T0 + HOUR - SECOND);
    const journal: string[] = [];
    const observed = new ObservedStore(w.store, journal);
    // The boot sequence is slow to reach the re-arm step; the job fails and arms a retry meanwhile.
    const release = observed.hold('listStreams', 'retries/');
    const d = startDaemon({ clock: w.clock, store: observed.store, journal, jobs: [flaky()] });
    d.runner.script('flaky', { exitCode: 1 });
    await tick(w.clock, SECOND);
    assert.equal(d.of('retry:scheduled').length, 1);
    assert.equal((await newestRetryRecord(w))?.['kind'], 'pending');
    release();
    await flush();
    assert.equal((await newestRetryRecord(w))?.['kind'], 'pending');
    await d.stop();
  });

  void test('@reboot keep-alive: in the same OS boot the pending retry is re-armed, the boot run is not repeated', async () => {
    const w = await world();
    const keepAlive = flaky({
      schedule: '@reboot',
      retry: { maximumRetries: -1, initialDelayMs: 10 * SECOND },
    });
    await w.store.append('reboot/flaky', {
      host: HOST,
      bootId: 'boot-1',
      bootTime: null,
      jobDigest: keepAlive.digest,
      at: formatIsoUtc(T0 - HOUR),
    });
    await w.store.append('retries/flaky', {
      kind: 'pending',
      attempt: 7,
      notBefore: formatIsoUtc(T0 + 10 * SECOND),
      jobDigest: keepAlive.digest,
      host: HOST,
      at: formatIsoUtc(T0 - SECOND),
    });
    const d = await boot(w, { jobs: [keepAlive], boot: BOOT_1 });
    assert.deepEqual(
      d.of('fire:skipped').map((event) => [event.jobName, event.reason]),
      [['flaky', 'ran-this-boot']],
    );
    await tick(w.clock, 10 * SECOND);
    assert.deepEqual(retryStarts(d), [7]);
    assert.deepEqual(
      d.of('run:started').map((event) => event.trigger),
      ['retry'],
    );
    await d.stop();
  });
});

// ---- @reboot once per OS boot ---------------------------------------------------------------

void describe('@reboot once per OS boot', () => {
  const atBoot = (overrides: MakeJobOverrides = {}): ReturnType<typeof makeJob> =>
    makeJob({ name: 'warm', schedule: '@reboot', ...overrides });
  const bootRuns = (d: Daemon): number =>
    d.of('run:started').filter((event) => event.trigger === 'reboot').length;

  void test('record-then-run: the boot marker lands before the boot run starts', async () => {
    const w = await world();
    const journal: string[] = [];
    const observed = new ObservedStore(w.store, journal);
    const j = atBoot();
    const d = startDaemon({
      clock: w.clock,
      store: observed.store,
      journal,
      jobs: [j],
      boot: BOOT_1,
    });
    await flush();
    assert.equal(bootRuns(d), 1);
    const marker = journal.findIndex((entry) => entry.startsWith('append reboot/warm'));
    assert.ok(
      marker >= 0 && journal.indexOf('run:started warm reboot') > marker,
      journal.join('\n'),
    );
    assert.deepEqual(await streamData(w.store, 'reboot/warm'), [
      { host: HOST, bootId: 'boot-1', bootTime: null, jobDigest: j.digest, at: formatIsoUtc(T0) },
    ]);
    await d.stop();
  });

  void test('a marker records the boot time as float epoch seconds beside the boot id', async () => {
    const w = await world();
    const d = await boot(w, {
      jobs: [atBoot()],
      boot: { bootId: 'boot-1', bootTimeMs: T0 - HOUR + 250 },
    });
    const [marker] = await streamData(w.store, 'reboot/warm');
    assert.equal(marker?.['bootTime'], (T0 - HOUR + 250) / 1000);
    await d.stop();
  });

  void test("this host's newest marker decides: a definition changed back runs again", async () => {
    const w = await world();
    const v1 = atBoot();
    const v2 = atBoot({ command: { kind: 'shell', script: 'warm --v2' } });
    await (await boot(w, { jobs: [v1], boot: BOOT_1 })).stop();
    await (await boot(w, { jobs: [v2], boot: BOOT_1 })).stop();
    const back = await boot(w, { jobs: [v1], boot: BOOT_1 });
    assert.equal(bootRuns(back), 1, 'v1 ran this boot, but v2 ran after it');
    await back.stop();
  });

  void test("reads the reference's markers: the same boot id, or a boot time within 60 s", async () => {
    const w = await world();
    const j = atBoot();
    await w.store.append('reboot/warm', {
      at: formatIsoUtc(T0 - HOUR),
      bootId: null,
      bootTime: (T0 - 2 * HOUR) / 1000 + 0.0309987,
      host: HOST,
      jobDigest: j.digest,
    });
    const d = await boot(w, {
      jobs: [j],
      boot: { bootId: 'boot-1', bootTimeMs: T0 - 2 * HOUR + 59_000 },
    });
    assert.equal(bootRuns(d), 0, 'no boot id in the marker: the boot times decide');
    await d.stop();
  });

  void test('a restart within the same boot, same definition, skips the boot run', async () => {
    const w = await world();
    await (await boot(w, { jobs: [atBoot()], boot: BOOT_1 })).stop();
    const d = await boot(w, { jobs: [atBoot()], boot: BOOT_1 });
    assert.equal(bootRuns(d), 0);
    assert.deepEqual(
      d.of('fire:skipped').map((event) => [event.jobName, event.reason, event.trigger]),
      [['warm', 'ran-this-boot', 'reboot']],
    );
    assert.equal((await streamData(w.store, 'reboot/warm')).length, 1, 'no second marker');
    await d.stop();
  });

  void test('a changed definition runs again this boot; so does a new OS boot', async () => {
    const w = await world();
    await (await boot(w, { jobs: [atBoot()], boot: BOOT_1 })).stop();
    const redefined = await boot(w, {
      jobs: [atBoot({ command: { kind: 'shell', script: 'warm --v2' } })],
      boot: BOOT_1,
    });
    assert.equal(bootRuns(redefined), 1);
    await redefined.stop();
    const rebooted = await boot(w, { jobs: [atBoot()], boot: BOOT_2 });
    assert.equal(bootRuns(rebooted), 1);
    await rebooted.stop();
    assert.equal((await streamData(w.store, 'reboot/warm')).length, 3);
  });

  void test('another host’s marker does not count for this host', async () => {
    const w = await world();
    const j = atBoot();
    await w.store.append('reboot/warm', {
      host: 'host-b',
      bootId: 'boot-1',
      bootTime: null,
      jobDigest: j.digest,
      at: formatIsoUtc(T0),
    });
    const d = await boot(w, { jobs: [j], boot: BOOT_1 });
    assert.equal(bootRuns(d), 1);
    await d.stop();
  });

  void test('without a boot identity it runs on every daemon start and writes no marker', async () => {
    const w = await world();
    await (await boot(w, { jobs: [atBoot()], boot: null })).stop();
    const d = await boot(w, { jobs: [atBoot()], boot: null });
    assert.equal(bootRuns(d), 1);
    assert.equal((await streamData(w.store, 'reboot/warm')).length, 0);
    await d.stop();
  });
});

// ---- missed-run catch-up --------------------------------------------------------------------

void describe('missed-run catch-up (runBackfill)', () => {
  // The daemon was down from T0 - 5 h (its last run) to T0 + 10 min: the hourly slots
  // T0 - 4 h ... T0 were missed.
  const LAST_RUN_MS = T0 - 5 * HOUR;
  const MISSED = [4, 3, 2, 1, 0].map((hours) => T0 - hours * HOUR);
  const hourly = (overrides: MakeJobOverrides = {}): ReturnType<typeof makeJob> =>
    makeJob({ name: 'report', schedule: '0 * * * *', ...overrides });
  const backfills = (d: Daemon): (number | null)[] =>
    d
      .of('run:started')
      .filter((event) => event.trigger === 'catchup')
      .map((event) => event.scheduledAtMs);

  async function downtime(): Promise<World> {
    const w = await world(T0 + 10 * MINUTE);
    await w.store.append('runs/report', ledgerRow('success', LAST_RUN_MS + 30 * SECOND));
    return w;
  }

  void test('run-once: exactly one launch for all the missed slots', async () => {
    const w = await downtime();
    const d = await boot(w, {
      jobs: [hourly({ onMissed: 'run-once' })],
      runs: { exitCode: 0, durationMs: MINUTE },
    });
    await tick(w.clock, 10 * MINUTE);
    assert.deepEqual(backfills(d), [T0]);
    await d.stop();
  });

  void test('a live run that lands before the catch-up reads the ledger does not become the watermark', async () => {
    // Start just before a slot with a store that opens late: the live loop fires T0 + 1 h, and its
    // row, queued until the store opens, lands before the catch-up reads the watermark.
    const w = await world(T0 + HOUR - SECOND);
    await w.store.append('runs/report', ledgerRow('success', LAST_RUN_MS + 30 * SECOND));
    const opened = createDeferred<boolean>();
    const d = await boot(w, {
      jobs: [hourly({ onMissed: 'run-all' })],
      runs: { exitCode: 0, durationMs: SECOND },
      storeOpened: opened.promise,
    });
    // The live run waits for its in-flight record (record-before-run) until that write gives up
    // (10 s; degrade: it starts anyway), then runs for 1 s.
    await tick(w.clock, 12 * SECOND);
    assert.equal(d.of('run:finished').length, 1, 'the live slot ran');
    assert.equal(d.logged('starting it anyway (onStoreUnavailable degrade)').length, 1);
    assert.equal((await streamData(w.store, 'runs/report')).length, 1, 'its row waits');
    opened.resolve(true);
    await tick(w.clock, 10 * MINUTE);
    assert.deepEqual(backfills(d), MISSED, 'the downtime is still owed');
    assert.equal(
      (await streamData(w.store, 'runs/report')).length,
      2 + MISSED.length,
      'the live run reached the ledger',
    );
    await d.stop();
  });

  void test("another node's run of the last slot, still running when this process started, is not backfilled", async () => {
    // A shared ledger: another node ran every slot, the last one (T0) from T0 + 10 s to
    // T0 + 15 min; this process's scheduler started at T0 + 10 min. That row ended after this
    // instant but started before it: slot T0 ran, and backfilling it would run it twice.
    const w = await world(T0 + 10 * MINUTE);
    for (const slot of MISSED.slice(0, -1)) {
      await w.store.append('runs/report', ledgerRow('success', slot + 30 * SECOND));
    }
    await w.store.append('runs/report', {
      ...ledgerRow('success', T0 + 15 * MINUTE),
      started_at: formatIsoUtc(T0 + 10 * SECOND),
    });
    const d = await boot(w, {
      jobs: [hourly({ onMissed: 'run-all' })],
      runs: { exitCode: 0, durationMs: SECOND },
    });
    await tick(w.clock, 10 * MINUTE);
    assert.deepEqual(backfills(d), []);
    await d.stop();
  });

  /** Another node's open in-flight record of a run it began at `startedAtMs` (no row landed). */
  const openElsewhere = (startedAtMs: number, extra: Record<string, unknown> = {}) => ({
    kind: 'open',
    host: 'host-b',
    proc: 'b0b000000001',
    pid: null,
    startedAt: formatIsoUtc(startedAtMs),
    jobDigest: 'd',
    ...extra,
  });

  for (const recorded of [true, false]) {
    void test(`a slot another node began, its row never landed: ${recorded ? 'its open record keeps it from being backfilled' : 'without its open record it is backfilled'}`, async () => {
      // Another node ran every slot up to T0 - 1 h and began T0 at T0 + 2 s, and was stopped
      // (SIGSTOP, SIGKILL) before that run's ledger row reached the store; what it recorded
      // before the spawn is its open in-flight record.
      const w = await world(T0 + 10 * MINUTE);
      for (const slot of MISSED.slice(0, -1)) {
        await w.store.append('runs/report', ledgerRow('success', slot + 30 * SECOND));
      }
      if (recorded) await w.store.append('inflight/report', openElsewhere(T0 + 2 * SECOND));
      const d = await boot(w, {
        jobs: [hourly({ onMissed: 'run-all' })],
        runs: { exitCode: 0, durationMs: SECOND },
      });
      await tick(w.clock, 10 * MINUTE);
      assert.deepEqual(backfills(d), recorded ? [] : [T0]);
      assert.deepEqual(
        d.logged('missed-run catch-up counts the run'),
        recorded
          ? [
              `Job report: missed-run catch-up counts the run started at ${formatIsoUtc(T0 + 2 * SECOND)} on host-b as having run its slot (its in-flight record is open, no completion is recorded yet)`,
            ]
          : [],
      );
      await d.stop();
    });
  }

  void test('open records that do not count: finished, after this start, or reconciled on this host', async () => {
    const w = await world(T0 + 10 * MINUTE);
    for (const slot of MISSED.slice(0, -1)) {
      await w.store.append('runs/report', ledgerRow('success', slot + 30 * SECOND));
    }
    // host-b's run of T0 finished (its close follows its row, which was pruned away or is
    // elsewhere): settled. host-c began a run after this process started: the live loop's.
    await w.store.append('inflight/report', openElsewhere(T0 + 2 * SECOND));
    await w.store.append('inflight/report', {
      kind: 'closed',
      host: 'host-b',
      proc: 'b0b000000001',
      reason: 'finished',
      at: formatIsoUtc(T0 + 5 * SECOND),
    });
    await w.store.append(
      'inflight/report',
      openElsewhere(T0 + 11 * MINUTE, { host: 'host-c', proc: 'c0c000000001' }),
    );
    // A crashed process of this host began T0; its pid is gone, so the boot reconciles it
    // (interruptedAt): crash recovery keeps the interrupted slot owed (at-least-once).
    await w.store.append(
      'inflight/report',
      openElsewhere(T0 + 3 * SECOND, { host: HOST, proc: 'c0ffee000001', pid: 4242 }),
    );
    const d = await boot(w, {
      jobs: [hourly({ onMissed: 'run-all' })],
      runs: { exitCode: 0, durationMs: SECOND },
    });
    await tick(w.clock, 10 * MINUTE);
    assert.deepEqual(backfills(d), [T0]);
    await d.stop();
  });

  void test('an orphan of this host still running its slot is counted: the slot is not run beside it', async () => {
    const w = await downtime();
    await w.store.append(
      'inflight/report',
      openElsewhere(T0 + 3 * SECOND, { host: HOST, proc: 'c0ffee000001', pid: 4242 }),
    );
    const d = await boot(w, {
      jobs: [hourly({ onMissed: 'run-all' })],
      runs: { exitCode: 0, durationMs: SECOND },
      pidAlive: (pid) => pid === 4242,
    });
    await tick(w.clock, MINUTE);
    assert.deepEqual(backfills(d), []);
    await d.stop();
  });

  void test('run-all: one launch per missed slot, oldest first, one after another', async () => {
    const w = await downtime();
    const d = await boot(w, {
      jobs: [hourly({ onMissed: 'run-all' })],
      runs: { exitCode: 0, durationMs: MINUTE },
    });
    await tick(w.clock, 10 * MINUTE);
    assert.deepEqual(backfills(d), MISSED);
    const starts = d.of('run:started').map((event) => event.startedAtMs);
    const ends = d.of('run:finished').map((event) => event.outcome.finishedAtMs);
    for (let index = 1; index < starts.length; index++) {
      assert.ok(starts[index]! >= ends[index - 1]!, 'serialised: each waits for the previous one');
    }
    assert.equal((await streamData(w.store, 'runs/report')).length, 1 + MISSED.length);
    await d.stop();
  });

  void test('an open checkpoint (with its watermark) lands before the first backfill, a close after the last', async () => {
    const w = await downtime();
    const journal: string[] = [];
    const observed = new ObservedStore(w.store, journal);
    const d = startDaemon({
      clock: w.clock,
      store: observed.store,
      journal,
      jobs: [hourly({ onMissed: 'run-all' })],
      runs: { exitCode: 0, durationMs: MINUTE },
    });
    await tick(w.clock, 10 * MINUTE);
    const open = journal.indexOf('append catchup/report open');
    const firstBackfill = journal.indexOf('run:started report catchup');
    const lastFinish = journal.lastIndexOf('run:finished report catchup');
    const close = journal.indexOf('append catchup/report close');
    assert.ok(open >= 0 && open < firstBackfill, journal.join('\n'));
    assert.ok(lastFinish >= 0 && close > lastFinish, journal.join('\n'));
    // After each backfill but the last, an open checkpoint moves to the slot just run; the
    // stream keeps the newest 8.
    const checkpoints = await streamData(w.store, 'catchup/report');
    assert.deepEqual(
      checkpoints.map((checkpoint) => [checkpoint['kind'], checkpoint['watermark']]),
      [
        ['open', formatIsoUtc(LAST_RUN_MS + 30 * SECOND)],
        ...MISSED.slice(0, -1).map((slotMs) => ['open', formatIsoUtc(slotMs)]),
        ['close', formatIsoUtc(T0)],
      ],
    );
    assert.deepEqual(Object.keys(checkpoints[0]!).sort(), ['at', 'kind', 'until', 'watermark']);
    await d.stop();
  });

  void test('a restart mid-backfill resumes from the open checkpoint, skipping slots already backfilled', async () => {
    const w = await downtime();
    // The interrupted process opened at the watermark and backfilled two slots.
    const watermark = formatIsoUtc(LAST_RUN_MS + 30 * SECOND);
    await w.store.append('catchup/report', { kind: 'open', watermark, at: formatIsoUtc(T0) });
    for (const slotMs of MISSED.slice(0, 2)) {
      await w.store.append('runs/report', ledgerRow('success', T0 + 2 * MINUTE));
      await w.store.append('catchup/report', {
        kind: 'open',
        watermark: formatIsoUtc(slotMs),
        at: formatIsoUtc(T0 + 2 * MINUTE),
      });
    }
    const d = await boot(w, { jobs: [hourly({ onMissed: 'run-all' })], runs: { exitCode: 0 } });
    await tick(w.clock, MINUTE);
    assert.deepEqual(backfills(d), MISSED.slice(2));
    const checkpoints = await streamData(w.store, 'catchup/report');
    assert.equal(checkpoints.length, 6, 'no new open before resuming: two more, then the close');
    assert.deepEqual(checkpoints.at(-1), {
      kind: 'close',
      watermark: formatIsoUtc(T0),
      at: formatIsoUtc(T0 + 10 * MINUTE),
    });
    await d.stop();
  });

  void test('a resumed backfill stops at its own window: a slot another node ran after it is not replayed', async () => {
    const w = await downtime();
    // A process that started two hours ago opened a backfill of the three slots before it and
    // was killed before running any; the leader elsewhere then ran the slot an hour ago live.
    const untilMs = T0 - 2 * HOUR + 5 * MINUTE;
    await w.store.append('catchup/report', {
      kind: 'open',
      watermark: formatIsoUtc(LAST_RUN_MS + 30 * SECOND),
      at: formatIsoUtc(untilMs + MINUTE),
      until: formatIsoUtc(untilMs),
    });
    const ranElsewhere = MISSED[3]!;
    await w.store.append('runs/report', {
      ...ledgerRow('success', ranElsewhere + 30 * SECOND),
      started_at: formatIsoUtc(ranElsewhere),
    });
    const d = await boot(w, { jobs: [hourly({ onMissed: 'run-all' })], runs: { exitCode: 0 } });
    await tick(w.clock, MINUTE);
    // The resumed window (up to `until`), then afresh after the run elsewhere: never that slot.
    assert.deepEqual(backfills(d), [...MISSED.slice(0, 3), MISSED[4]]);
    const checkpoints = await streamData(w.store, 'catchup/report');
    assert.equal(checkpoints.at(-1)?.['kind'], 'close');
    await d.stop();
  });

  void test('an open checkpoint without `until` (a reference writer) resumes up to its `at`', async () => {
    const w = await downtime();
    await w.store.append('catchup/report', {
      kind: 'open',
      watermark: formatIsoUtc(LAST_RUN_MS + 30 * SECOND),
      at: formatIsoUtc(MISSED[1]! + MINUTE),
    });
    const d = await boot(w, { jobs: [hourly({ onMissed: 'run-once' })], runs: { exitCode: 0 } });
    await tick(w.clock, MINUTE);
    // run-once: one backfill for the resumed window, then one for the slots after it.
    assert.deepEqual(backfills(d), [MISSED[1], MISSED[4]]);
    await d.stop();
  });

  /** A cluster gate that lets `catchup` launches through only while `open.value` is true. */
  function gated(open: { value: boolean; asked?: number }): ClusterSeams {
    return {
      gate: ({ trigger }) => {
        if (trigger === 'catchup') open.asked = (open.asked ?? 0) + 1;
        return trigger !== 'catchup' || open.value
          ? { kind: 'run' }
          : { kind: 'skip', reason: 'cluster', detail: 'no quorum yet' };
      },
      cluster: {
        onPass: () => undefined,
        retryDecision: () => ({ kind: 'launch' }),
        holdReboots: () => new Set<string>(),
        hasHeldReboots: () => false,
        rebootHeld: () => false,
        releaseReboots: () => Promise.resolve(),
      },
    };
  }

  /** The downtime's daemon with the cluster gate closed to catch-up launches (`open` opens it). */
  async function bootBehindClosedGate(onMissed: 'run-once' | 'run-all') {
    const w = await downtime();
    const open: { value: boolean; asked?: number } = { value: false };
    const d = await boot(w, {
      jobs: [hourly({ onMissed })],
      runs: { exitCode: 0 },
      seams: gated(open),
    });
    return { w, d, open };
  }

  void test('under a closed cluster gate nothing is written; the catch-up runs once the gate opens', async () => {
    const { w, d, open } = await bootBehindClosedGate('run-once');
    await tick(w.clock, 10 * SECOND);
    assert.deepEqual(backfills(d), []);
    assert.equal((await streamData(w.store, 'catchup/report')).length, 0, 'no checkpoint');
    assert.equal(d.logged('missed-run catch-up waits').length, 1);
    await tick(w.clock, CATCHUP_GATE_POLL_MS);
    assert.deepEqual(backfills(d), [], 'still refused at the re-check');
    assert.equal(d.logged('missed-run catch-up waits').length, 1, 'said once');
    open.value = true;
    d.durable.recheckCatchup();
    await tick(w.clock, 10 * SECOND);
    assert.deepEqual(backfills(d), [T0], 'delayed, never dropped');
    assert.deepEqual(
      (await streamData(w.store, 'catchup/report')).map((row) => row['kind']),
      ['open', 'close'],
    );
    await d.stop();
  });

  void test('the timer re-check alone runs a refused catch-up once the gate opens', async () => {
    const { w, d, open } = await bootBehindClosedGate('run-once');
    await tick(w.clock, 10 * SECOND);
    open.value = true;
    await tick(w.clock, CATCHUP_GATE_POLL_MS);
    assert.deepEqual(backfills(d), [T0]);
    await d.stop();
  });

  void test('a refused catch-up asks the gate once a second, however often recheck() runs', async () => {
    const { w, d, open } = await bootBehindClosedGate('run-once');
    await tick(w.clock, 10 * SECOND);
    for (let i = 0; i < 5; i++) d.durable.recheckCatchup();
    await tick(w.clock, 5 * SECOND);
    const before = open.asked ?? 0;
    await tick(w.clock, 10 * CATCHUP_GATE_POLL_MS);
    // One poll loop: ten asks in ten poll periods, not one per recheck() that was refused.
    assert.equal((open.asked ?? 0) - before, 10);
    assert.deepEqual(backfills(d), []);
    await d.stop();
  });

  void test('a closed checkpoint another node wrote after this process started owes nothing up to it', async () => {
    const { w, d, open } = await bootBehindClosedGate('run-all');
    await tick(w.clock, 10 * SECOND);
    // Meanwhile another node backfilled every missed slot and closed the cycle; its runs finished
    // after this process started, where the ledger watermark does not look.
    for (const slotMs of MISSED) {
      await w.store.append('runs/report', ledgerRow('success', T0 + 11 * MINUTE));
      await w.store.append('catchup/report', {
        kind: slotMs === T0 ? 'close' : 'open',
        watermark: formatIsoUtc(slotMs),
        at: formatIsoUtc(T0 + 11 * MINUTE),
      });
    }
    open.value = true;
    d.durable.recheckCatchup();
    await tick(w.clock, 10 * SECOND);
    assert.deepEqual(backfills(d), [], 'no slot backfilled twice');
    await d.stop();
  });

  void test('an open checkpoint without a usable watermark is ignored: the ledger decides', async () => {
    const w = await downtime();
    await w.store.append('catchup/report', { kind: 'open', watermark: '', at: formatIsoUtc(T0) });
    const d = await boot(w, { jobs: [hourly({ onMissed: 'run-once' })], runs: { exitCode: 0 } });
    await tick(w.clock, MINUTE);
    assert.deepEqual(backfills(d), [T0]);
    await d.stop();
  });

  void test('a first-ever job is never "missed": no ledger, no backfill, no checkpoint', async () => {
    const w = await world(T0 + 10 * MINUTE);
    const d = await boot(w, { jobs: [hourly({ onMissed: 'run-all' })] });
    await tick(w.clock, 10 * MINUTE);
    assert.deepEqual(backfills(d), []);
    assert.equal((await streamData(w.store, 'catchup/report')).length, 0);
    await d.stop();
  });

  void test('startingDeadlineSeconds drops slots older than the deadline', async () => {
    const w = await downtime();
    const d = await boot(w, {
      jobs: [hourly({ onMissed: 'run-all', startingDeadlineMs: 2 * HOUR + 30 * MINUTE })],
      runs: { exitCode: 0 },
    });
    await tick(w.clock, MINUTE);
    assert.deepEqual(backfills(d), MISSED.slice(2));
    await d.stop();
  });

  void test('backfills bypass the onlyIfLastSucceeded gate and launch without the retry ladder', async () => {
    const w = await world(T0 + 10 * MINUTE);
    await w.store.append('runs/report', ledgerRow('failure', LAST_RUN_MS + 30 * SECOND));
    const d = await boot(w, {
      jobs: [
        hourly({
          onMissed: 'run-once',
          onlyIfLastSucceeded: true,
          retry: { maximumRetries: 3, initialDelayMs: MINUTE },
        }),
      ],
      runs: { exitCode: 1 },
    });
    await tick(w.clock, 10 * MINUTE);
    assert.deepEqual(backfills(d), [T0], 'the gate (last run failed) did not hold the backfill');
    assert.equal(d.of('retry:scheduled').length, 0, 'a failing backfill arms no retry');
    assert.equal((await streamData(w.store, 'retries/report')).length, 0);
    // The scheduled fire at T0 + 1 h is gated as usual.
    await tick(w.clock, HOUR);
    assert.deepEqual(
      d.of('fire:skipped').map((event) => [event.reason, event.trigger]),
      [['only-if-last-succeeded', 'schedule']],
    );
    await d.stop();
  });

  void test('is evaluated once per process: a state-section reload does not replay', async () => {
    const w = await downtime();
    const process = newProcess('process-1');
    const first = await boot(w, {
      jobs: [hourly({ onMissed: 'run-once' })],
      process,
      runs: { exitCode: 0 },
    });
    await tick(w.clock, MINUTE);
    assert.deepEqual(backfills(first), [T0]);
    first.servingDurable.swap(null);
    await first.durable.close();
    const second = await boot(w, {
      jobs: [hourly({ onMissed: 'run-once' })],
      process,
      scheduler: first,
    });
    await tick(w.clock, MINUTE);
    assert.deepEqual(backfills(second), [T0]);
    await second.stop();
  });
});

// ---- output archival ------------------------------------------------------------------------

void describe('output archival', () => {
  const archived = (overrides: MakeJobOverrides = {}): ReturnType<typeof makeJob> =>
    job({ name: 'dump', captureStdout: true, archiveOutput: true, ...overrides });

  /** Start the job by hand, feed it `lines` as its captured output, and finish it. */
  async function runWithOutput(
    d: Daemon,
    lines: readonly (readonly ['stdout' | 'stderr', string])[],
    exitCode = 0,
  ): Promise<void> {
    await d.scheduler.startJob('dump');
    await flush();
    const run = d.runner.last('dump');
    for (const [stream, line] of lines) run.emitOutput(stream, line);
    run.fail(exitCode);
    await flush();
  }

  void test('each finished run’s captured lines land in logs/<job> in read order, redacted by default', async () => {
    const w = await world();
    const d = await boot(w, { jobs: [archived()], runs: 'manual' });
    await runWithOutput(d, [
      ['stdout', 'connecting as admin\n'],
      ['stderr', 'warning: slow\n'],
      ['stdout', 'PASSWORD=hunter2\n'],
      ['stderr', 'token hunter2 in stderr\n'],
      ['stdout', 'done'],
    ]);
    const finished = d.of('run:finished')[0]!;
    assert.deepEqual(await streamData(w.store, 'logs/dump'), [
      {
        finished_at: formatIsoUtc(finished.outcome.finishedAtMs),
        outcome: 'success',
        exit_code: 0,
        redacted: true,
        dropped_lines: 0,
        lines: [
          { stream: 'stdout', line: 'connecting as admin\n' },
          { stream: 'stderr', line: 'warning: slow\n' },
          { stream: 'stdout', line: 'PASSWORD=[REDACTED]\n' },
          { stream: 'stderr', line: 'token [REDACTED] in stderr\n' },
          { stream: 'stdout', line: 'done' },
        ],
      },
    ]);
    await d.stop();
  });

  void test('redaction spanning lines (a private key block) keeps every line in its place', async () => {
    const w = await world();
    const d = await boot(w, {
      jobs: [archived()],
      runs: 'manual',
      redact: (text) => text.replace(/BEGIN\n[\s\S]*?\nEND/, 'BEGIN\n[REDACTED]\n[REDACTED]\nEND'),
    });
    await runWithOutput(d, [
      ['stdout', 'BEGIN\n'],
      ['stderr', 'interleaved\n'],
      ['stdout', 'secret-1\n'],
      ['stdout', 'secret-2\n'],
      ['stdout', 'END\n'],
    ]);
    const [record] = await streamData(w.store, 'logs/dump');
    assert.deepEqual(record?.['lines'], [
      { stream: 'stdout', line: 'BEGIN\n' },
      { stream: 'stderr', line: 'interleaved\n' },
      { stream: 'stdout', line: '[REDACTED]\n' },
      { stream: 'stdout', line: '[REDACTED]\n' },
      { stream: 'stdout', line: 'END\n' },
    ]);
    await d.stop();
  });

  void test('a redactor that changes the number of lines is applied line by line instead', async () => {
    const w = await world();
    const d = await boot(w, {
      jobs: [archived()],
      runs: 'manual',
      redact: (text) => text.replaceAll('hunter2\n', 'X'),
    });
    await runWithOutput(d, [
      ['stdout', 'a hunter2\n'],
      ['stdout', 'b\n'],
    ]);
    const [record] = await streamData(w.store, 'logs/dump');
    assert.deepEqual(record?.['lines'], [
      { stream: 'stdout', line: 'a X' },
      { stream: 'stdout', line: 'b\n' },
    ]);
    await d.stop();
  });

  void test('redactArchivedSecrets: false archives the output verbatim', async () => {
    const w = await world();
    const d = await boot(w, { jobs: [archived({ redactArchivedSecrets: false })], runs: 'manual' });
    await runWithOutput(d, [['stdout', 'PASSWORD=hunter2\n']], 3);
    const [record] = await streamData(w.store, 'logs/dump');
    assert.deepEqual(record?.['lines'], [{ stream: 'stdout', line: 'PASSWORD=hunter2\n' }]);
    assert.equal(record?.['redacted'], false);
    assert.equal(record?.['outcome'], 'failure');
    assert.equal(record?.['exit_code'], 3);
    await d.stop();
  });

  void test('a run’s own job-API secrets are scrubbed from its archive even without redaction', async () => {
    const w = await world();
    const asked: string[] = [];
    const d = await boot(w, {
      jobs: [
        archived({
          redactArchivedSecrets: false,
          secrets: [
            {
              name: 'API_TOKEN',
              source: { value: 'zz-9-plural-z-alpha', fromFile: null, fromEnvVar: null },
            },
          ],
        }),
      ],
      // Staged at launch; the job API forgets them when the run ends, before the archive write.
      secretValues: (runId) => {
        asked.push(runId);
        return Promise.resolve(['zz-9-plural-z-alpha']);
      },
      runs: 'manual',
    });
    await runWithOutput(d, [['stdout', 'calling with zz-9-plural-z-alpha now\n']]);
    const [record] = await streamData(w.store, 'logs/dump');
    assert.deepEqual(record?.['lines'], [
      { stream: 'stdout', line: 'calling with [REDACTED] now\n' },
    ]);
    assert.deepEqual(asked, [d.of('run:started')[0]!.runId], 'asked once, at the start');
    await d.stop();
  });

  void test('output too big for one record keeps its newest lines, cut before it is redacted', async () => {
    const w = await world();
    const redacted: number[] = [];
    const d = await boot(w, {
      jobs: [archived({ saveLimit: 20_000 })],
      runs: 'manual',
      redact: (text) => {
        redacted.push(text.length);
        return text.replaceAll('hunter2', '[REDACTED]');
      },
    });
    const line = `${'o'.repeat(1023)}\n`;
    const lines = Array.from({ length: 18 * 1024 }, () => ['stdout', line] as const); // 18 MiB
    await runWithOutput(d, [...lines, ['stdout', 'password hunter2 at the end\n']]);
    await d.writes.drain(); // the chunked redaction takes real turns of the event loop
    const [record] = await streamData(w.store, 'logs/dump');
    assert.ok(Buffer.byteLength(JSON.stringify(record)) <= DEFAULT_MAX_RECORD_BYTES);
    const kept = record!['lines'] as { line: string }[];
    assert.equal(kept.at(-1)?.line, 'password [REDACTED] at the end\n');
    assert.equal(record!['dropped_lines'], lines.length + 1 - kept.length);
    assert.ok(kept.length > 15_000, `${kept.length} lines kept`);
    // Only what is kept was redacted, a chunk at a time.
    assert.ok(Math.max(...redacted) <= 65_536, `a chunk of ${Math.max(...redacted)} characters`);
    assert.ok(redacted.reduce((a, b) => a + b, 0) < lines.length * line.length);
    await d.stop();
  });

  void test('a run replaced under Replace does not keep its staged secret values', async () => {
    const w = await world();
    const d = await boot(w, {
      jobs: [
        archived({
          concurrencyPolicy: 'Replace',
          secrets: [
            { name: 'API_TOKEN', source: { value: 'zz-9', fromFile: null, fromEnvVar: null } },
          ],
        }),
      ],
      secretValues: () => Promise.resolve(['zz-9']),
      runs: 'manual',
    });
    await tick(w.clock, MINUTE); // the first instance runs until it is replaced
    assert.equal(d.durable.runsHoldingSecrets, 1);
    await tick(w.clock, MINUTE); // replaced by the second
    await flush();
    assert.equal(d.of('run:finished')[0]?.disposition, 'replaced');
    assert.equal(d.durable.runsHoldingSecrets, 1, 'only the live second instance');
    d.runner.last('dump').succeed();
    await flush();
    assert.equal(d.durable.runsHoldingSecrets, 0);
    await d.stop();
  });

  void test('keeps the first and last saveLimit/2 lines of each stream and counts the dropped ones', async () => {
    const w = await world();
    const d = await boot(w, { jobs: [archived({ saveLimit: 4 })], runs: 'manual' });
    const lines = Array.from({ length: 10 }, (_, index) => ['stdout', `out ${index}\n`] as const);
    await runWithOutput(d, [['stderr', 'err 0\n'], ...lines]);
    const [record] = await streamData(w.store, 'logs/dump');
    assert.deepEqual(record?.['lines'], [
      { stream: 'stderr', line: 'err 0\n' },
      { stream: 'stdout', line: 'out 0\n' },
      { stream: 'stdout', line: 'out 1\n' },
      { stream: 'stdout', line: 'out 8\n' },
      { stream: 'stdout', line: 'out 9\n' },
    ]);
    assert.equal(record?.['dropped_lines'], 6);
    await d.stop();
  });

  void test('without archiveOutput nothing is archived; a run without output archives no lines', async () => {
    const w = await world();
    const d = await boot(w, {
      jobs: [archived({ name: 'quiet', archiveOutput: false }), archived()],
      runs: { exitCode: 0 },
    });
    await tick(w.clock, MINUTE);
    assert.equal((await streamData(w.store, 'logs/quiet')).length, 0);
    const [record] = await streamData(w.store, 'logs/dump');
    assert.deepEqual(record?.['lines'], []);
    assert.equal(record?.['dropped_lines'], 0);
    await d.stop();
  });

  void test('reads back through listArchives and readArchive, newest first, by record id', async () => {
    const w = await world();
    const d = await boot(w, { jobs: [archived()], runs: 'manual' });
    await runWithOutput(d, [
      ['stdout', 'first\n'],
      ['stderr', 'PASSWORD=hunter2\n'],
    ]);
    await runWithOutput(d, [['stdout', 'second\n']], 3);
    const [newest, older] = await d.durable.listArchives('dump', 20);
    assert.deepEqual(
      [newest, older].map((entry) => [entry?.outcome, entry?.exitCode, entry?.lineCount]),
      [
        ['failure', 3, 1],
        ['success', 0, 2],
      ],
    );
    const records = await w.store.list('logs/dump');
    assert.deepEqual(
      [newest?.id, older?.id],
      records.map((record) => record.id),
    );
    assert.equal((await d.durable.listArchives('dump', 1)).length, 1);
    const lookup = await d.durable.readArchive('dump', older?.id ?? '');
    assert.equal(lookup.kind, 'found');
    if (lookup.kind === 'found') {
      assert.equal(lookup.header.finishedAtMs, d.of('run:finished')[0]!.outcome.finishedAtMs);
      assert.deepEqual(lookup.lines, [
        { stream: 'stdout', line: 'first\n' },
        { stream: 'stderr', line: 'PASSWORD=[REDACTED]\n' },
      ]);
    }
    assert.deepEqual(await d.durable.readArchive('dump', 'nope'), { kind: 'absent' });
    await d.stop();
  });

  void test('reading archives while the store is still opening rejects with YC_ERR_STATE_UNAVAILABLE', async () => {
    const w = await world();
    const opened = createDeferred<boolean>();
    const d = startDaemon({
      clock: w.clock,
      store: w.store,
      jobs: [archived()],
      storeOpened: opened.promise,
      runs: 'manual',
    });
    await assert.rejects(d.durable.listArchives('dump', 20), (error) =>
      isYacronError(error, 'YC_ERR_STATE_UNAVAILABLE'),
    );
    await assert.rejects(d.durable.readArchive('dump', 'x'), (error) =>
      isYacronError(error, 'YC_ERR_STATE_UNAVAILABLE'),
    );
    opened.resolve(true);
    await flush();
    assert.deepEqual(await d.durable.listArchives('dump', 20), []);
    await d.stop();
  });

  void test('the archive is pruned to maxRunsPerJob like the ledger', async () => {
    const w = await world();
    const d = await boot(w, {
      jobs: [archived()],
      settings: { maxRunsPerJob: 3 },
      runs: { exitCode: 0 },
    });
    await tick(w.clock, 20 * MINUTE);
    assert.equal((await streamData(w.store, 'logs/dump')).length, 3);
    await d.stop();
  });
});

// ---- counters -------------------------------------------------------------------------------

void describe('restart-durable Prometheus counters', () => {
  class FakeCounters implements CounterSnapshots {
    taken = 0;
    readonly seeded: [unknown, string[]][] = [];
    snapshot(): object {
      this.taken += 1;
      return { buckets: [], jobs: { pulse: { retries: this.taken } } };
    }
    seed(snapshot: unknown, configuredJobNames: ReadonlySet<string>): void {
      this.seeded.push([snapshot, [...configuredJobNames]]);
    }
  }
  const frequent = (): ReturnType<typeof makeJob> =>
    job({ name: 'pulse', schedule: '*/5 * * * * * *' });

  void test('are seeded once per process from this host’s newest snapshot, naming the configured jobs', async () => {
    const w = await world();
    const record = (at: number, retries: number): Record<string, unknown> => ({
      at: formatIsoUtc(at),
      buckets: [],
      jobs: { pulse: { retries } },
    });
    await w.store.append('counters/host-b', record(T0, 99));
    await w.store.append(`counters/${HOST}`, record(T0 - HOUR, 1));
    await w.store.append(`counters/${HOST}`, record(T0 - MINUTE, 2));
    const counters = new FakeCounters();
    const process = newProcess('process-1');
    const first = await boot(w, { jobs: [frequent()], counters, process });
    assert.deepEqual(counters.seeded, [[record(T0 - MINUTE, 2), ['pulse']]]);
    first.servingDurable.swap(null);
    await first.durable.close();
    const second = await boot(w, { jobs: [frequent()], counters, process, scheduler: first });
    assert.equal(counters.seeded.length, 1, 'a reload does not add the snapshot twice');
    await second.stop();
  });

  void test('a stop while the store still opens seeds the counters first, then writes the final snapshot', async () => {
    // Without the seed the final snapshot would hold this process's counts alone and replace
    // the previous process's totals.
    const w = await world();
    const previous = {
      at: formatIsoUtc(T0 - MINUTE),
      buckets: [],
      jobs: { pulse: { retries: 7 } },
    };
    await w.store.append(`counters/${HOST}`, previous);
    const counters = new FakeCounters();
    const opened = createDeferred<boolean>();
    const attempt = createDeferred<boolean>();
    const d = startDaemon({
      clock: w.clock,
      store: w.store,
      jobs: [frequent()],
      counters,
      storeOpened: opened.promise,
      storeOpenAttempt: () => attempt.promise,
    });
    void w.clock.sleep(2 * SECOND).then(() => {
      attempt.resolve(true);
      opened.resolve(true);
    });
    await d.stop();
    assert.deepEqual(counters.seeded, [[previous, ['pulse']]]);
    const stored = await streamData(w.store, `counters/${HOST}`);
    assert.equal(stored.length, 2, 'the final snapshot after the previous one');
    assert.deepEqual(stored.at(-1)?.['jobs'], { pulse: { retries: 1 } });
  });

  void test('a stop whose store never opened writes no snapshot over the previous one', async () => {
    const w = await world();
    const counters = new FakeCounters();
    const d = startDaemon({
      clock: w.clock,
      store: w.store,
      jobs: [frequent()],
      counters,
      storeOpened: createDeferred<boolean>().promise,
      storeOpenAttempt: () => Promise.resolve(false),
    });
    await d.stop();
    assert.deepEqual(counters.seeded, []);
    assert.equal(counters.taken, 0);
    assert.deepEqual(await streamData(w.store, `counters/${HOST}`), []);
  });

  void test('a snapshot piggybacks on finished runs at most every 15 s, plus a final one at shutdown', async () => {
    const w = await world();
    const journal: string[] = [];
    const observed = new ObservedStore(w.store, journal);
    const counters = new FakeCounters();
    const d = startDaemon({
      clock: w.clock,
      store: observed.store,
      journal,
      jobs: [frequent()],
      counters,
      runs: { exitCode: 0 },
    });
    const writtenAt: number[] = [];
    const snapshots = (): number =>
      journal.filter((entry) => entry.startsWith(`append counters/${HOST}`)).length;
    for (let second = 0; second < 60; second++) {
      const before = snapshots();
      await tick(w.clock, SECOND);
      if (snapshots() > before) writtenAt.push(w.clock.now() - T0);
    }
    assert.equal(d.of('run:finished').length, 12, 'a run every 5 s');
    assert.deepEqual(
      writtenAt,
      [5, 20, 35, 50].map((s) => s * SECOND),
    );
    await d.stop();
    assert.equal(snapshots(), 5, 'the final, unthrottled snapshot at shutdown');
    const stored = await streamData(w.store, `counters/${HOST}`);
    assert.equal(stored.length, 4, 'the stream is pruned to the newest four');
    assert.deepEqual(stored.at(-1), {
      at: formatIsoUtc(T0 + MINUTE),
      buckets: [],
      jobs: { pulse: { retries: 5 } },
    });
  });

  void test('a host without a snapshot seeds nothing and still snapshots', async () => {
    const w = await world();
    const counters = new FakeCounters();
    const d = await boot(w, { jobs: [frequent()], counters, runs: { exitCode: 0 } });
    await tick(w.clock, 5 * SECOND);
    assert.deepEqual(counters.seeded, []);
    assert.equal((await streamData(w.store, `counters/${HOST}`)).length, 1);
    await d.stop();
  });
});

// ---- trends ---------------------------------------------------------------------------------

void describe('SLA trends', () => {
  void test('are computed over the durable ledger, every node’s rows included', async () => {
    const w = await world();
    await w.store.append('runs/sync', ledgerRow('success', T0 - 2 * 24 * HOUR));
    await w.store.append('runs/sync', ledgerRow('failure', T0 - 2 * HOUR));
    await w.store.append('runs/sync', ledgerRow('unknown', T0 - 90 * MINUTE));
    const d = await boot(w, { jobs: [job({ name: 'sync' })], runs: { exitCode: 0 } });
    await tick(w.clock, MINUTE);
    const read = await d.durable.getTrends('sync');
    assert.equal(read.source, 'durable');
    const trends = computeTrends('sync', read.runs, w.clock.now(), read.source);
    assert.equal(trends.generated_at, formatIsoUtc(T0 + MINUTE));
    assert.deepEqual(
      [trends.windows['1h'].total, trends.windows['24h'].total, trends.windows['7d'].total],
      [1, 3, 4],
    );
    assert.equal(trends.windows['24h'].unknown, 1);
    assert.equal(trends.windows['24h'].success_rate, 0.5, 'unknown is not a verdict');
    await d.stop();
  });

  void test('reject when the ledger read times out (the route then answers from memory)', async () => {
    const w = await world();
    const observed = new ObservedStore(w.store, []);
    const d = startDaemon({
      clock: w.clock,
      store: observed.store,
      jobs: [job({ name: 'sync' })],
      runs: { exitCode: 0 },
    });
    await tick(w.clock, 2 * MINUTE);
    const release = observed.hold('list', 'runs/');
    let answered = false;
    const pending = d.durable.getTrends('sync').finally(() => (answered = true));
    pending.catch(() => undefined);
    await tick(w.clock, 10 * SECOND - 1);
    assert.equal(answered, false, 'the read is bounded by 10 s, not shorter');
    await tick(w.clock, 1);
    await assert.rejects(pending, (error: unknown) => isYacronError(error, 'YC_ERR_STATE_TIMEOUT'));
    release();
    await d.stop();
  });
});
