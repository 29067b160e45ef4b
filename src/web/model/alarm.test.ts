import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ALARM_TONE_EVERY_MS,
  ALARM_TONE_MAX,
  NO_ALARM,
  acknowledge,
  alarmState,
  failingJobs,
  observeFailures,
  tonesDue,
} from './alarm.js';
import { makeJobWire, makeRun } from './job-fixture.test.js';

describe('failingJobs', () => {
  it('counts enabled jobs whose last run failed, running again or not', () => {
    const jobs = [
      makeJobWire({ name: 'ok', last_run: makeRun() }),
      makeJobWire({ name: 'bad', last_run: makeRun({ outcome: 'failure' }) }),
      makeJobWire({ name: 'retry', running: true, last_run: makeRun({ outcome: 'failure' }) }),
      makeJobWire({ name: 'off', enabled: false, last_run: makeRun({ outcome: 'failure' }) }),
      makeJobWire({ name: 'never' }),
    ];
    assert.deepEqual(failingJobs(jobs), ['bad', 'retry']);
  });
});

describe('the alarm', () => {
  it('is idle while nothing fails', () => {
    assert.deepEqual(alarmState(observeFailures(NO_ALARM, [], 1000)), { kind: 'idle' });
  });

  it('is active from the first failure seen, keeping each job’s first-seen time', () => {
    let memory = observeFailures(NO_ALARM, ['b'], 1000);
    memory = observeFailures(memory, ['b', 'a'], 5000);
    assert.deepEqual(alarmState(memory), {
      kind: 'active',
      sinceMs: 1000,
      unacknowledged: ['a', 'b'],
    });
  });

  it('acknowledging silences it until a new failure appears', () => {
    let memory = observeFailures(NO_ALARM, ['a'], 1000);
    memory = acknowledge(memory);
    assert.deepEqual(alarmState(memory), { kind: 'acknowledged', sinceMs: 1000, failing: 1 });
    memory = observeFailures(memory, ['a'], 9000);
    assert.equal(alarmState(memory).kind, 'acknowledged', 'the same failure stays quiet');
    memory = observeFailures(memory, ['a', 'b'], 12_000);
    assert.deepEqual(alarmState(memory), {
      kind: 'active',
      sinceMs: 12_000,
      unacknowledged: ['b'],
    });
  });

  it('a job that recovers leaves the sets; failing again is a new failure', () => {
    let memory = acknowledge(observeFailures(NO_ALARM, ['a', 'b'], 1000));
    memory = observeFailures(memory, ['b'], 2000);
    assert.deepEqual([...memory.failSince.keys()], ['b']);
    assert.deepEqual([...memory.acknowledged], ['b']);
    memory = observeFailures(memory, [], 3000);
    assert.deepEqual(alarmState(memory), { kind: 'idle' });
    memory = observeFailures(memory, ['a'], 4000);
    assert.deepEqual(alarmState(memory), { kind: 'active', sinceMs: 4000, unacknowledged: ['a'] });
  });
});

describe('the standing alarm tones', () => {
  it('are due at once, then every interval, capped, and none once acknowledged', () => {
    let memory = observeFailures(NO_ALARM, ['a'], 10_000);
    assert.equal(tonesDue(memory, 10_000), 1);
    assert.equal(tonesDue(memory, 10_000 + ALARM_TONE_EVERY_MS - 1), 1);
    assert.equal(tonesDue(memory, 10_000 + ALARM_TONE_EVERY_MS), 2);
    assert.equal(tonesDue(memory, 10_000 + 1000 * ALARM_TONE_EVERY_MS), ALARM_TONE_MAX);
    memory = acknowledge(memory);
    assert.equal(tonesDue(memory, 20_000), 0);
  });

  it('a new failure restarts the count; recovering of all unacknowledged stops it', () => {
    let memory = observeFailures(NO_ALARM, ['a'], 0);
    memory = observeFailures(memory, ['a', 'b'], 60_000);
    assert.equal(tonesDue(memory, 60_000), 1);
    memory = acknowledge(memory);
    memory = observeFailures(memory, ['a', 'b', 'c'], 70_000);
    assert.equal(tonesDue(memory, 70_000), 1);
    memory = observeFailures(memory, ['a', 'b'], 71_000);
    assert.equal(tonesDue(memory, 80_000), 0);
  });
});
