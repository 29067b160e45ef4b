// Restart-durable per-job counters (seed "Restart-durable Prometheus counters"): a plain JSON
// snapshot of the cumulative accumulators of a JobTable, and seeding one back into a fresh table.
// Does no I/O and keeps no state: durable/ decides when to snapshot, where to store it and when
// to seed. A snapshot read from disk is untrusted, so seeding validates every field it uses.
import type { JobTable } from './job-table.js';

export const COUNTER_SNAPSHOT_VERSION = 1;

/** Largest accepted epoch-ms timestamp (the ECMAScript Date range). */
const MAX_EPOCH_MS = 8.64e15;
/** Bucket-bound lists longer than this are never compared (a hostile file's huge array). */
const MAX_BOUNDS = 10_000;

/** One job's cumulative accumulators (spec/metrics.md §3, the cumulative families). */
export interface JobCounterSnapshot {
  readonly name: string;
  /** yacron2_job_runs_total by status. */
  readonly runs: {
    readonly success: number;
    readonly failure: number;
    readonly cancelled: number;
  };
  readonly retries: number;
  readonly permanentFailures: number;
  readonly startFailures: number;
  /**
   * yacron2_job_duration_seconds: NON-cumulative counts, one per bound of the snapshot's
   * `durationBucketsSeconds` plus the +Inf overflow; sum in seconds.
   */
  readonly duration: {
    readonly counts: readonly number[];
    readonly sum: number;
    readonly count: number;
  };
  /** Epoch ms; null until a success / failure. */
  readonly lastSuccessMs: number | null;
  readonly lastFailureMs: number | null;
  /** yacron2_job_cpu_seconds_total by mode; both null until the first monitored run. */
  readonly cpuUserSeconds: number | null;
  readonly cpuSystemSeconds: number | null;
  /** yacron2_job_peak_rss_bytes; null until a non-zero observation. */
  readonly peakRssBytes: number | null;
}

/** Every per-job series' accumulators; plain JSON (finite numbers, arrays, null). */
export interface CounterSnapshot {
  readonly version: typeof COUNTER_SNAPSHOT_VERSION;
  /** The histogram bounds the `duration.counts` were taken with (seconds, +Inf implied). */
  readonly durationBucketsSeconds: readonly number[];
  /** In job-name order. */
  readonly jobs: readonly JobCounterSnapshot[];
}

export function snapshotJobTable(table: JobTable): CounterSnapshot {
  return {
    version: COUNTER_SNAPSHOT_VERSION,
    durationBucketsSeconds: [...table.layout.bounds],
    jobs: table.sorted().map((series) => ({
      name: series.name,
      runs: {
        success: series.runsSuccess,
        failure: series.runsFailure,
        cancelled: series.runsCancelled,
      },
      retries: series.retries,
      permanentFailures: series.permanentFailures,
      startFailures: series.startFailures,
      duration: {
        counts: [...series.histogram.counts],
        sum: series.histogram.sum,
        count: series.histogram.count,
      },
      lastSuccessMs: series.lastSuccessMs,
      lastFailureMs: series.lastFailureMs,
      cpuUserSeconds: series.cpuUserSeconds,
      cpuSystemSeconds: series.cpuSystemSeconds,
      peakRssBytes: series.peakRssBytes,
    })),
  };
}

// ---- Validation of an untrusted snapshot ------------------------------------------------------

