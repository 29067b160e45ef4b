// The API's run shapes (docs/http-api.md "GET /jobs/{name}/runs"): the run record with
// Python-isoformat instants, seconds and snake_case names, rendered from the scheduler's
// RunSummary, and the stats object over a list of them. Pure.
import { formatIsoUtc, msToSeconds } from '../common/index.js';
import type { RunSummary, RunSummaryOutcome } from '../scheduler/index.js';

export type RunRecordOutcome = RunSummaryOutcome;

export interface RunResourcesRecord {
  readonly cpu_user_seconds: number;
  readonly cpu_system_seconds: number;
  readonly cpu_total_seconds: number;
  readonly max_rss_bytes: number;
  readonly samples: number;
}

export interface RunRecord {
  readonly outcome: RunRecordOutcome;
  readonly exit_code: number | null;
  /** Python isoformat() of the UTC instant, e.g. `2026-06-21T12:00:00+00:00`. */
  readonly started_at: string | null;
  readonly finished_at: string;
  /** Seconds. */
  readonly duration: number | null;
  readonly fail_reason: string | null;
  readonly resources: RunResourcesRecord | null;
}

export interface RunStats {
  readonly total: number;
  readonly success: number;
  readonly failure: number;
  readonly cancelled: number;
  readonly unknown: number;
  readonly success_rate: number | null;
  readonly avg_duration: number | null;
  readonly min_duration: number | null;
  readonly max_duration: number | null;
  readonly last_duration: number | null;
  readonly avg_cpu_seconds: number | null;
  readonly max_cpu_seconds: number | null;
  readonly last_cpu_seconds: number | null;
  readonly avg_rss_bytes: number | null;
  readonly max_rss_bytes: number | null;
  readonly last_rss_bytes: number | null;
}

/** `GET /jobs/{name}/runs`. */
export interface JobRuns {
  readonly name: string;
  /** Oldest first, at most 50. */
  readonly runs: readonly RunRecord[];
  readonly stats: RunStats;
}

/** A duration in the API's unit (seconds, microsecond precision as the reference's). */
export function durationSeconds(run: RunSummary): number | null {
  return run.durationMs === null ? null : msToSeconds(run.durationMs);
}

export function renderRunRecord(run: RunSummary): RunRecord {
  const { resources } = run;
  return {
    outcome: run.outcome,
    exit_code: run.exitCode,
    started_at: run.startedAtMs === null ? null : formatIsoUtc(run.startedAtMs),
    finished_at: formatIsoUtc(run.finishedAtMs),
    duration: durationSeconds(run),
    fail_reason: run.failReason,
    resources:
      resources === null
        ? null
        : {
            cpu_user_seconds: resources.cpuUserSeconds,
            cpu_system_seconds: resources.cpuSystemSeconds,
            cpu_total_seconds: resources.cpuTotalSeconds,
            max_rss_bytes: resources.maxRssBytes,
            samples: resources.samples,
          },
  };
}

export function renderJobRuns(name: string, runs: readonly RunSummary[]): JobRuns {
  return { name, runs: runs.map(renderRunRecord), stats: computeRunStats(runs) };
}

function average(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

function maximum(values: readonly number[]): number | null {
  return values.length === 0 ? null : Math.max(...values);
}

function minimum(values: readonly number[]): number | null {
  return values.length === 0 ? null : Math.min(...values);
}

function present<T>(value: T | null | undefined): value is T {
  return value !== null && value !== undefined;
}

/** The stats object over `runs` (oldest first). */
export function computeRunStats(runs: readonly RunSummary[]): RunStats {
  const count = (outcome: RunRecordOutcome): number =>
    runs.filter((run) => run.outcome === outcome).length;
  const success = count('success');
  const failure = count('failure');
  const durations = runs.map(durationSeconds).filter(present);
  const cpu = runs.map((run) => run.resources?.cpuTotalSeconds).filter(present);
  const rss = runs.map((run) => run.resources?.maxRssBytes).filter(present);
  const newest = runs.at(-1);
  return {
    total: runs.length,
    success,
    failure,
    cancelled: count('cancelled'),
    unknown: count('unknown'),
    success_rate: success + failure === 0 ? null : success / (success + failure),
    avg_duration: average(durations),
    min_duration: minimum(durations),
    max_duration: maximum(durations),
    last_duration: newest === undefined ? null : durationSeconds(newest),
    avg_cpu_seconds: average(cpu),
    max_cpu_seconds: maximum(cpu),
    last_cpu_seconds: newest?.resources?.cpuTotalSeconds ?? null,
    avg_rss_bytes: average(rss),
    max_rss_bytes: maximum(rss),
    last_rss_bytes: newest?.resources?.maxRssBytes ?? null,
  };
}
