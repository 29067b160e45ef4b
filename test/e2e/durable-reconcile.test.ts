// E2E: crash reconciliation of in-flight runs (docs/durable-state.md, "In-flight records and crash
// reconciliation"). A daemon killed with SIGKILL mid-run leaves an open in-flight record per live
// run; the next start turns each into an `unknown` ledger row when the job process is gone, and
// leaves a still-running orphan alone (with a warning, no row, not killed) until it ends.
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeFileSync } from 'node:fs';
import {
  getJson,
  isReconciledRow,
  killAtTeardown,
  post,
  processExists,
  readStoreStream,
  recordMs,
  shellQuote,
  startDaemon,
  useTempDir,
  waitForFile,
  waitForLines,
  waitUntil,
  waitForStoreRecords,
  webUrlOf,
  writeConfig,
  type DaemonProcess,
  type StoreRecord,
} from './harness.js';

// The store's host is the machine's name (os.hostname()), whatever HOSTNAME says.
const HOST = hostname();

interface RunsView {
  readonly runs: readonly {
    readonly outcome: string;
    readonly started_at: string | null;
    readonly finished_at: string;
    readonly fail_reason: string | null;
  }[];
}

interface Scenario {
  readonly store: string;
  readonly pidFile: string;
  readonly start: () => DaemonProcess;
}

/**
 * A job that is only ever started by hand (its one slot is in 2099): it records its pid, then
 * sleeps with its output away from the daemon's pipes, so a killed daemon leaves it running.
 */
async function scenario(t: Parameters<typeof useTempDir>[0]): Promise<Scenario> {
  const dir = await useTempDir(t);
  const store = join(dir, 'store');
  const pidFile = join(dir, 'worker.pid');
  const config = await writeConfig(
    dir,
    `jobs:
  - name: worker
    command: |
      echo $$ > ${shellQuote(`${pidFile}.tmp`)} && mv ${shellQuote(`${pidFile}.tmp`)} ${shellQuote(pidFile)}
      exec sleep 60 >/dev/null 2>&1
    schedule: "0 0 1 1 * 2099"
state:
  path: ${store}
web:
  listen:
    - http://127.0.0.1:0
`,
  );
  const env = { ...process.env, HOSTNAME: 'not-the-store-host' };
  return { store, pidFile, start: () => startDaemon(t, ['-c', config], { env }) };
}

/** Start the worker by hand and SIGKILL the daemon once its open in-flight record landed. */
async function crashMidRun(
  t: Parameters<typeof useTempDir>[0],
  { store, pidFile, start }: Scenario,
): Promise<{ pid: number; open: StoreRecord }> {
  const daemon = start();
  const url = await webUrlOf(daemon);
  // The in-flight record is written only once the store is open (a write before is dropped).
  await daemon.waitForLog(/^State store ready at /);
  assert.equal(await post(`${url}/jobs/worker/start`), 200);
  const pid = Number(await waitForFile(pidFile, (content) => content.endsWith('\n')));
  killAtTeardown(t, () => [pid]);
  const [open] = await waitForStoreRecords(
    store,
    'inflight/worker',
    (records) => records.some((record) => record.kind === 'open'),
    { daemon },
  );
  assert.equal(open!.pid, pid);
  assert.equal(open!.host, HOST);
  await daemon.stop('SIGKILL');
  return { pid, open: open! };
}

/** The start instant a reconciled row's fail_reason names, checking that it names HOST too. */
function startInstantNamedBy(failReason: unknown): number {
  const text = String(failReason);
  const prefix = 'run interrupted: no completion was recorded for the run started at ';
  const suffix = ` on ${HOST} (daemon crash, or the node lost access to the state store mid-run)`;
  assert.ok(text.startsWith(prefix) && text.endsWith(suffix), `fail_reason: ${text}`);
  return Date.parse(text.slice(prefix.length, -suffix.length));
}

function assertOneUnknownRun({ runs }: RunsView, open: StoreRecord): void {
  const unknown = runs.filter((run) => run.outcome === 'unknown');
  assert.equal(unknown.length, 1, JSON.stringify(runs));
  assert.equal(unknown[0]!.started_at, null);
  assert.equal(startInstantNamedBy(unknown[0]!.fail_reason), recordMs(open, 'startedAt'));
}

