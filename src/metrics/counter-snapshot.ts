// Restart-durable per-job counters (docs/durable-state.md "Restart-durable counters"): the cumulative
// accumulators of a JobTable as the body of the reference's `counters/<host>` record
// (docs/durable-state-store.md "Record bodies"), and seeding one back into a fresh table. Does no
// I/O and keeps no state: durable/ decides when to snapshot (and adds the record's `at`), where
// to store it and when to seed. A snapshot read from disk may come from the Python reference, an
// older build or a hostile writer, so seeding checks each field alone and adds only what is
// well-typed.
// Must not: write a field name, unit or type the reference does not write.
import { pyFloat, type PyFloat } from '../common/index.js';
import type { JobTable } from './job-table.js';
import type { JobSeries } from './job-series.js';

/** Largest accepted epoch timestamp, seconds (the ECMAScript Date range). */
const MAX_EPOCH_SECONDS = 8.64e12;
/** Bucket-bound lists longer than this are never compared (a hostile file's huge array). */
const MAX_BOUNDS = 10_000;

/** One job's cumulative accumulators, as the reference names and types them. */
export interface JobCounterSnapshot {
  /** yacron2_job_runs_total by status; zero counts are left out. */
  readonly runs: Readonly<Partial<Record<'success' | 'failure' | 'cancelled', number>>>;
  readonly retries: number;
  readonly permanent_failures: number;
  readonly start_failures: number;
  /** yacron2_job_duration_seconds: sum (s), count, and the cumulative count per bound (no +Inf). */
  readonly duration_sum: PyFloat;
  readonly duration_count: number;
  readonly bucket_counts: readonly number[];
  /** Epoch seconds; null until a success / failure. */
  readonly last_success_time: PyFloat | null;
  readonly last_failure_time: PyFloat | null;
  /** yacron2_job_cpu_seconds_total by mode, over `cpu_count` monitored runs. */
  readonly cpu_user_sum: PyFloat;
  readonly cpu_system_sum: PyFloat;
  readonly cpu_count: number;
  /** yacron2_job_peak_rss_bytes; 0 until a non-zero observation. */
  readonly max_rss_observed: number;
}

/** The record body without its `at`. */
export interface CounterSnapshot {
  /** The histogram's upper bounds (seconds) the bucket counts were taken with. */
  readonly buckets: readonly PyFloat[];
  readonly jobs: Readonly<Record<string, JobCounterSnapshot>>;
}

function seconds(ms: number | null): PyFloat | null {
  return ms === null ? null : pyFloat(ms / 1000);
}

function jobSnapshot(series: JobSeries, bounds: number): JobCounterSnapshot {
  const runs: Partial<Record<'success' | 'failure' | 'cancelled', number>> = {};
  if (series.runsSuccess > 0) runs.success = series.runsSuccess;
  if (series.runsFailure > 0) runs.failure = series.runsFailure;
  if (series.runsCancelled > 0) runs.cancelled = series.runsCancelled;
  const { histogram } = series;
  const cumulative: number[] = [];
  let total = 0;
  for (let index = 0; index < bounds; index++) {
    total += histogram.counts[index] ?? 0;
    cumulative.push(total);
  }
  return {
    runs,
    retries: series.retries,
    permanent_failures: series.permanentFailures,
    start_failures: series.startFailures,
    duration_sum: pyFloat(histogram.sum),
    duration_count: histogram.count,
    bucket_counts: cumulative,
    last_success_time: seconds(series.lastSuccessMs),
    last_failure_time: seconds(series.lastFailureMs),
    cpu_user_sum: pyFloat(series.cpuUserSeconds ?? 0),
    cpu_system_sum: pyFloat(series.cpuSystemSeconds ?? 0),
    cpu_count: series.cpuCount,
    max_rss_observed: Math.round(series.peakRssBytes ?? 0),
  };
}

/** Nothing accumulated yet (a configured job that never ran): the reference writes no entry. */
function untouched(series: JobSeries): boolean {
  return (
    series.runsSuccess + series.runsFailure + series.runsCancelled === 0 &&
    series.retries + series.permanentFailures + series.startFailures === 0 &&
    series.histogram.count === 0 &&
    series.lastSuccessMs === null &&
    series.lastFailureMs === null &&
    series.cpuCount === 0 &&
    series.cpuUserSeconds === null &&
    series.peakRssBytes === null
  );
}

/** Every job with series (configured ones, and removed ones still running) that accumulated. */
export function snapshotJobTable(table: JobTable): CounterSnapshot {
  const bounds = table.layout.bounds;
  const jobs: Record<string, JobCounterSnapshot> = {};
  for (const series of table.sorted()) {
    if (!untouched(series)) jobs[series.name] = jobSnapshot(series, bounds.length);
  }
  return { buckets: bounds.map((bound) => pyFloat(bound)), jobs };
}

// ---- Seeding an untrusted snapshot --------------------------------------------------------------

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function ownField(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** A JSON integer count, or undefined. */
function count(value: unknown): number | undefined {
  return Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : undefined;
}

/** A finite, non-negative int or float no bigger than `max`, or undefined. */
function amount(value: unknown, max = Number.MAX_SAFE_INTEGER): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= max
    ? value
    : undefined;
}

