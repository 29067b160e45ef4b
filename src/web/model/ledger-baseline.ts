// A job's long-horizon figures from the browser run ledger and the `slow` verdict
// (docs/dashboard.md "Run ledger, notifications and cues"). The baseline is robust: the median
// and the median absolute deviation (MAD) of the job's successful runs' durations. The latest
// run — the newest with a duration that was not cancelled — is slow when it succeeded and took
// longer than median + 3.5 × MAD and longer than 1.5 × the median, once at least 8 successful
// runs are known. A failure right after at least 8 successes in a row is a regression. Pure.
import type { LedgerRun } from './run-ledger.js';

/** Successful runs needed before a run can be called slow. */
export const SLOW_MIN_SAMPLES = 8;
/** How many MADs above the median a slow run is. */
export const SLOW_MAD_K = 3.5;
/** And at least this many times the median (a steady job's MAD can be near zero). */
export const SLOW_MEDIAN_FACTOR = 1.5;
/** Successes in a row before a failure that makes it a regression. */
export const REGRESSION_STREAK = 8;

export type Baseline =
  | { readonly kind: 'learning'; readonly samples: number }
  | {
      readonly kind: 'ready';
      readonly samples: number;
      readonly medianS: number;
      readonly madS: number;
    };

export interface LedgerStats {
  readonly runs: number;
  readonly ok: number;
  readonly failed: number;
  /** Finish instant of the oldest row (epoch ms); null with none. */
  readonly oldestMs: number | null;
  readonly baseline: Baseline;
  /** The latest run against the median: set when the baseline is ready and the median > 0. */
  readonly latest: { readonly durationS: number; readonly ratio: number } | null;
  /** The `slow` chip: the latest successful run is far above the baseline. */
  readonly slow: boolean;
  readonly regressed: boolean;
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The figures of one job's rows (oldest first). */
export function ledgerStats(runs: readonly LedgerRun[]): LedgerStats {
  let ok = 0;
  let failed = 0;
  const durations: number[] = [];
  for (const run of runs) {
    if (run.outcome === 'success') {
      ok += 1;
      if (run.durationS !== null) durations.push(run.durationS);
    } else if (run.outcome === 'failure') failed += 1;
  }
  const medianS = durations.length >= SLOW_MIN_SAMPLES ? median(durations) : null;
  let baseline: Baseline = { kind: 'learning', samples: durations.length };
  let latest: LedgerStats['latest'] = null;
  let slow = false;
  if (medianS !== null) {
    const madS = median(durations.map((d) => Math.abs(d - medianS))) ?? 0;
    baseline = { kind: 'ready', samples: durations.length, medianS, madS };
    const last = latestTimed(runs);
    if (last !== null && last.durationS !== null && medianS > 0) {
      latest = { durationS: last.durationS, ratio: last.durationS / medianS };
      slow =
        last.outcome === 'success' &&
        last.durationS > medianS + SLOW_MAD_K * madS &&
        last.durationS > medianS * SLOW_MEDIAN_FACTOR;
    }
  }
  return {
    runs: runs.length,
    ok,
    failed,
    oldestMs: runs[0]?.finishedMs ?? null,
    baseline,
    latest,
    slow,
    regressed: regressed(runs),
  };
}

function latestTimed(runs: readonly LedgerRun[]): LedgerRun | null {
  for (let i = runs.length - 1; i >= 0; i--) {
    const run = runs[i]!;
    if (run.durationS !== null && run.outcome !== 'cancelled') return run;
  }
  return null;
}

function regressed(runs: readonly LedgerRun[]): boolean {
  if (runs[runs.length - 1]?.outcome !== 'failure') return false;
  let streak = 0;
  for (let i = runs.length - 2; i >= 0 && runs[i]!.outcome === 'success'; i--) streak += 1;
  return streak >= REGRESSION_STREAK;
}
