import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import type { RunOutcome } from '../runner/index.js';
import { buildRunRecord, computeRunStats, formatIsoUtc, RunHistory } from './history.js';
import type { RunRecord } from './types.js';

function outcome(overrides: Partial<RunOutcome> = {}): RunOutcome {
  return {
    kind: 'succeeded',
    exitCode: 0,
    failReason: null,
    cancelReason: null,
    pid: 7,
    startedAtMs: Date.UTC(2026, 5, 21, 12, 0, 0),
    finishedAtMs: Date.UTC(2026, 5, 21, 12, 0, 1, 500),
    durationMs: 1500,
    stdout: null,
    stderr: null,
    environment: null,
    spawnError: null,
    ...overrides,
  };
}

function record(overrides: Partial<RunRecord>): RunRecord {
  return {
    outcome: 'success',
    exit_code: 0,
    started_at: null,
    finished_at: '2026-06-21T12:00:00+00:00',
    duration: null,
    fail_reason: null,
    resources: null,
    ...overrides,
  };
}

void describe('formatIsoUtc()', () => {
  void it('matches Python isoformat: no fraction on whole seconds, microseconds otherwise', () => {
    assert.equal(formatIsoUtc(Date.UTC(2026, 5, 21, 12, 0, 0)), '2026-06-21T12:00:00+00:00');
    assert.equal(
      formatIsoUtc(Date.UTC(2026, 5, 21, 12, 0, 0, 123)),
      '2026-06-21T12:00:00.123000+00:00',
    );
    assert.equal(
      formatIsoUtc(Date.UTC(2026, 5, 21, 12, 0, 0, 5) + 0.25),
      '2026-06-21T12:00:00.005250+00:00',
    );
  });
});

void describe('buildRunRecord()', () => {
  void it('records a success with ISO instants and the duration in seconds', () => {
    assert.deepEqual(buildRunRecord(outcome(), false), {
      outcome: 'success',
      exit_code: 0,
      started_at: '2026-06-21T12:00:00+00:00',
      finished_at: '2026-06-21T12:00:01.500000+00:00',
      duration: 1.5,
      fail_reason: null,
      resources: null,
    });
  });

  void it('records a failure with its fail_reason', () => {
    const failed = buildRunRecord(
      outcome({ kind: 'failed', exitCode: 3, failReason: 'failsWhen=nonzeroReturn and retcode=3' }),
      false,
    );
    assert.equal(failed.outcome, 'failure');
    assert.equal(failed.fail_reason, 'failsWhen=nonzeroReturn and retcode=3');
  });

  void it('records a manual cancel as cancelled via web UI', () => {
    const cancelled = buildRunRecord(
      outcome({
        kind: 'killed',
        exitCode: -15,
        failReason: 'failsWhen=nonzeroReturn and retcode=-15',
      }),
      true,
    );
    assert.equal(cancelled.outcome, 'cancelled');
    assert.equal(cancelled.exit_code, -15);
    assert.equal(cancelled.fail_reason, 'cancelled via web UI');
  });
});

void describe('RunHistory', () => {
  void it('keeps the newest 50 runs, oldest first', () => {
    const history = new RunHistory();
    for (let i = 0; i < 60; i++) history.push(record({ exit_code: i }));
    const runs = history.list();
    assert.equal(runs.length, 50);
    assert.equal(runs[0]?.exit_code, 10);
    assert.equal(history.last()?.exit_code, 59);
    assert.deepEqual(
      history.newest(2).map((run) => run.exit_code),
      [58, 59],
    );
  });
});

void describe('computeRunStats()', () => {
  void it('is all zeros and nulls for no runs', () => {
    assert.deepEqual(computeRunStats([]), {
      total: 0,
      success: 0,
      failure: 0,
      cancelled: 0,
      unknown: 0,
      success_rate: null,
      avg_duration: null,
      min_duration: null,
      max_duration: null,
      last_duration: null,
      avg_cpu_seconds: null,
      max_cpu_seconds: null,
      last_cpu_seconds: null,
      avg_rss_bytes: null,
      max_rss_bytes: null,
      last_rss_bytes: null,
    });
  });

  void it('excludes cancelled and unknown runs from success_rate and null durations from averages', () => {
    const resources = (cpu: number, rss: number) => ({
      cpu_user_seconds: cpu,
      cpu_system_seconds: 0,
      cpu_total_seconds: cpu,
      max_rss_bytes: rss,
      samples: 1,
    });
    const stats = computeRunStats([
      record({ outcome: 'success', duration: 1, resources: resources(2, 100) }),
      record({ outcome: 'failure', duration: 3, resources: resources(4, 300) }),
      record({ outcome: 'success', duration: 2 }),
      record({ outcome: 'unknown', duration: null }),
      record({ outcome: 'cancelled', duration: 6 }),
    ]);
    assert.deepEqual(stats, {
      total: 5,
      success: 2,
      failure: 1,
      cancelled: 1,
      unknown: 1,
      success_rate: 2 / 3,
      avg_duration: 3,
      min_duration: 1,
      max_duration: 6,
      last_duration: 6,
      avg_cpu_seconds: 3,
      max_cpu_seconds: 4,
      last_cpu_seconds: null,
      avg_rss_bytes: 200,
      max_rss_bytes: 300,
      last_rss_bytes: null,
    });
  });
});
