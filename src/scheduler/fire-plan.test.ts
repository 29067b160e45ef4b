import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { parseSchedule } from '../schedule/index.js';
import { planDueFires } from './fire-plan.js';

const T = Date.UTC(2026, 0, 1, 12, 0, 0);

void describe('planDueFires()', () => {
  void it('fires just the slot on a punctual wake', () => {
    const plan = planDueFires(parseSchedule('* * * * *'), T, T, 60_000);
    assert.deepEqual(plan, { fires: [T], nextFireAtMs: T + 60_000, latenessMs: 0, late: false });
  });

  void it('replays every second-level occurrence of a wake less than 10 s late', () => {
    const plan = planDueFires(parseSchedule('* * * * * * *'), T, T + 3_400, 1000);
    assert.deepEqual(plan.fires, [T, T + 1000, T + 2000, T + 3000]);
    assert.equal(plan.nextFireAtMs, T + 4000);
    assert.equal(plan.late, false);
  });

  void it('fires once at ≥ 10 s late when the current slot matches, then resyncs', () => {
    const plan = planDueFires(parseSchedule('* * * * * * *'), T, T + 42_700, 1000);
    assert.deepEqual(plan.fires, [T + 42_000]);
    assert.equal(plan.nextFireAtMs, T + 43_000);
    assert.equal(plan.late, true);
  });

  void it('does not enumerate the gap when the current slot does not match', () => {
    // Every minute at second 0; woke 12:07:25, 7 minutes late: 12:07:25 is not a slot.
    const plan = planDueFires(parseSchedule('*/1 * * * *'), T, T + 445_000, 60_000);
    assert.deepEqual(plan.fires, [T + 420_000]); // the current minute 12:07 matches
    const hourly = planDueFires(parseSchedule('0 * * * *'), T, T + 445_000, 60_000);
    assert.deepEqual(hourly.fires, []);
    assert.equal(hourly.nextFireAtMs, T + 3_600_000);
  });
});
