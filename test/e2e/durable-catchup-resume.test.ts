// E2E: a restart in the middle of an onMissed run-all backfill resumes it from the open catch-up
// checkpoint (docs/durable-state.md, "Missed-run catch-up": checkpointed, at-least-once). The
// daemon is SIGKILLed while the second of three backfills runs: the next start replays the
// interrupted slot and the one not reached yet, never the one already done.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  backfilledSlots,
  isReconciledRow,
  killAtTeardown,
  processExists,
  readLines,
  readStoreStream,
  recordMs,
  secondsSchedule,
  shellQuote,
  startDaemon,
  useTempDir,
  waitForInstant,
  waitForLines,
  waitForStoreRecords,
  waitUntil,
  writeConfig,
} from './harness.js';

test(
  'a restart during a run-all backfill resumes from the checkpoint: the done slot is not replayed, the interrupted one is',
  { timeout: 90_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const store = join(dir, 'store');
    const starts = join(dir, 'starts.txt');
    const delay = join(dir, 'delay.txt');
    // Slots planned from now: the first daemon runs `base`; m1..m3 fall into its downtime. The
    // schedule has no other slot for about a minute, so no live fire meets the backfills.
    const baseMs = Math.ceil((Date.now() + 4_500) / 1000) * 1000;
    const missed = [baseMs + 4_000, baseMs + 6_000, baseMs + 8_000];
    const [m1, m2, m3] = missed as [number, number, number];
    // How long a run takes is read from delay.txt: quick at first, slow during the backfill
    // that gets interrupted (the file is not part of the job's definition).
    await writeFile(delay, '0\n');
    const config = await writeConfig(
      dir,
      `jobs:
  - name: backfill
    command: |
      echo $$ >> ${shellQuote(starts)}
      sleep "$(cat ${shellQuote(delay)})"
    schedule: "${secondsSchedule([baseMs, ...missed])}"
    onMissed: run-all
state:
  path: ${store}
`,
    );
    const runs = (): Record<string, unknown>[] => readStoreStream(store, 'runs/backfill');
    const backfilled = (): number[] => backfilledSlots(readStoreStream(store, 'catchup/backfill'));

    const first = startDaemon(t, ['-c', config]);
    const [firstRun] = await waitForStoreRecords(
      store,
      'runs/backfill',
      (rows) => rows.length > 0,
      { timeoutMs: 20_000, daemon: first },
    );
    const firstStartMs = recordMs(firstRun!, 'started_at');
    assert.ok(firstStartMs >= baseMs && firstStartMs < m1, 'the first daemon started in time');
    assert.equal(await first.stop(), 0);
    assert.equal(runs().length, 1, 'stopped before the next slot');

    // The downtime covers m1..m3; then every backfill takes 3 s.
    await writeFile(delay, '3\n');
    await waitForInstant(m3 + 300);
    const second = startDaemon(t, ['-c', config]);
    await second.waitForLog(/^Job backfill: catching up/, 20_000);
    assert.deepEqual(second.logMessages(/^Job backfill: catching up/), [
      'Job backfill: catching up 3 missed run(s) (onMissed run-all)',
    ]);
    // m1's backfill finished (its checkpoint moved the watermark to m1); m2's is running.
    await waitForStoreRecords(
      store,
      'catchup/backfill',
      () => backfilled().length === 1 && runs().length === 2,
      { timeoutMs: 20_000, daemon: second },
    );
    assert.deepEqual(backfilled(), [m1]);
    // The third start (after the first daemon's run and m1's backfill) is m2's backfill.
    const pid = Number((await waitForLines(starts, 3, 20_000))[2]);
    killAtTeardown(t, () => [pid]);
    assert.equal(readStoreStream(store, 'catchup/backfill').at(-1)!.kind, 'open');
    // Its in-flight record lands just after the start: the crash must come after it.
    await waitForStoreRecords(
      store,
      'inflight/backfill',
      (records) => records.at(-1)?.kind === 'open' && records.at(-1)?.pid === pid,
      { daemon: second },
    );

    // Crash: the daemon and the backfill it was running.
    second.child.kill('SIGKILL');
    process.kill(-pid, 'SIGKILL');
    await second.exited();
    await waitUntil(() => !processExists(pid), `the backfill process ${pid} to die`, {
      timeoutMs: 15_000,
    });
    await writeFile(delay, '0\n');

    const third = startDaemon(t, ['-c', config]);
    await waitForStoreRecords(
      store,
      'catchup/backfill',
      (records) => records.at(-1)?.kind === 'close',
      { timeoutMs: 20_000, daemon: third },
    );
    assert.equal(await third.stop(), 0);
    assert.deepEqual(third.logMessages(/^Job backfill: catching up/), [
      'Job backfill: catching up 2 missed run(s) (onMissed run-all)',
    ]);
    // m1 (the second daemon), then m2 and m3 (the third), each completed once: nothing twice.
    assert.deepEqual(backfilled(), [m1, m2, m3]);
    // The interrupted m2 run is also in the ledger, as a reconciled non-verdict that leaves the
    // watermark alone (run-all: interruptedAt instead of finished_at).
    const ledger = runs();
    const reconciled = ledger.filter(isReconciledRow);
    assert.equal(reconciled.length, 1);
    assert.equal(reconciled[0]!.started_at, null);
    assert.equal(reconciled[0]!.finished_at, undefined);
    // It is the m2 backfill started after m1's had finished (the ledger's second row).
    assert.equal(ledger.indexOf(reconciled[0]!), 2);
    assert.ok(recordMs(reconciled[0]!, 'interruptedAt') >= recordMs(ledger[1]!, 'finished_at'));
    // Four completed runs (the base slot and three backfills), five starts (m2 twice).
    assert.equal(ledger.filter((row) => row.outcome === 'success').length, 4);
    assert.equal(readLines(starts).length, 5);
  },
);
