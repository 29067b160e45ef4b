// The values a monitored run's resource usage is made of (domain values: epoch ms, seconds,
// bytes), and their one wire rendering, shared by the HTTP run records and the durable ledger
// rows (http-api A.7/A.9: `resources` = {cpu_user_seconds, cpu_system_seconds,
// cpu_total_seconds, max_rss_bytes, samples[, series: [[t, cpu%, rss], ...]]}).
import type { UsagePoint } from './usage-series.js';

/** A finished (or running) run's totals. */
export interface RunUsageSummary {
  readonly cpuUserSeconds: number;
  readonly cpuSystemSeconds: number;
  /** Peak of the tree's summed RSS over the samples; 0 without a sample. */
  readonly maxRssBytes: number;
  /** Samples taken (0 for a run shorter than its first sample). */
  readonly samples: number;
}

/** A run's totals and its bounded series (oldest first). */
export interface RunUsage extends RunUsageSummary {
  readonly series: readonly UsagePoint[];
}

/** The newest sample of a running instance. */
export interface CurrentUsage {
  /** CPU seconds (user + system) of the tree so far. */
  readonly cpuSeconds: number;
  /** Over the last sample interval; 100 = one core busy (may exceed 100). */
  readonly cpuPercent: number;
  readonly rssBytes: number;
}

/** A running monitored instance. */
export interface LiveRunUsage {
  readonly runId: string;
  readonly jobName: string;
  readonly pid: number;
  readonly startedAtMs: number;
  /** null until the first sample. */
  readonly current: CurrentUsage | null;
  readonly usage: RunUsage;
}

export function cpuTotalSeconds(summary: RunUsageSummary): number {
  return summary.cpuUserSeconds + summary.cpuSystemSeconds;
}

/** The wire object of a run record's `resources`. */
export interface RunResourcesWire {
  readonly cpu_user_seconds: number;
  readonly cpu_system_seconds: number;
  readonly cpu_total_seconds: number;
  readonly max_rss_bytes: number;
  readonly samples: number;
  readonly series?: readonly (readonly [number, number, number])[];
}

/** Seconds to microseconds and back: the precision the reference's floats carry. */
function roundSeconds(seconds: number): number {
  return Math.round(seconds * 1e6) / 1e6;
}

/** A series point on the wire: [epoch seconds, CPU % (2 decimals), RSS bytes]. */
export function renderUsagePoint(point: UsagePoint): readonly [number, number, number] {
  const [atMs, cpuPercent, rssBytes] = point;
  return [atMs / 1000, Math.round(cpuPercent * 100) / 100, Math.round(rssBytes)];
}

export function renderRunResources(
  usage: RunUsageSummary | RunUsage,
  withSeries: boolean,
): RunResourcesWire {
  const summary = {
    cpu_user_seconds: roundSeconds(usage.cpuUserSeconds),
    cpu_system_seconds: roundSeconds(usage.cpuSystemSeconds),
    cpu_total_seconds: roundSeconds(cpuTotalSeconds(usage)),
    max_rss_bytes: Math.round(usage.maxRssBytes),
    samples: usage.samples,
  };
  if (!withSeries) return summary;
  const series = 'series' in usage ? usage.series.map(renderUsagePoint) : [];
  return { ...summary, series };
}
