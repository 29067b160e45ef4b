// E2E: missed-run catch-up across a real daemon downtime (docs/durable-state.md, "Missed-run
// catch-up"): after a downtime spanning four slots, onMissed run-once launches exactly one backfill
// (the newest slot), run-all one per missed slot, and startingDeadlineSeconds drops the older
// slots. The catch-up checkpoints (each backfill moves the watermark to its slot) and the ledger
// rows are the observation points.
//
// The slots are planned from the test's start, and the second daemon starts after the last one:
// no live fire lands near a start-up. (A live run that reaches the ledger before the catch-up
// reads its watermark hides the whole downtime: a daemon bug reported with this suite.)
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  backfilledSlots,
  readStoreStream,
  recordMs,
  secondsSchedule,
  startDaemon,
  useTempDir,
  waitForInstant,
  waitForStoreRecords,
  writeConfig,
} from './harness.js';

const DEADLINE_MS = 4_000;

test(
  'after a downtime spanning several slots: run-once fires once, run-all once per missed slot, and startingDeadlineSeconds drops the older slots',
  { timeout: 90_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const store = join(dir, 'store');
    // The first daemon runs every job at `base`; the four slots after it fall into the downtime.
    const baseMs = Math.ceil((Date.now() + 4_500) / 1000) * 1000;
    const missed = [baseMs + 4_000, baseMs + 6_000, baseMs + 8_000, baseMs + 10_000];
    const [m1, m2, m3, m4] = missed as [number, number, number, number];
    const job = (name: string, options: string): string => `  - name: ${name}
    command: "true"
    schedule: "${secondsSchedule([baseMs, ...missed])}"
${options}`;
    const config = await writeConfig(
      dir,
      `jobs:
${job('once', '    onMissed: run-once\n')}${job('all', '    onMissed: run-all\n')}${job(
        'deadline',
        `    onMissed: run-all\n    startingDeadlineSeconds: ${DEADLINE_MS / 1000}\n`,
      )}state:
  path: ${store}
`,
    );
    const names = ['once', 'all', 'deadline'] as const;
    const catchupSlots = (name: string): number[] =>
      backfilledSlots(readStoreStream(store, `catchup/${name}`));
    // A run started for `base` (not a later slot: those are 4 s and more away).
    const ranBase = (startedAtMs: number): boolean =>
      startedAtMs >= baseMs && startedAtMs < missed[0]!;

    // First daemon: every job runs once, so each has a durable watermark.
    const first = startDaemon(t, ['-c', config]);
    for (const name of names) {
      await waitForStoreRecords(store, `runs/${name}`, (rows) => rows.length > 0, {
        timeoutMs: 20_000,
        daemon: first,
      });
    }
    assert.equal(await first.stop(), 0);
    for (const name of names) {
      const rows = readStoreStream(store, `runs/${name}`);
      assert.ok(
        rows.length === 1 && ranBase(recordMs(rows[0]!, 'started_at')),
        `${name}: the first daemon ran the base slot, and only that one: ${JSON.stringify(rows)}`,
      );
    }
    // A first-ever run is never "missed": nothing was caught up.
    assert.deepEqual(first.logMessages(/catching up/), []);

    await waitForInstant(m4 + 500);
    const restartedAtMs = Date.now();
    const second = startDaemon(t, ['-c', config]);
    for (const name of names) {
      await waitForStoreRecords(
        store,
        `catchup/${name}`,
        (records) => records.at(-1)?.kind === 'close',
        { timeoutMs: 30_000, daemon: second },
      );
    }
    // The catch-up horizon is the scheduler's start-up instant: after the spawn, before the
    // first catch-up log line.
    const firstLogMs = Math.min(
      ...second
        .logs()
        .filter((record) => /catching up/.test(record.msg))
        .map((record) => record.time),
    );
    assert.equal(await second.stop(), 0);

    // run-once: exactly one backfill, for the newest missed slot.
    assert.deepEqual(catchupSlots('once'), [m4]);
    assert.deepEqual(second.logMessages(/^Job once: catching up/), [
      'Job once: catching up 1 missed run(s) (onMissed run-once)',
    ]);

    // run-all: one backfill per missed slot, oldest first.
    assert.deepEqual(catchupSlots('all'), missed);
    assert.deepEqual(second.logMessages(/^Job all: catching up/), [
      'Job all: catching up 4 missed run(s) (onMissed run-all)',
    ]);

    // startingDeadlineSeconds 4: m1 and m2 are older than the deadline whenever the daemon came
    // up; m3 is within it when the start-up took less than 1.5 s.
    const deadlineSlots = catchupSlots('deadline');
    const expected = [m3, m4].filter((slot) => slot >= restartedAtMs - DEADLINE_MS);
    const certain = [m3, m4].filter((slot) => slot >= firstLogMs - DEADLINE_MS);
    assert.ok(
      deadlineSlots.every((slot) => expected.includes(slot)) &&
        certain.every((slot) => deadlineSlots.includes(slot)),
      `deadline replayed ${String(deadlineSlots)}; m3=${m3} m4=${m4}, restarted at ${restartedAtMs}`,
    );
    assert.ok(!deadlineSlots.includes(m1) && !deadlineSlots.includes(m2));
    assert.deepEqual(
      second.logMessages(/^Job deadline: /).filter((msg) => /missed/.test(msg)),
      [
        'Job deadline: missed slots older than startingDeadlineSeconds were dropped',
        `Job deadline: catching up ${deadlineSlots.length} missed run(s) (onMissed run-all)`,
      ],
    );

    // Every backfill ran once and succeeded, without the retry ladder; no live fire met them.
    for (const name of names) {
      const rows = readStoreStream(store, `runs/${name}`);
      assert.ok(
        rows.every((row) => row.outcome === 'success'),
        JSON.stringify(rows),
      );
      const started = rows.map((row) => recordMs(row, 'started_at'));
      assert.equal(started.filter(ranBase).length, 1, JSON.stringify(rows));
      assert.ok(started.slice(1).every((ms) => ms >= restartedAtMs));
      assert.equal(rows.length, 1 + catchupSlots(name).length, JSON.stringify(rows));
      assert.deepEqual(readStoreStream(store, `retries/${name}`), []);
    }
  },
);
