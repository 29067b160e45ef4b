// E2E: crash reconciliation of in-flight runs (docs/durable-state.md, "In-flight records and crash
// reconciliation"). A daemon killed with SIGKILL mid-run leaves an open in-flight record; the next
// start turns it into an `unknown` ledger row when the job process is gone, and leaves a
// still-running orphan alone (with a warning, no row, not killed).
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
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
      `Job worker: an interrupted run (pid ${pid}) from a previous daemon process is still alive; leaving it alone`,
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
