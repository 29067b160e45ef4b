// E2E: restart-surviving retries (docs/durable-state.md, "Restart-surviving retries"). A failed
// scheduled fire arms a retry for an absolute instant T and persists it; after a graceful restart
// the retry fires at T (or at once when T passed during the downtime), and an edit of the job's
// definition during the downtime settles the pending retry instead of running it.
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  readLines,
  readStoreStream,
  recordMs,
  secondsSchedule,
  shellQuote,
  startDaemon,
  useTempDir,
  waitForInstant,
  waitForStoreRecords,
  writeConfig,
  type StoreRecord,
} from './harness.js';

interface Setup {
  readonly store: string;
  readonly attempts: string;
  /** Write the config; `exitCode` is part of the job's definition (its digest). */
  readonly configure: (exitCode: number) => Promise<string>;
}

/**
 * A job failing on its one slot (about 5 s from now, then not for a minute, so no later fire
 * supersedes the ladder), with one retry after `initialDelaySeconds`.
 */
async function setup(
  t: Parameters<typeof useTempDir>[0],
  initialDelaySeconds: number,
): Promise<Setup> {
  const dir = await useTempDir(t);
  const store = join(dir, 'store');
  const attempts = join(dir, 'attempts.txt');
  const slotMs = Math.ceil((Date.now() + 4_500) / 1000) * 1000;
  const configure = (exitCode: number): Promise<string> =>
    writeConfig(
      dir,
      `jobs:
  - name: flaky
    command: |
      echo ran >> ${shellQuote(attempts)}
      exit ${exitCode}
    schedule: "${secondsSchedule([slotMs])}"
    onFailure:
      retry:
        maximumRetries: 1
        initialDelay: ${initialDelaySeconds}
        maximumDelay: 60
        backoffMultiplier: 2
state:
  path: ${store}
`,
    );
  return { store, attempts, configure };
}

/** Run the first daemon until its scheduled fire failed and the retry is persisted; stop it. */
async function failAndStop(
  t: Parameters<typeof useTempDir>[0],
  { store, configure }: Setup,
): Promise<StoreRecord> {
  const config = await configure(3);
  const daemon = startDaemon(t, ['-c', config]);
  const [pending] = await waitForStoreRecords(
    store,
    'retries/flaky',
    (records) => records.length > 0,
    { timeoutMs: 20_000, daemon },
  );
  assert.equal(pending!.kind, 'pending');
  assert.equal(pending!.attempt, 1);
  assert.equal(pending!.host, hostname());
  assert.match(String(pending!.jobDigest), /^[0-9a-f]{64}$/);
  // A graceful shutdown deliberately leaves the pending record for the next boot.
  assert.equal(await daemon.stop(), 0);
  assert.equal(daemon.logMessages(/^Job flaky exit code 3;/).length, 1);
  assert.deepEqual(
    readStoreStream(store, 'retries/flaky').map((record) => record.kind),
    ['pending'],
  );
  return pending!;
}

/** The job's one slot is past and its next a minute away: every row after the first is a retry. */
const retryRows = (store: string): StoreRecord[] => readStoreStream(store, 'runs/flaky').slice(1);

