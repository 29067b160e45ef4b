import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSchedule } from '../schedule/index.js';
import {
  catchupJitterOffsetMs,
  catchupWatermark,
  MAX_STEPS,
  planCatchup,
  RUN_ALL_CAP,
  type CatchupInput,
  type CatchupPlan,
} from './catchup-plan.js';

const hourly = parseSchedule('0 * * * *');
const at = (iso: string): number => Date.parse(iso);

/** An hourly run-all job last seen at 00:30, started again at 05:10; override what a case needs. */
function hourlyPlan(overrides: Partial<CatchupInput> = {}): CatchupPlan {
  return planCatchup({
    schedule: hourly,
    onMissed: 'run-all',
    watermarkMs: at('2026-03-01T00:30:00Z'),
    untilMs: at('2026-03-01T05:10:00Z'),
    startingDeadlineMs: null,
    ...overrides,
  });
}

void test('skip never plans a backfill, whatever was missed', () => {
  const plan = hourlyPlan({ onMissed: 'skip' });
  assert.deepEqual(plan.slots, []);
});

void test('run-once coalesces five missed slots into one launch of the newest', () => {
  const plan = hourlyPlan({ onMissed: 'run-once' });
  assert.deepEqual(plan.slots, [at('2026-03-01T05:00:00Z')]);
  assert.equal(plan.missed, 5);
  assert.equal(plan.droppedByCap, 0);
});

void test('run-all replays each missed slot oldest first', () => {
  const plan = hourlyPlan({ untilMs: at('2026-03-01T03:00:00Z') });
  assert.deepEqual(plan.slots, [
    at('2026-03-01T01:00:00Z'),
    at('2026-03-01T02:00:00Z'),
    at('2026-03-01T03:00:00Z'),
  ]);
});

void test('run-all keeps the newest 100 slots and reports the rest as dropped by the cap', () => {
  const plan = hourlyPlan({ untilMs: at('2026-03-08T00:30:00Z') });
  assert.equal(plan.missed, 168);
  assert.equal(plan.slots.length, RUN_ALL_CAP);
  assert.equal(plan.droppedByCap, 68);
  assert.equal(plan.slots.at(-1), at('2026-03-08T00:00:00Z'));
});

void test('startingDeadlineSeconds drops slots older than the deadline', () => {
  const plan = hourlyPlan({ startingDeadlineMs: 2.5 * 3_600_000 });
  assert.deepEqual(plan.slots, [
    at('2026-03-01T03:00:00Z'),
    at('2026-03-01T04:00:00Z'),
    at('2026-03-01T05:00:00Z'),
  ]);
  assert.equal(plan.droppedByDeadline, true);
});

void test('a watermark at or after the window owes nothing', () => {
  for (const watermark of ['2026-03-01T05:10:00Z', '2026-03-01T06:00:00Z']) {
    const plan = hourlyPlan({ watermarkMs: at(watermark) });
    assert.deepEqual(plan.slots, []);
  }
});

void test('a resumed checkpoint owes the slots after its watermark (the last one backfilled)', () => {
  const plan = hourlyPlan({
    watermarkMs: at('2026-03-01T01:00:00Z'),
    untilMs: at('2026-03-01T03:00:00Z'),
  });
  assert.deepEqual(plan.slots, [at('2026-03-01T02:00:00Z'), at('2026-03-01T03:00:00Z')]);
});

void test('stepping is DST-correct: New York spring-forward owes the slots the live loop would fire', () => {
  // 02:30 does not exist on 2026-03-08 in New York; the live scheduler fires it at 03:30 EDT.
  const daily = parseSchedule('30 2 * * *', { timezone: 'America/New_York' });
  const plan = planCatchup({
    schedule: daily,
    onMissed: 'run-all',
    watermarkMs: at('2026-03-06T12:00:00Z'),
    untilMs: at('2026-03-09T12:00:00Z'),
    startingDeadlineMs: null,
  });
  assert.deepEqual(plan.slots, [
    at('2026-03-07T07:30:00Z'), // 02:30 EST
    at('2026-03-08T07:30:00Z'), // the skipped 02:30, fired at 03:30 EDT
    at('2026-03-09T06:30:00Z'), // 02:30 EDT
  ]);
});

/** A per-second job down since the epoch, back MAX_STEPS + 10 s later: too many slots to count. */
const LONG_OUTAGE_UNTIL_MS = (MAX_STEPS + 10) * 1000;

function longOutagePlan(overrides: Partial<CatchupInput>): CatchupPlan {
  return planCatchup({
    schedule: parseSchedule('* * * * * * *'),
    onMissed: 'run-once',
    watermarkMs: 0,
    untilMs: LONG_OUTAGE_UNTIL_MS,
    startingDeadlineMs: null,
    ...overrides,
  });
}

