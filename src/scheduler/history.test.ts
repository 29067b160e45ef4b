import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import type { RunOutcome } from '../runner/index.js';
import { runOutcome, type LooseOutcome } from '../runner/testing.js';
import { RunHistory, summarizeRun, type RunSummary } from './history.js';

function outcome(overrides: Partial<LooseOutcome> = {}): RunOutcome {
  return runOutcome({
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
  });
}

function summary(overrides: Partial<RunSummary>): RunSummary {
  return {
    outcome: 'success',
    exitCode: 0,
    startedAtMs: null,
    finishedAtMs: Date.UTC(2026, 5, 21, 12),
    durationMs: null,
    failReason: null,
    resources: null,
    ...overrides,
  };
}

void describe('summarizeRun()', () => {
  void it('summarizes a success in epoch milliseconds', () => {
    assert.deepEqual(summarizeRun(outcome(), false), {
      outcome: 'success',
      exitCode: 0,
      startedAtMs: Date.UTC(2026, 5, 21, 12, 0, 0),
      finishedAtMs: Date.UTC(2026, 5, 21, 12, 0, 1, 500),
      durationMs: 1500,
      failReason: null,
      resources: null,
    });
  });

  void it('summarizes a failure with its fail reason', () => {
    const failed = summarizeRun(
      outcome({ kind: 'failed', exitCode: 3, failReason: 'failsWhen=nonzeroReturn and retcode=3' }),
      false,
    );
    assert.equal(failed.outcome, 'failure');
    assert.equal(failed.failReason, 'failsWhen=nonzeroReturn and retcode=3');
  });

  void it('summarizes a manual cancel as cancelled via web UI', () => {
    const cancelled = summarizeRun(
      outcome({
        kind: 'killed',
        exitCode: -15,
        failReason: 'failsWhen=nonzeroReturn and retcode=-15',
      }),
      true,
    );
    assert.equal(cancelled.outcome, 'cancelled');
    assert.equal(cancelled.exitCode, -15);
    assert.equal(cancelled.failReason, 'cancelled via web UI');
  });
});

void describe('RunHistory', () => {
  void it('keeps the newest 50 runs, oldest first', () => {
    const history = new RunHistory();
    for (let i = 0; i < 60; i++) history.push(summary({ exitCode: i }));
    const runs = history.list();
    assert.equal(runs.length, 50);
    assert.equal(runs[0]?.exitCode, 10);
    assert.equal(history.last()?.exitCode, 59);
    assert.deepEqual(
      history.newest(2).map((run) => run.exitCode),
      [58, 59],
    );
  });
});
