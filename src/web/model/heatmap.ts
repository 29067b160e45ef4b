// The activity heatmap (docs/dashboard.md "Panels"): each job's finished runs counted
// into 24 time buckets across a window; a cell's colour is its worst outcome, its shade the
// volume. Pure.
import type { RunOutcome, RunRecord } from './api-types.js';
import { parseIso } from './format.js';

export const HEATMAP_WINDOWS = {
  '6h': 6 * 3_600_000,
  '24h': 24 * 3_600_000,
  '7d': 7 * 86_400_000,
} as const;
export type HeatmapWindow = keyof typeof HEATMAP_WINDOWS;
export const HEATMAP_BUCKETS = 24;

export interface HeatCell {
  readonly total: number;
  readonly counts: Readonly<Record<RunOutcome, number>>;
  readonly worst: RunOutcome | null;
}

const SEVERITY: Readonly<Record<RunOutcome, number>> = {
  success: 0,
  cancelled: 1,
  unknown: 2,
  failure: 3,
};

/** Buckets oldest first; the last one ends at nowMs. Runs outside the window are ignored. */
export function bucketRuns(
  runs: readonly RunRecord[],
  nowMs: number,
  windowMs: number,
): HeatCell[] {
  const size = windowMs / HEATMAP_BUCKETS;
  const start = nowMs - windowMs;
  const counts = Array.from({ length: HEATMAP_BUCKETS }, () => ({
    success: 0,
    failure: 0,
    cancelled: 0,
    unknown: 0,
  }));
  for (const run of runs) {
    const at = parseIso(run.finished_at);
    if (at === null || at <= start || at > nowMs) continue;
    const index = Math.min(HEATMAP_BUCKETS - 1, Math.floor((at - start) / size));
    counts[index]![run.outcome] += 1;
  }
  return counts.map((cell) => {
    let worst: RunOutcome | null = null;
    for (const outcome of ['success', 'cancelled', 'unknown', 'failure'] as const) {
      if (cell[outcome] > 0 && (worst === null || SEVERITY[outcome] > SEVERITY[worst]))
        worst = outcome;
    }
    return {
      total: cell.success + cell.failure + cell.cancelled + cell.unknown,
      counts: cell,
      worst,
    };
  });
}

/** Shade level 1-4 of a cell relative to the busiest cell of the map (0 = empty). */
export function shadeLevel(total: number, busiest: number): number {
  if (total === 0 || busiest === 0) return 0;
  return Math.max(1, Math.ceil((total / busiest) * 4));
}
