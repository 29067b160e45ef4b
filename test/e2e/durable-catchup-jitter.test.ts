// E2E: catchupJitterSeconds (docs/durable-state.md, "Missed-run catch-up"): a job's boot backfill
// starts after a deterministic offset in [0, jitter) derived from its name, the same on every
// restart, and the backfill does not launch before the offset has elapsed. The slots are planned so
// that each downtime misses one and no live fire lands near a start-up.
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

const JITTER_SECONDS = 3;

test(
  'catchupJitterSeconds delays the boot backfill by the same offset on every restart',
  { timeout: 90_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const store = join(dir, 'store');
    // The first daemon runs `base`; each of the two downtimes then misses one slot.
    const baseMs = Math.ceil((Date.now() + 4_500) / 1000) * 1000;
    const missed = [baseMs + 4_000, baseMs + 10_000];
    const config = await writeConfig(
      dir,
      `jobs:
  - name: fleet-report
    command: "true"
    schedule: "${secondsSchedule([baseMs, ...missed])}"
    onMissed: run-once
    catchupJitterSeconds: ${JITTER_SECONDS}
state:
  path: ${store}
`,
    );
    const first = startDaemon(t, ['-c', config]);
    const [firstRun] = await waitForStoreRecords(
      store,
      'runs/fleet-report',
      (rows) => rows.length > 0,
      { timeoutMs: 20_000, daemon: first },
    );
    const firstStartMs = recordMs(firstRun!, 'started_at');
    assert.ok(
      firstStartMs >= baseMs && firstStartMs < missed[0]!,
      'the first daemon started in time for its slot',
    );
    assert.equal(await first.stop(), 0);

    const offsetsMs: number[] = [];
    for (const [index, slotMs] of missed.entries()) {
      const cycle = index + 1;
      await waitForInstant(slotMs + 500);
      const daemon = startDaemon(t, ['-c', config]);
      const announced = await daemon.waitForLog(/^Job fleet-report: catching up/, 20_000);
      const match =
        /^Job fleet-report: catching up 1 missed run\(s\) \(onMissed run-once\) after a jitter of (\d+\.\d{3}) seconds$/.exec(
          announced.msg,
        );
      assert.ok(match, announced.msg);
      const offsetMs = Math.round(Number(match[1]) * 1000);
      offsetsMs.push(offsetMs);
      // The cycle's close checkpoint follows its one backfill.
      await waitForStoreRecords(
        store,
        'catchup/fleet-report',
        (records) => records.filter((record) => record.kind === 'close').length === cycle,
        { timeoutMs: 20_000, daemon },
      );
      assert.equal(await daemon.stop(), 0);
      assert.deepEqual(
        backfilledSlots(readStoreStream(store, 'catchup/fleet-report')),
        missed.slice(0, cycle),
      );
      const rows = readStoreStream(store, 'runs/fleet-report');
      assert.equal(rows.length, 1 + cycle, 'one run per cycle besides the first daemon run');
      // Launched only once the offset had elapsed after the announcement (which precedes it).
      const launchedAfterMs = recordMs(rows.at(-1)!, 'started_at') - announced.time;
      assert.ok(
        launchedAfterMs >= offsetMs - 50 && launchedAfterMs < offsetMs + 10_000,
        `backfill launched ${launchedAfterMs} ms after the announcement, jitter ${offsetMs} ms`,
      );
    }
    const [firstOffsetMs, secondOffsetMs] = offsetsMs;
    assert.equal(secondOffsetMs, firstOffsetMs, 'the offset is stable across restarts');
    assert.ok(
      firstOffsetMs! > 0 && firstOffsetMs! < JITTER_SECONDS * 1000,
      `offset ${firstOffsetMs} ms within [0, ${JITTER_SECONDS} s)`,
    );
  },
);
