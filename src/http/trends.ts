// SLA trends (docs/http-api.md "GET /jobs/{name}/trends"): the stats object per time window
// over a job's runs. Pure: the caller reads the runs (the durable ledger through the daemon, or
// the in-memory history) and the clock; this file does no I/O and never reads time itself.
import { formatIsoUtc } from '../common/index.js';
import type { TrendRuns } from '../durable/index.js';
import type { RunSummary } from '../scheduler/index.js';
import { computeRunStats } from './run-records.js';
import type { RunStats, TrendSource, TrendsView } from './wire/index.js';

/** The runs the windows are computed over, and where they came from. */
export type { TrendRuns };

/** The bounded windows, longest last; a run is in one when `now - finished <= span`. */
export const TREND_WINDOWS_MS = Object.freeze({
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 604_800_000,
  '30d': 2_592_000_000,
} as const);

/** Unknown finish instants sort first, so they are never "the newest run". */
function sortKey(run: RunSummary): number {
  return Number.isFinite(run.finishedAtMs) ? run.finishedAtMs : -Infinity;
}

/**
 * The trends of job `name` at `nowMs`. `runs` may come in any order (a shared ledger merges
 * nodes): they are ordered by finish instant (stable for ties) so each window's `last_*` fields
 * describe its newest run. A run with a NaN finish instant counts only in `all`; runs finished
 * after `nowMs` (another node's clock ahead of ours) count in every window, as `now - finished`
 * is then negative.
 */
export function computeTrends(
  name: string,
  runs: readonly RunSummary[],
  nowMs: number,
  source: TrendSource,
): TrendsView {
  const ordered = [...runs].sort((a, b) => {
    const ka = sortKey(a);
    const kb = sortKey(b);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  const within = (spanMs: number): RunStats =>
    computeRunStats(ordered.filter((run) => nowMs - run.finishedAtMs <= spanMs));
  return {
    name,
    source,
    generated_at: formatIsoUtc(nowMs),
    windows: {
      '1h': within(TREND_WINDOWS_MS['1h']),
      '24h': within(TREND_WINDOWS_MS['24h']),
      '7d': within(TREND_WINDOWS_MS['7d']),
      '30d': within(TREND_WINDOWS_MS['30d']),
      all: computeRunStats(ordered),
    },
  };
}