/** Marks a field that failed validation (distinct from a valid null). */
const INVALID = Symbol('invalid');
type Checked<T> = T | typeof INVALID;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function ownField(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function count(value: unknown): Checked<number> {
  return Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : INVALID;
}

/** A finite, non-negative amount no bigger than `max`. */
function amount(value: unknown, max = Number.MAX_SAFE_INTEGER): Checked<number> {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= max
    ? value
    : INVALID;
}

/** Absent or null → null (an accumulator that never moved); else an amount. */
function optionalAmount(value: unknown, max?: number): Checked<number | null> {
  return value === undefined || value === null ? null : amount(value, max);
}

interface SeedHistogram {
  readonly counts: readonly number[];
  readonly sum: number;
  readonly count: number;
}

/** The histogram of an entry taken with the current bounds (`slots` = bounds + 1), or INVALID. */
function parseHistogram(value: unknown, slots: number): Checked<SeedHistogram> {
  if (!isRecord(value)) return INVALID;
  const rawCounts = ownField(value, 'counts');
  // Length first: a huge array is refused without walking it.
  if (!Array.isArray(rawCounts) || rawCounts.length !== slots) return INVALID;
  const counts: number[] = [];
  let total = 0;
  for (const raw of rawCounts) {
    const n = count(raw);
    if (n === INVALID) return INVALID;
    counts.push(n);
    total += n;
  }
  const sum = amount(ownField(value, 'sum'));
  const histogramCount = count(ownField(value, 'count'));
  if (sum === INVALID || histogramCount !== total) return INVALID;
  return { counts, sum, count: histogramCount };
}

interface SeedEntry {
  readonly success: number;
  readonly failure: number;
  readonly cancelled: number;
  readonly retries: number;
  readonly permanentFailures: number;
  readonly startFailures: number;
  readonly lastSuccessMs: number | null;
  readonly lastFailureMs: number | null;
  readonly cpu: { readonly user: number; readonly system: number } | null;
  readonly peakRssBytes: number | null;
  /** null = not restored (bounds changed). */
  readonly histogram: SeedHistogram | null;
}

/**
 * One job entry, all or nothing: any malformed field rejects the whole entry (null). The
 * histogram is only read when `histogramSlots` is a number (the bounds are unchanged).
 */
function parseEntry(
  entry: Record<string, unknown>,
  histogramSlots: number | null,
): SeedEntry | null {
  const runs = ownField(entry, 'runs');
  if (!isRecord(runs)) return null;
  const success = count(ownField(runs, 'success'));
  const failure = count(ownField(runs, 'failure'));
  const cancelled = count(ownField(runs, 'cancelled'));
  const retries = count(ownField(entry, 'retries'));
  const permanentFailures = count(ownField(entry, 'permanentFailures'));
  const startFailures = count(ownField(entry, 'startFailures'));
  const lastSuccessMs = optionalAmount(ownField(entry, 'lastSuccessMs'), MAX_EPOCH_MS);
  const lastFailureMs = optionalAmount(ownField(entry, 'lastFailureMs'), MAX_EPOCH_MS);
  const cpuUser = optionalAmount(ownField(entry, 'cpuUserSeconds'));
  const cpuSystem = optionalAmount(ownField(entry, 'cpuSystemSeconds'));
  const peakRssBytes = optionalAmount(ownField(entry, 'peakRssBytes'));
  const histogram =
    histogramSlots === null ? null : parseHistogram(ownField(entry, 'duration'), histogramSlots);
  if (
    success === INVALID ||
    failure === INVALID ||
    cancelled === INVALID ||
    retries === INVALID ||
    permanentFailures === INVALID ||
    startFailures === INVALID ||
    lastSuccessMs === INVALID ||
    lastFailureMs === INVALID ||
    cpuUser === INVALID ||
    cpuSystem === INVALID ||
    peakRssBytes === INVALID ||
    histogram === INVALID ||
    // The CPU pair moves together: both null or both numbers.
    (cpuUser === null) !== (cpuSystem === null)
  ) {
    return null;
  }
  return {
    success,
    failure,
    cancelled,
    retries,
    permanentFailures,
    startFailures,
    lastSuccessMs,
    lastFailureMs,
    cpu: cpuUser === null || cpuSystem === null ? null : { user: cpuUser, system: cpuSystem },
    peakRssBytes,
    histogram,
  };
}

function latest(current: number | null, seeded: number | null): number | null {
  if (seeded === null) return current;
  return current === null ? seeded : Math.max(current, seeded);
}

/**
 * Add an untrusted snapshot into `table`'s accumulators for the jobs in `configuredJobNames` that
 * the table has a configured series for; returns how many jobs were seeded. Malformed, duplicate,
 * removed-job and unknown-version entries are skipped; histograms are restored only when the
 * snapshot's bounds equal the table's current ones. Never throws for any `snapshot` value.
 */
export function seedJobTable(
  table: JobTable,
  snapshot: unknown,
  configuredJobNames: ReadonlySet<string>,
): number {
  if (!isRecord(snapshot) || ownField(snapshot, 'version') !== COUNTER_SNAPSHOT_VERSION) return 0;
  const jobs = ownField(snapshot, 'jobs');
  if (!Array.isArray(jobs)) return 0;
  const bounds = ownField(snapshot, 'durationBucketsSeconds');
  const sameBounds =
    Array.isArray(bounds) &&
    bounds.length <= MAX_BOUNDS &&
    table.layout.sameBounds(bounds as readonly unknown[] as readonly number[]);
  const histogramSlots = sameBounds ? table.layout.bounds.length + 1 : null;

  const seeded = new Set<string>();
  for (const raw of jobs as readonly unknown[]) {
    // Every configured job seeded already: the rest of a (possibly huge) list cannot matter.
    if (seeded.size >= configuredJobNames.size) break;
    if (!isRecord(raw)) continue;
    const name = ownField(raw, 'name');
    if (typeof name !== 'string' || seeded.has(name) || !configuredJobNames.has(name)) continue;
    const series = table.get(name);
    if (!series?.configured) continue;
    const entry = parseEntry(raw, histogramSlots);
    if (entry === null) continue;

    series.runsSuccess += entry.success;
    series.runsFailure += entry.failure;
    series.runsCancelled += entry.cancelled;
    series.retries += entry.retries;
    series.permanentFailures += entry.permanentFailures;
    series.startFailures += entry.startFailures;
    series.lastSuccessMs = latest(series.lastSuccessMs, entry.lastSuccessMs);
    series.lastFailureMs = latest(series.lastFailureMs, entry.lastFailureMs);
    if (entry.cpu) {
      series.cpuUserSeconds = (series.cpuUserSeconds ?? 0) + entry.cpu.user;
      series.cpuSystemSeconds = (series.cpuSystemSeconds ?? 0) + entry.cpu.system;
    }
    // Peak RSS is a max, and stays absent until a non-zero observation (spec §3).
    if (entry.peakRssBytes !== null && entry.peakRssBytes > (series.peakRssBytes ?? 0)) {
      series.peakRssBytes = entry.peakRssBytes;
    }
    if (entry.histogram) {
      const { histogram } = series;
      entry.histogram.counts.forEach((n, index) => {
        histogram.counts[index] = (histogram.counts[index] ?? 0) + n;
      });
      histogram.sum += entry.histogram.sum;
      histogram.count += entry.histogram.count;
    }
    seeded.add(name);
  }
  return seeded.size;
}
