import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ledgerStats, median, SLOW_MIN_SAMPLES } from './ledger-baseline.js';
import type { LedgerRun } from './run-ledger.js';

function run(index: number, durationS: number | null, outcome: LedgerRun['outcome'] = 'success') {
  return {
    id: `j||${index}`,
    job: 'j',
    startedAt: null,
    finishedAt: String(index),
    finishedMs: index * 1000,
    outcome,
    exitCode: outcome === 'success' ? 0 : 1,
    durationS,
    failReason: null,
  } satisfies LedgerRun;
}

/** Seven steady runs around 10 s. */
const STEADY = [10, 11, 9, 10, 10.5, 9.5, 10].map((d, i) => run(i, d));

describe('median', () => {
  it('takes the middle value, or the mean of the middle two', () => {
    assert.equal(median([]), null);
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
  });
});

describe('ledgerStats', () => {
  it('is still learning below the minimum of successful runs', () => {
    const stats = ledgerStats([...STEADY, run(7, 100)].slice(0, SLOW_MIN_SAMPLES - 1));
    assert.deepEqual(stats.baseline, { kind: 'learning', samples: 7 });
    assert.equal(stats.slow, false);
    assert.equal(stats.latest, null);
  });

  it('flags a latest success far above the median and its spread', () => {
    const stats = ledgerStats([...STEADY, run(7, 30)]);
    assert.equal(stats.baseline.kind, 'ready');
    assert.equal(stats.slow, true);
    // Median of 8 samples (9, 9.5, 10, 10, 10, 10.5, 11, 30) = 10.
    assert.deepEqual(stats.latest, { durationS: 30, ratio: 3 });
    assert.equal(stats.runs, 8);
    assert.equal(stats.ok, 8);
    assert.equal(stats.oldestMs, 0);
  });

  it('needs both rules: above median + 3.5 MAD and above 1.5 × the median', () => {
    // 14 s: over 1.5×? no (15 needed) though far over median + 3.5 MAD (10 + 3.5 × 0.5).
    assert.equal(ledgerStats([...STEADY, run(7, 14)]).slow, false);
    // A noisy job: 1.6× the median but within its spread.
    const noisy = [5, 15, 8, 12, 20, 4, 10].map((d, i) => run(i, d));
    const stats = ledgerStats([...noisy, run(7, 17)]);
    assert.equal(stats.baseline.kind, 'ready');
    assert.equal(stats.slow, false);
  });

  it('judges the newest timed run that was not cancelled, and only a success is slow', () => {
    const slowThenCancelled = [...STEADY, run(7, 10), run(8, 40), run(9, 500, 'cancelled')];
    assert.equal(ledgerStats(slowThenCancelled).slow, true);
    const slowFailure = [...STEADY, run(7, 10), run(8, 40, 'failure')];
    const stats = ledgerStats(slowFailure);
    assert.equal(stats.slow, false);
    assert.equal(stats.latest?.ratio, 4);
    assert.equal(ledgerStats([...STEADY, run(7, 10), run(8, null)]).slow, false);
  });

  it('calls a failure after at least eight successes in a row a regression', () => {
    const eight = [...STEADY, run(7, 10)];
    assert.equal(ledgerStats([...eight, run(8, 10, 'failure')]).regressed, true);
    assert.equal(ledgerStats([...STEADY, run(8, 10, 'failure')]).regressed, false);
    assert.equal(ledgerStats(eight).regressed, false);
    assert.equal(ledgerStats([...eight, run(8, 10, 'failure')]).failed, 1);
  });

  it('has no figures for no runs', () => {
    const stats = ledgerStats([]);
    assert.equal(stats.runs, 0);
    assert.equal(stats.oldestMs, null);
    assert.equal(stats.slow, false);
  });
});
