// computeTrends(): the stats object per window, window boundaries (inclusive) and the ordering
// of a merged ledger.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RunSummary } from '../scheduler/index.js';
import { computeRunStats } from './run-records.js';
import { computeTrends, TREND_WINDOWS_MS } from './trends.js';

const NOW = Date.UTC(2026, 6, 4, 12); // 2026-07-04T12:00:00Z
const SECOND = 1000;
const HOUR = 3600 * SECOND;
const DAY = 24 * HOUR;

function run(
  finishedAtMs: number,
  outcome: RunSummary['outcome'] = 'success',
  duration: number | null = 1,
): RunSummary {
  return {
    outcome,
    exitCode: outcome === 'success' ? 0 : outcome === 'unknown' ? null : 1,
    startedAtMs: duration === null ? null : finishedAtMs - duration * 1000,
    finishedAtMs,
    durationMs: duration === null ? null : duration * 1000,
    failReason: outcome === 'failure' ? 'failsWhen=nonzeroReturn and retcode=1' : null,
    resources: null,
  };
}

describe('computeTrends()', () => {
  test('answers the trends shape: name, source, generated_at, the five windows in order', () => {
    const view = computeTrends('nightly-report', [], NOW, 'durable');
    assert.deepEqual(Object.keys(view), ['name', 'source', 'generated_at', 'windows']);
    assert.equal(view.name, 'nightly-report');
    assert.equal(view.source, 'durable');
    assert.equal(view.generated_at, '2026-07-04T12:00:00+00:00');
    assert.deepEqual(Object.keys(view.windows), ['1h', '24h', '7d', '30d', 'all']);
    for (const stats of Object.values(view.windows)) assert.deepEqual(stats, computeRunStats([]));
    assert.equal(
      computeTrends('x', [], NOW + 1.5, 'memory').generated_at.slice(19),
      '.001500+00:00',
    );
  });

  test('each window holds the runs with now - finished <= its span, boundaries included', () => {
    const runs = [
      run(NOW - 40 * DAY), // all only
      run(NOW - 30 * DAY - 1, 'failure'), // just outside 30d
      run(NOW - 30 * DAY, 'failure'), // exactly 30d
      run(NOW - 7 * DAY - 1), // outside 7d
      run(NOW - 7 * DAY), // exactly 7d
      run(NOW - DAY - 1, 'cancelled', null),
      run(NOW - DAY),
      run(NOW - HOUR - 1, 'unknown', null),
      run(NOW - HOUR, 'failure'),
      run(NOW),
    ];
    const { windows } = computeTrends('job', runs, NOW, 'durable');
    assert.equal(windows['1h'].total, 2);
    assert.equal(windows['24h'].total, 4);
    assert.equal(windows['7d'].total, 6);
    assert.equal(windows['30d'].total, 8);
    assert.equal(windows.all.total, 10);
    // Each window is exactly the stats object over its runs.
    assert.deepEqual(windows['1h'], computeRunStats(runs.slice(-2)));
    assert.deepEqual(windows['24h'], computeRunStats(runs.slice(-4)));
    assert.deepEqual(windows['30d'], computeRunStats(runs.slice(-8)));
    assert.deepEqual(windows.all, computeRunStats(runs));
    // Cancelled and unknown runs count in the totals, not in the success rate.
    assert.equal(windows['1h'].success_rate, 0.5);
    assert.deepEqual(
      [windows['24h'].cancelled, windows['24h'].unknown, windows['24h'].success_rate],
      [0, 1, 2 / 3],
    );
    assert.equal(windows['7d'].cancelled, 1);
    assert.equal(windows['30d'].success_rate, 4 / 6);
    assert.equal(windows.all.success_rate, 5 / 8);
  });

  test('spans are 3600, 86400, 604800 and 2592000 seconds', () => {
    assert.deepEqual(TREND_WINDOWS_MS, {
      '1h': 3_600_000,
      '24h': 86_400_000,
      '7d': 604_800_000,
      '30d': 2_592_000_000,
    });
  });

  test('orders a merged ledger by finish instant, so last_duration is the newest run', () => {
    const newest = run(NOW - 10 * SECOND, 'success', 7);
    const older = run(NOW - 20 * SECOND, 'failure', 3);
    const oldest = run(NOW - 30 * SECOND, 'success', 5);
    const { windows } = computeTrends('job', [newest, oldest, older], NOW, 'durable');
    assert.equal(windows['1h'].last_duration, 7);
    assert.equal(windows.all.last_duration, 7);
    assert.equal(windows.all.min_duration, 3);
    assert.equal(windows.all.avg_duration, 5);
  });

  test('keeps the input order for runs that finished at the same instant', () => {
    const a = run(NOW - SECOND, 'success', 1);
    const b = run(NOW - SECOND, 'success', 2);
    assert.equal(computeTrends('j', [a, b], NOW, 'memory').windows.all.last_duration, 2);
    assert.equal(computeTrends('j', [b, a], NOW, 'memory').windows.all.last_duration, 1);
  });

  test('a run with an unknown finish instant counts only in all, and never as the newest', () => {
    const broken = { ...run(NOW, 'failure', 9), finishedAtMs: NaN };
    const good = run(NOW - SECOND, 'success', 2);
    const { windows } = computeTrends('j', [good, broken], NOW, 'durable');
    assert.equal(windows['1h'].total, 1);
    assert.equal(windows['30d'].total, 1);
    assert.equal(windows.all.total, 2);
    assert.equal(windows.all.last_duration, 2);
  });

  test('runs finished after now (a peer clock ahead) count in every window', () => {
    const { windows } = computeTrends('j', [run(NOW + 5 * SECOND)], NOW, 'durable');
    assert.equal(windows['1h'].total, 1);
    assert.equal(windows.all.total, 1);
  });

  test('does not reorder or change the caller’s array', () => {
    const runs = [run(NOW - SECOND), run(NOW - 2 * SECOND)];
    const copy = [...runs];
    computeTrends('j', runs, NOW, 'durable');
    assert.deepEqual(runs, copy);
  });
});
