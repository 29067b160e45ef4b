// The wire shapes of resource usage, rendered in one place for every edge that shows them: run
// records and the ledger (`resources` = {cpu_user_seconds, cpu_system_seconds, cpu_total_seconds,
// max_rss_bytes, samples[, series]}), the live usage of GET /jobs and /jobs/{name}/resources,
// and the node reading of GET /node, /cluster and the gossip node-stats header.
// Series instants are epoch seconds; CPU % has two decimals; seconds keep microseconds.
import type { NodeResources } from './node-stats.js';
import {
  type CurrentUsage,
  type LiveRunUsage,
  type RunUsage,
  type RunUsageSummary,
} from './run-usage.js';
import type { UsagePoint } from './usage-series.js';

export type UsagePointWire = readonly [t: number, cpuPercent: number, rssBytes: number];

export interface RunResourcesWire {
  readonly cpu_user_seconds: number;
  readonly cpu_system_seconds: number;
  readonly cpu_total_seconds: number;
  readonly max_rss_bytes: number;
  readonly samples: number;
  readonly series?: readonly UsagePointWire[];
}

export interface CurrentUsageWire {
  readonly cpu_seconds: number;
  readonly cpu_percent: number;
  readonly rss_bytes: number;
}

/** `running_resources` of a job object: sums over its sampled running instances. */
export interface RunningResourcesWire extends CurrentUsageWire {
  readonly instances: number;
}

export interface NodeResourcesWire {
  readonly cpu_percent: number;
  readonly cpu_count: number;
  readonly mem_percent: number;
  readonly mem_used_bytes: number;
  readonly mem_total_bytes: number;
  readonly proc_rss_bytes?: number;
  readonly proc_cpu_percent?: number;
}

/** Seconds with the microsecond precision of the reference's floats. */
export function roundSeconds(seconds: number): number {
  return Math.round(seconds * 1e6) / 1e6;
}

export function roundPercent(percent: number): number {
  return Math.round(percent * 100) / 100;
}

export function renderUsagePoint(point: UsagePoint): UsagePointWire {
  const [atMs, cpuPercent, rssBytes] = point;
  return [atMs / 1000, roundPercent(cpuPercent), Math.round(rssBytes)];
}

/** A run record's `resources`; the series only where the API asks for it (/resources, ledger). */
export function renderRunResources(
  usage: RunUsageSummary | RunUsage,
  withSeries: boolean,
): RunResourcesWire {
  const summary = {
    cpu_user_seconds: roundSeconds(usage.cpuUserSeconds),
    cpu_system_seconds: roundSeconds(usage.cpuSystemSeconds),
    cpu_total_seconds: roundSeconds(usage.cpuTotalSeconds),
    max_rss_bytes: Math.round(usage.maxRssBytes),
    samples: usage.samples,
  };
  if (!withSeries) return summary;
  const series = 'series' in usage ? usage.series.map(renderUsagePoint) : [];
  return { ...summary, series };
}

export function renderCurrentUsage(current: CurrentUsage): CurrentUsageWire {
  return {
    cpu_seconds: roundSeconds(current.cpuSeconds),
    cpu_percent: roundPercent(current.cpuPercent),
    rss_bytes: Math.round(current.rssBytes),
  };
}

/** Sums over the sampled instances; undefined when none has a sample yet (the key is omitted). */
export function renderRunningResources(
  live: readonly LiveRunUsage[],
): RunningResourcesWire | undefined {
  let cpuSeconds = 0;
  let cpuPercent = 0;
  let rssBytes = 0;
  let instances = 0;
  for (const { current } of live) {
    if (current === null) continue;
    cpuSeconds += current.cpuSeconds;
    cpuPercent += current.cpuPercent;
    rssBytes += current.rssBytes;
    instances += 1;
  }
  if (instances === 0) return undefined;
  return {
    ...renderCurrentUsage({ cpuSeconds, cpuPercent, rssBytes }),
    instances,
  };
}

export function renderNodeResources(reading: NodeResources): NodeResourcesWire {
  const wire: { -readonly [K in keyof NodeResourcesWire]: NodeResourcesWire[K] } = {
    cpu_percent: reading.cpuPercent,
    cpu_count: reading.cpuCount,
    mem_percent: reading.memPercent,
    mem_used_bytes: reading.memUsedBytes,
    mem_total_bytes: reading.memTotalBytes,
  };
  if (reading.procRssBytes !== undefined) wire.proc_rss_bytes = reading.procRssBytes;
  if (reading.procCpuPercent !== undefined) wire.proc_cpu_percent = reading.procCpuPercent;
  return wire;
}