function latest(current: number | null, seededSeconds: number | undefined): number | null {
  if (seededSeconds === undefined) return current;
  const seeded = seededSeconds * 1000;
  return current === null ? seeded : Math.max(current, seeded);
}

/**
 * The histogram of an entry taken with the current bounds as non-cumulative counts (one per
 * bound, then the +Inf overflow), or undefined when its count, sum or cumulative bucket counts
 * are missing, mistyped or inconsistent (they are restored together or not at all).
 */
function histogramOf(
  entry: Record<string, unknown>,
  bounds: number,
): { counts: number[]; sum: number; count: number } | undefined {
  const total = count(ownField(entry, 'duration_count'));
  const sum = amount(ownField(entry, 'duration_sum'));
  const cumulative = ownField(entry, 'bucket_counts');
  // Length first: a huge array is refused without walking it.
  if (total === undefined || sum === undefined || !Array.isArray(cumulative)) return undefined;
  if (cumulative.length !== bounds) return undefined;
  const counts: number[] = [];
  let previous = 0;
  for (const raw of cumulative as unknown[]) {
    const value = count(raw);
    if (value === undefined || value < previous || value > total) return undefined;
    counts.push(value - previous);
    previous = value;
  }
  counts.push(total - previous);
  return { counts, sum, count: total };
}

function seedEntry(series: JobSeries, entry: Record<string, unknown>, sameBounds: boolean): void {
  const runs = ownField(entry, 'runs');
  if (isRecord(runs)) {
    series.runsSuccess += count(ownField(runs, 'success')) ?? 0;
    series.runsFailure += count(ownField(runs, 'failure')) ?? 0;
    series.runsCancelled += count(ownField(runs, 'cancelled')) ?? 0;
  }
  series.retries += count(ownField(entry, 'retries')) ?? 0;
  series.permanentFailures += count(ownField(entry, 'permanent_failures')) ?? 0;
  series.startFailures += count(ownField(entry, 'start_failures')) ?? 0;
  series.lastSuccessMs = latest(
    series.lastSuccessMs,
    amount(ownField(entry, 'last_success_time'), MAX_EPOCH_SECONDS),
  );
  series.lastFailureMs = latest(
    series.lastFailureMs,
    amount(ownField(entry, 'last_failure_time'), MAX_EPOCH_SECONDS),
  );
  const cpuUser = amount(ownField(entry, 'cpu_user_sum'));
  const cpuSystem = amount(ownField(entry, 'cpu_system_sum'));
  const cpuCount = count(ownField(entry, 'cpu_count')) ?? 0;
  // yacron2_job_cpu_seconds_total exists only after a monitored run.
  if (cpuCount > 0 || (cpuUser ?? 0) > 0 || (cpuSystem ?? 0) > 0) {
    series.cpuUserSeconds = (series.cpuUserSeconds ?? 0) + (cpuUser ?? 0);
    series.cpuSystemSeconds = (series.cpuSystemSeconds ?? 0) + (cpuSystem ?? 0);
    series.cpuCount += cpuCount;
  }
  // Peak RSS is a max, and stays absent until a non-zero observation.
  const rss = count(ownField(entry, 'max_rss_observed')) ?? 0;
  if (rss > (series.peakRssBytes ?? 0)) series.peakRssBytes = rss;
  const histogram = sameBounds ? histogramOf(entry, series.histogram.counts.length - 1) : undefined;
  if (histogram !== undefined && (histogram.count !== 0 || histogram.sum !== 0)) {
    const into = series.writableHistogram();
    histogram.counts.forEach((n, index) => {
      into.counts[index] = (into.counts[index] ?? 0) + n;
    });
    into.sum += histogram.sum;
    into.count += histogram.count;
  }
}

/**
 * Add an untrusted snapshot (a `counters/<host>` record's data) into `table`'s accumulators for
 * the jobs in `configuredJobNames` that the table has a configured series for; returns how many
 * jobs were seeded. Each field is added only when it has the reference's type; the histogram
 * only when the snapshot's bounds equal the table's current ones. Never throws for any value.
 */
export function seedJobTable(
  table: JobTable,
  snapshot: unknown,
  configuredJobNames: ReadonlySet<string>,
): number {
  if (!isRecord(snapshot)) return 0;
  const jobs = ownField(snapshot, 'jobs');
  if (!isRecord(jobs)) return 0;
  const bounds = ownField(snapshot, 'buckets');
  const sameBounds =
    Array.isArray(bounds) &&
    bounds.length <= MAX_BOUNDS &&
    table.layout.sameBounds(bounds as readonly unknown[] as readonly number[]);
  let seeded = 0;
  // Walk the configured names, not the (possibly huge, hostile) object.
  for (const name of configuredJobNames) {
    const entry = ownField(jobs, name);
    const series = table.get(name);
    if (!isRecord(entry) || !series?.configured) continue;
    seedEntry(series, entry, sameBounds);
    seeded += 1;
  }
  return seeded;
}
