// SLA trends (http-api A.8, seed "SLA trends over the ledger"): the A.7 stats object per time
// window over a job's runs. Pure: the caller reads the runs (durable ledger or in-memory history)
// and the clock; this file does no I/O and never reads time itself.
import {
  computeRunStats,
  formatIsoUtc,
  type RunRecord,
  type RunStats,
} from '../scheduler/index.js';

/** A run record with its finish instant parsed (epoch ms; NaN when unknown). */
export interface TrendRun extends RunRecord {
  readonly finishedAtMs: number;
}

export type TrendSource = 'durable' | 'memory';

/** The bounded windows, longest last; a run is in one when `now - finished <= span` (A.8). */
export const TREND_WINDOWS_MS = Object.freeze({
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 604_800_000,
  '30d': 2_592_000_000,
} as const);

export interface TrendWindows {
  readonly '1h': RunStats;
  readonly '24h': RunStats;
  readonly '7d': RunStats;
  readonly '30d': RunStats;
  /** Every run read. */
  readonly all: RunStats;
}

/** `GET /jobs/{name}/trends`; keys in the A.8 order. */
export interface TrendsView {
  readonly name: string;
  readonly source: TrendSource;
  /** Python isoformat of `nowMs`. */
  readonly generated_at: string;
  readonly windows: TrendWindows;
}

/** Unknown finish instants sort first, so they are never "the newest run". */
function sortKey(run: TrendRun): number {
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
  runs: readonly TrendRun[],
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

const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Epoch ms of an ISO 8601 instant with an explicit offset, as formatIsoUtc writes it
 * (`2026-07-04T12:00:00.123456+00:00`), keeping sub-millisecond digits; NaN otherwise.
 */
export function parseIsoInstantMs(text: string): number {
  const match = ISO_INSTANT.exec(text);
  if (!match) return NaN;
  const [, year, month, day, hour, minute, second, fraction = '', offset = 'Z'] = match;
  const wholeMs = Date.parse(`${year}-${month}-${day}T${hour}:${minute}:${second}${offset}`);
  if (Number.isNaN(wholeMs)) return NaN;
  return fraction === '' ? wholeMs : wholeMs + Number(`0.${fraction}`) * 1000;
}

/** Run records (finished_at as ISO text, e.g. the in-memory history) as trend runs. */
export function toTrendRuns(records: readonly RunRecord[]): TrendRun[] {
  return records.map((record) => ({
    ...record,
    finishedAtMs: parseIsoInstantMs(record.finished_at),
  }));
}