test(
  'a retry armed for T fires at T after a restart, not a full delay after the restart',
  { timeout: 60_000 },
  async (t) => {
    const context = await setup(t, 8);
    const pending = await failAndStop(t, context);
    const dueMs = recordMs(pending, 'notBefore');
    // Down for half the delay: a ladder restarted from scratch would fire 4 s after T.
    await waitForInstant(dueMs - 4_000);
    const daemon = startDaemon(t, ['-c', await context.configure(3)]);
    const resumed = await daemon.waitForLog(/^Cron job flaky: resuming retry #1 /, 20_000);
    const match =
      /^Cron job flaky: resuming retry #1 from the state store in (\d+\.\d{3}) seconds$/.exec(
        resumed.msg,
      );
    assert.ok(match, resumed.msg);
    assert.ok(resumed.time < dueMs - 500, 'the restarted daemon re-armed the retry before T');
    // Only the rest of the delay is slept: the absolute deadline, whenever the daemon came back.
    const sleptUntilMs = resumed.time + Number(match[1]) * 1000;
    assert.ok(Math.abs(sleptUntilMs - dueMs) < 1_000, `sleeps until ${sleptUntilMs}, T=${dueMs}`);

    const [retry] = await waitForStoreRecords(
      context.store,
      'runs/flaky',
      (rows) => rows.length > 1,
      { timeoutMs: 20_000, daemon },
    );
    assert.ok(retry);
    const [row] = retryRows(context.store);
    const launchedMs = Date.parse(String(row!.started_at));
    assert.ok(
      launchedMs >= dueMs - 500 && launchedMs < dueMs + 3_000,
      `retry launched at T${launchedMs >= dueMs ? '+' : ''}${launchedMs - dueMs} ms`,
    );
    assert.deepEqual(readLines(context.attempts), ['ran', 'ran']);
    // Record-before-run: the pending record was settled `launched` before the retry started.
    const records = await waitForStoreRecords(
      context.store,
      'retries/flaky',
      (list) => list.some((record) => record.kind === 'settled'),
      { daemon },
    );
    assert.deepEqual(
      records.map((record) => [record.kind, record.reason ?? null]),
      [
        ['pending', null],
        ['settled', 'launched'],
      ],
    );
    assert.equal(await daemon.stop(), 0);
  },
);

test(
  'a retry whose instant passed during the downtime fires as soon as the daemon is back',
  { timeout: 60_000 },
  async (t) => {
    const context = await setup(t, 2);
    const pending = await failAndStop(t, context);
    const dueMs = recordMs(pending, 'notBefore');
    await waitForInstant(dueMs + 2_000);
    const restartedAtMs = Date.now();
    const daemon = startDaemon(t, ['-c', await context.configure(3)]);
    await daemon.waitForLog(/^Cron job flaky: resuming retry #1 /, 20_000);
    assert.deepEqual(daemon.logMessages(/resuming retry/), [
      'Cron job flaky: resuming retry #1 from the state store in 0.000 seconds',
    ]);
    await waitForStoreRecords(context.store, 'runs/flaky', (rows) => rows.length > 1, {
      timeoutMs: 20_000,
      daemon,
    });
    const [row] = retryRows(context.store);
    const launchedMs = Date.parse(String(row!.started_at));
    assert.ok(
      launchedMs >= restartedAtMs && launchedMs < restartedAtMs + 10_000,
      `retry launched ${launchedMs - restartedAtMs} ms after the restart`,
    );
    assert.deepEqual(readLines(context.attempts), ['ran', 'ran']);
    assert.equal(await daemon.stop(), 0);
  },
);

test(
  "editing the job's definition during the downtime settles its pending retry (config-changed) instead of running it",
  { timeout: 60_000 },
  async (t) => {
    const context = await setup(t, 2);
    const pending = await failAndStop(t, context);
    const dueMs = recordMs(pending, 'notBefore');
    const daemon = startDaemon(t, ['-c', await context.configure(4)]);
    await daemon.waitForLog(/^Cron job flaky: settling its durable retry/, 20_000);
    assert.deepEqual(daemon.logMessages(/durable retry|resuming retry/), [
      'Cron job flaky: settling its durable retry #1 (config-changed)',
    ]);
    const records = await waitForStoreRecords(
      context.store,
      'retries/flaky',
      (list) => list.at(-1)?.kind === 'settled',
      { daemon },
    );
    assert.equal(records.at(-1)!.reason, 'config-changed');
    assert.equal(records.at(-1)!.attempt, 1);
    // Past the retry's instant (and a margin), nothing ran: the old ladder never met the new job.
    await waitForInstant(Math.max(dueMs, Date.now()) + 2_000);
    assert.equal(await daemon.stop(), 0);
    assert.deepEqual(readLines(context.attempts), ['ran']);
    assert.deepEqual(daemon.logMessages(/^Starting job flaky$/), []);
    assert.deepEqual(retryRows(context.store), []);
  },
);