void test('run-once after more than MAX_STEPS missed slots still plans the newest slot', () => {
  const plan = longOutagePlan({ untilMs: LONG_OUTAGE_UNTIL_MS + 500 });
  assert.deepEqual(plan.slots, [LONG_OUTAGE_UNTIL_MS]);
  assert.equal(plan.droppedByCap, 0);
  assert.equal(plan.missedIsLowerBound, true);
  assert.ok(plan.missed >= MAX_STEPS);
});

void test('run-all after more than MAX_STEPS missed slots replays the newest RUN_ALL_CAP of them', () => {
  const plan = longOutagePlan({ onMissed: 'run-all' });
  assert.equal(plan.slots.length, RUN_ALL_CAP);
  assert.equal(plan.slots.at(-1), LONG_OUTAGE_UNTIL_MS);
  assert.equal(plan.slots[0], LONG_OUTAGE_UNTIL_MS - (RUN_ALL_CAP - 1) * 1000);
  assert.equal(plan.missedIsLowerBound, true);
  assert.ok(plan.droppedByCap > 0);
});

void test('the newest slot is found without stepping a dense past: per-second slots of 2025 only', () => {
  // Every second of 2025, nothing after: the newest slot before mid-2026 is 2025's last second.
  const only2025 = parseSchedule('* * * * * * 2025');
  const plan = planCatchup({
    schedule: only2025,
    onMissed: 'run-once',
    watermarkMs: at('2025-01-01T00:00:00Z'),
    untilMs: at('2026-06-01T00:00:00Z'),
    startingDeadlineMs: null,
  });
  assert.deepEqual(plan.slots, [at('2025-12-31T23:59:59Z')]);
});

void test('the jitter offset is derived from the name: stable, in range, different per job', () => {
  const a = catchupJitterOffsetMs('nightly-report', 300_000);
  assert.equal(catchupJitterOffsetMs('nightly-report', 300_000), a);
  assert.ok(a >= 0 && a < 300_000);
  assert.notEqual(catchupJitterOffsetMs('other-job', 300_000), a);
  assert.equal(catchupJitterOffsetMs('nightly-report', 0), 0);
});

void test("the jitter offset is the reference's: crc32 of the UTF-8 name modulo the jitter in ms", () => {
  // Python: zlib.crc32(b'nightly-report') % 300000 == 164496, and so on.
  assert.equal(catchupJitterOffsetMs('nightly-report', 300_000), 164_496);
  assert.equal(catchupJitterOffsetMs('other-job', 300_000), 203_420);
  assert.equal(catchupJitterOffsetMs('é-job', 300_000), 254_743);
  assert.equal(catchupJitterOffsetMs('a', 1_000), 3904355907 % 1_000);
});

void test('the watermark: the newest of the ledger and the runs started elsewhere, raised by a close', () => {
  const none = { resumeFromMs: null, ledgerMs: null, closedAtMs: null, startedElsewhereMs: null };
  assert.equal(catchupWatermark(none), null, 'no reference point');
  assert.equal(catchupWatermark({ ...none, closedAtMs: 5 }), null, 'a close alone is none');
  assert.equal(catchupWatermark({ ...none, ledgerMs: 10 }), 10);
  // A run another process began (no row yet) covers its slot like a finished row would.
  assert.equal(catchupWatermark({ ...none, ledgerMs: 10, startedElsewhereMs: 20 }), 20);
  assert.equal(catchupWatermark({ ...none, ledgerMs: 30, startedElsewhereMs: 20 }), 30);
  assert.equal(catchupWatermark({ ...none, startedElsewhereMs: 20 }), 20, 'a reference point');
  assert.equal(catchupWatermark({ ...none, ledgerMs: 10, closedAtMs: 40 }), 40);
  assert.equal(catchupWatermark({ ...none, startedElsewhereMs: 20, closedAtMs: 40 }), 40);
  // Resuming a backfill: its checkpoint alone decides (backfills' rows and records are later
  // than the slots they ran).
  assert.equal(
    catchupWatermark({ resumeFromMs: 1, ledgerMs: 10, closedAtMs: 40, startedElsewhereMs: 20 }),
    1,
  );
});

void test('a slot whose run began elsewhere is not owed; the slots before it are not either', () => {
  // Another node began the 05:00 slot at 05:00:02 and stopped before its row landed; the ledger's
  // newest run is the 00:30 one.
  const watermarkMs = catchupWatermark({
    resumeFromMs: null,
    ledgerMs: at('2026-03-01T00:30:00Z'),
    closedAtMs: null,
    startedElsewhereMs: at('2026-03-01T05:00:02Z'),
  });
  assert.deepEqual(hourlyPlan({ watermarkMs: watermarkMs ?? 0 }).slots, []);
  const earlier = catchupWatermark({
    resumeFromMs: null,
    ledgerMs: at('2026-03-01T00:30:00Z'),
    closedAtMs: null,
    startedElsewhereMs: at('2026-03-01T03:00:01Z'),
  });
  assert.deepEqual(hourlyPlan({ watermarkMs: earlier ?? 0 }).slots, [
    at('2026-03-01T04:00:00Z'),
    at('2026-03-01T05:00:00Z'),
  ]);
});
