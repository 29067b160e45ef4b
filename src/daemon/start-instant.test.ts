// The daemon hands catch-up and the scheduler one start instant (docs/job-state.md, missed-run
// catch-up): a slot falling while the daemon builds its parts is caught up or fired, once.
// Time passes while the daemon starts (each clock read during start-up moves the wall clock a
// second, as a slow store open or module load would), so there are slots between the instant
// catch-up owes up to and the moment the scheduler runs its start-up pass.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FakeClock } from '../common/index.js';
import { silentLogger, type Logger } from '../logging/index.js';
import { loadConfig } from '../config/index.js';
import type { Scheduler } from '../scheduler/index.js';
import { startDaemon } from './start.js';

const T0 = Date.UTC(2026, 0, 1);
const STEP_MS = 1_000;

/** A FakeClock on which every wall-clock read costs a second while `ticking` is set. */
class StartUpClock extends FakeClock {
  ticking = false;

  override now(): number {
    if (this.ticking) this.setWall(super.now() + STEP_MS);
    return super.now();
  }
}

function recordStarts(scheduler: Scheduler, into: [string, number | null][]): void {
  scheduler.events.on('run:started', (event) => into.push([event.trigger, event.scheduledAtMs]));
}

/** A silent logger that calls `onInfo` with each info message. */
function infoLogger(onInfo: (msg: string) => void): Logger {
  return {
    ...silentLogger(),
    info: (first: string | object, second?: string) =>
      onInfo(typeof first === 'string' ? first : (second ?? '')),
  };
}

function waitFor(scheduler: Scheduler, done: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (done()) return resolve();
    const off = scheduler.events.on('run:finished', () => {
      if (!done()) return;
      off();
      resolve();
    });
  });
}

test(
  'a slot between the catch-up horizon and the scheduler start is caught up or fired exactly once',
  { timeout: 60_000 },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'yacron2-start-instant-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'jobs.yaml');
    await writeFile(
      path,
      `jobs:
  - name: tick
    command: "true"
    schedule: "* * * * * * *"
    onMissed: run-all
state:
  path: ${join(dir, 'store')}
`,
    );
    const config = await loadConfig(path);
    const options = { config, logger: silentLogger(), shutdownGraceMs: 5_000, env: {} };

    // First daemon: one run at T0 + 1 s leaves the durable watermark.
    const firstClock = new FakeClock(T0 + 500);
    const first = await startDaemon({ ...options, clock: firstClock });
    const firstRuns: [string, number | null][] = [];
    recordStarts(first.scheduler, firstRuns);
    const ran = waitFor(first.scheduler, () => firstRuns.length === 1);
    await firstClock.advance(STEP_MS);
    await ran;
    await first.stop();
    assert.deepEqual(firstRuns, [['schedule', T0 + 1_000]]);

    // Second daemon, after a downtime owing T0 + 2 s .. T0 + 5 s; start-up takes seconds.
    const clock = new StartUpClock(T0 + 5_500);
    clock.ticking = true;
    let caughtUp: number | undefined;
    const logger = infoLogger((msg) => {
      const match = /catching up (\d+) missed run/.exec(msg);
      if (match) caughtUp = Number(match[1]);
    });
    const daemon = await startDaemon({ ...options, logger, clock });
    clock.ticking = false;
    const startedAtMs = clock.now();
    assert.ok(startedAtMs >= T0 + 7_500, 'start-up took at least two slots');
    const runs: [string, number | null][] = [];
    recordStarts(daemon.scheduler, runs);
    // Every slot up to 2 s after start-up: the downtime's (catch-up), the start-up's and the
    // live ones, each once.
    const lastSlotMs = Math.floor(startedAtMs / 1_000) * 1_000 + 2_000;
    const expected: number[] = [];
    for (let slot = T0 + 2_000; slot <= lastSlotMs; slot += 1_000) expected.push(slot);
    const catchups = (): number => runs.filter(([trigger]) => trigger === 'catchup').length;
    const covered = waitFor(
      daemon.scheduler,
      () => runs.some(([, slot]) => slot === lastSlotMs) && catchups() === caughtUp,
    );
    await clock.advance(0);
    await clock.advance(lastSlotMs - startedAtMs);
    await covered;
    await daemon.stop();
    const slots = runs.map(([, slot]) => slot).sort((a, b) => (a ?? 0) - (b ?? 0));
    assert.deepEqual(slots, expected, JSON.stringify(runs));
    assert.ok(catchups() > 0);
  },
);