test(
  'a run the daemon was SIGKILLed under becomes an unknown row once its process is gone',
  { timeout: 60_000 },
  async (t) => {
    const setup = await scenario(t);
    const { pid, open } = await crashMidRun(t, setup);
    // The job dies too (a crash of the whole machine, as far as this run is concerned). Its
    // zombie may wait a while for init to reap it; it counts as gone.
    process.kill(-pid, 'SIGKILL');
    await waitUntil(() => !processExists(pid), `the job process ${pid} to die`, {
      timeoutMs: 15_000,
    });

    const restarted = setup.start();
    const startedIso = String(open.startedAt);
    const logged = await restarted.waitForLog(/^Job worker: the run started at \S+ never finished/);
    assert.equal(
      logged.msg,
      `Job worker: the run started at ${startedIso} never finished (daemon crash); recorded as outcome unknown`,
    );

    // The ledger row: a non-verdict naming the start instant and the host, with no started_at.
    const rows = await waitForStoreRecords(
      setup.store,
      'runs/worker',
      (records) => records.some((record) => record.outcome === 'unknown'),
      { daemon: restarted },
    );
    assert.equal(rows.length, 1);
    const row = rows[0]!;
    assert.ok(isReconciledRow(row), JSON.stringify(row));
    assert.deepEqual(
      [row.outcome, row.exit_code, row.started_at, row.duration, 'resources' in row],
      ['unknown', null, null, null, false],
    );
    // Under onMissed skip the interrupted start instant is the row's finished_at.
    assert.equal(row.finished_at, open.startedAt);
    assert.equal(startInstantNamedBy(row.fail_reason), recordMs(open, 'startedAt'));
    // The open record is closed as reconciled by the restarted daemon's process.
    const closed = readStoreStream(setup.store, 'inflight/worker').at(-1)!;
    assert.deepEqual(
      [closed.kind, closed.reason, closed.host],
      ['closed', 'reconciled-crash', HOST],
    );
    assert.match(String(closed.proc), /^[0-9a-f]{12}$/);
    assert.notEqual(closed.proc, open.proc);

    // The control API of the restarted daemon shows the row at once.
    const url = await webUrlOf(restarted);
    assertOneUnknownRun(await getJson<RunsView>(`${url}/jobs/worker/runs`), open);
    assert.equal(await restarted.stop(), 0);

    // Reconciled once: a later start finds the record closed and appends nothing, and its
    // history, rehydrated from the ledger, shows the row.
    const again = setup.start();
    const againUrl = await webUrlOf(again);
    await again.waitForLog(/^State store: rehydrated 1 run\(s\) of history from the ledger$/);
    assertOneUnknownRun(await getJson<RunsView>(`${againUrl}/jobs/worker/runs`), open);
    assert.equal(await again.stop(), 0);
    assert.equal(readStoreStream(setup.store, 'runs/worker').length, 1);
    assert.equal(again.logMessages(/never finished/).length, 0);
  },
);

test(
  'an orphaned job process still alive at restart is left alone: a warning, no row, not killed',
  { timeout: 60_000 },
  async (t) => {
    const setup = await scenario(t);
    const { pid } = await crashMidRun(t, setup);
    assert.ok(processExists(pid), 'a daemon crash does not kill the job it spawned');

    const restarted = setup.start();
    const warning = await restarted.waitForLog(/^Job worker: an interrupted run \(pid \d+\)/);
    assert.equal(
      warning.msg,
      `Job worker: an interrupted run (pid ${pid}) from a previous daemon process is still alive; leaving it alone until it ends`,
    );
    assert.equal(warning.level, 40, 'a warning');
    // The warning is the reconciliation's verdict on the record: nothing was appended or closed.
    assert.deepEqual(
      readStoreStream(setup.store, 'runs/worker').filter((row) => row.outcome === 'unknown'),
      [],
    );
    assert.equal(readStoreStream(setup.store, 'inflight/worker').at(-1)!.kind, 'open');
    const url = await webUrlOf(restarted);
    const { runs } = await getJson<RunsView>(`${url}/jobs/worker/runs`);
    assert.deepEqual(runs, []);
    assert.equal(await restarted.stop(), 0);
    // Neither the reconciliation nor the graceful shutdown touched the orphan.
    assert.ok(processExists(pid), `the orphan ${pid} must still run`);
    assert.equal(restarted.logMessages(/never finished/).length, 0);
  },
);

