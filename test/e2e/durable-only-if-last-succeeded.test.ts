// E2E: onlyIfLastSucceeded survives a restart with a store (docs/durable-state.md,
// "Depends-on-past: `onlyIfLastSucceeded`"): after a failed run and a daemon restart, the job's
// scheduled fires are still skipped, while a sibling whose last run succeeded keeps running.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  readStoreStream,
  secondsSchedule,
  shellQuote,
  slotOf,
  startDaemon,
  useTempDir,
  waitForStoreRecords,
  writeConfig,
} from './harness.js';

test(
  'onlyIfLastSucceeded still skips the scheduled fires after a restart that followed a failure',
  { timeout: 60_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const store = join(dir, 'store');
    const exitCode = join(dir, 'exit-code.txt');
    // Slots planned from now: the first daemon fires `base`, the second daemon `later`.
    const baseMs = Math.ceil((Date.now() + 4_500) / 1000) * 1000;
    const later = [baseMs + 6_000, baseMs + 8_000];
    const slots = [baseMs, ...later];
    const schedule = secondsSchedule(slots);
    await writeFile(exitCode, '1\n');
    const config = await writeConfig(
      dir,
      `jobs:
  - name: sync
    command: exit "$(cat ${shellQuote(exitCode)})"
    schedule: "${schedule}"
    onlyIfLastSucceeded: true
  - name: control
    command: "true"
    schedule: "${schedule}"
    onlyIfLastSucceeded: true
state:
  path: ${store}
`,
    );
    const first = startDaemon(t, ['-c', config]);
    for (const name of ['sync', 'control']) {
      await waitForStoreRecords(store, `runs/${name}`, (rows) => rows.length > 0, {
        timeoutMs: 20_000,
        daemon: first,
      });
    }
    assert.equal(await first.stop(), 0);
    const [failed] = readStoreStream(store, 'runs/sync');
    assert.equal(failed!.outcome, 'failure');
    assert.equal(slotOf(failed!, slots), baseMs, 'the first daemon started in time for its slot');

    // The job would succeed now: only the gate can keep it from running.
    await writeFile(exitCode, '0\n');
    const second = startDaemon(t, ['-c', config]);
    // Until the store answers, the gate fails open (onStoreUnavailable: degrade): the test needs
    // the history rehydrated before the first slot.
    const warmed = await second.waitForLog(/^State store: rehydrated /, 20_000);
    assert.ok(warmed.time < later[0]!, 'the second daemon was ready before its first slot');
    // The control job's run of the last planned slot: both slots have been decided by then.
    await waitForStoreRecords(
      store,
      'runs/control',
      (rows) => rows.some((row) => slotOf(row, slots) === later[1]),
      { timeoutMs: 20_000, daemon: second },
    );
    await second.waitForLog(/^Job control exit code 0;/);
    assert.equal(await second.stop(), 0);

    assert.deepEqual(second.logMessages(/^Job sync skipped/), [
      'Job sync skipped: onlyIfLastSucceeded and the last run failed',
      'Job sync skipped: onlyIfLastSucceeded and the last run failed',
    ]);
    assert.deepEqual(second.logMessages(/^Starting job sync$/), []);
    assert.deepEqual(
      readStoreStream(store, 'runs/sync').map((row) => row.outcome),
      ['failure'],
    );
    assert.deepEqual(
      readStoreStream(store, 'runs/control').map((row) => [slotOf(row, slots), row.outcome]),
      [
        [baseMs, 'success'],
        [later[0], 'success'],
        [later[1], 'success'],
      ],
    );
  },
);
