// The values a monitored run's resource usage is made of: domain values in epoch ms, seconds
// and bytes (wire.ts renders them).
import type { UsagePoint } from './usage-series.js';

/**
 * A finished (or running) run's totals: the shape of the scheduler's RunSummary `resources`,
 * which the run records, the ledger, the metrics, statsd and the reports read.
 */
export interface RunUsageSummary {
  readonly cpuUserSeconds: number;
  readonly cpuSystemSeconds: number;
  /** User plus system (from the tick counts, so it is exactly their sum in ticks). */
  readonly cpuTotalSeconds: number;
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