test(
  'overlapping runs and a Forbid run killed under the daemon each get their own unknown row, also after the next process ran the job',
  { timeout: 120_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const store = join(dir, 'store');
    // Each run appends its pid to <job>.pids, then waits (its own polling) for release-<pid>.
    const waiter = (name: string): string => `echo $$ >> ${shellQuote(join(dir, `${name}.pids`))}
      while [ ! -e ${shellQuote(dir)}/release-$$ ]; do sleep 0.05; done >/dev/null 2>&1`;
    const config = await writeConfig(
      dir,
      `jobs:
  - name: overlap
    command: |
      ${waiter('overlap')}
    schedule: "0 0 0 1 1 * 2099"
    concurrencyPolicy: Allow
  - name: forbid
    command: |
      ${waiter('forbid')}
    schedule: "0 0 0 1 1 * 2099"
    concurrencyPolicy: Forbid
state:
  path: ${store}
web:
  listen:
    - http://127.0.0.1:0
`,
    );
    const start = (): DaemonProcess => startDaemon(t, ['-c', config]);
    const release = (pid: number): void => writeFileSync(join(dir, `release-${pid}`), '');
    const pids: number[] = [];
    killAtTeardown(t, () => pids);
    /** Start `name` by hand and return the pid of its `count`-th run. */
    const startRun = async (url: string, name: string, count: number): Promise<number> => {
      assert.equal(await post(`${url}/jobs/${name}/start`), 200);
      const lines = await waitForLines(join(dir, `${name}.pids`), count);
      const pid = Number(lines[count - 1]);
      pids.push(pid);
      return pid;
    };
    /** The open in-flight record of the run with `pid`, once it landed. */
    const openOf = async (
      name: string,
      pid: number,
      daemon: DaemonProcess,
    ): Promise<StoreRecord> => {
      const records = await waitForStoreRecords(
        store,
        `inflight/${name}`,
        (all) => all.some((record) => record.kind === 'open' && record.pid === pid),
        { daemon },
      );
      return records.find((record) => record.kind === 'open' && record.pid === pid)!;
    };
    const rowsOf = (name: string): StoreRecord[] => readStoreStream(store, `runs/${name}`);
    const unknownStarts = (name: string): number[] =>
      rowsOf(name)
        .filter(isReconciledRow)
        .map((row) => startInstantNamedBy(row.fail_reason))
        .sort((a, b) => a - b);

    // The first daemon: two overlapping runs of the Allow job (the first one finishes), and the
    // Forbid job mid-run, when it is SIGKILLed (the daemon alone: its jobs run on).
    const first = start();
    const firstUrl = await webUrlOf(first);
    await first.waitForLog(/^State store ready at /);
    const done = await startRun(firstUrl, 'overlap', 1);
    const interrupted = await startRun(firstUrl, 'overlap', 2);
    const forbidden = await startRun(firstUrl, 'forbid', 1);
    const doneOpen = await openOf('overlap', done, first);
    const interruptedOpen = await openOf('overlap', interrupted, first);
    const forbiddenOpen = await openOf('forbid', forbidden, first);
    release(done);
    const [doneRow] = await waitForStoreRecords(
      store,
      'runs/overlap',
      (rows) => rows.length === 1,
      {
        daemon: first,
      },
    );
    // The open record and the ledger row name the same launch instant.
    assert.equal(doneRow!.outcome, 'success');
    assert.equal(doneRow!.started_at, doneOpen.startedAt);
    await first.stop('SIGKILL');

    // The next daemon starts while both orphans still run: left alone, watched.
    const second = start();
    const secondUrl = await webUrlOf(second);
    for (const [name, pid] of [
      ['overlap', interrupted],
      ['forbid', forbidden],
    ] as const) {
      await second.waitForLog(
        new RegExp(
          `^Job ${name}: an interrupted run \\(pid ${pid}\\) from a previous daemon process is still alive`,
        ),
      );
    }
    // It runs the Forbid job itself (it does not know the orphan): its own records come after
    // the orphan's open one, and its run finishes.
    const next = await startRun(secondUrl, 'forbid', 2);
    await openOf('forbid', next, second);
    release(next);
    await waitForStoreRecords(
      store,
      'runs/forbid',
      (rows) => rows.some((row) => row.outcome === 'success'),
      {
        daemon: second,
      },
    );
    assert.deepEqual(unknownStarts('overlap'), []);
    assert.deepEqual(unknownStarts('forbid'), []);
    assert.ok(
      processExists(interrupted) && processExists(forbidden),
      'the orphans were not killed',
    );

    // The orphans end: each interrupted run gets its row, the finished one none.
    release(interrupted);
    release(forbidden);
    await waitForStoreRecords(store, 'runs/overlap', (rows) => rows.some(isReconciledRow), {
      daemon: second,
    });
    await waitForStoreRecords(store, 'runs/forbid', (rows) => rows.some(isReconciledRow), {
      daemon: second,
    });
    assert.deepEqual(unknownStarts('overlap'), [recordMs(interruptedOpen, 'startedAt')]);
    assert.deepEqual(unknownStarts('forbid'), [recordMs(forbiddenOpen, 'startedAt')]);
    assert.deepEqual(
      rowsOf('overlap')
        .map((row) => row.outcome)
        .sort(),
      ['success', 'unknown'],
    );
    assert.deepEqual(
      rowsOf('forbid')
        .map((row) => row.outcome)
        .sort(),
      ['success', 'unknown'],
    );
    assert.equal(await second.stop(), 0);

    // Reconciled once: a later start appends nothing.
    const third = start();
    await third.waitForLog(/^State store: rehydrated 4 run\(s\) of history from the ledger$/);
    assert.equal(await third.stop(), 0);
    assert.equal(third.logMessages(/never finished/).length, 0);
    assert.equal(rowsOf('overlap').length + rowsOf('forbid').length, 4);
  },
);
