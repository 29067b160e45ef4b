// The API's run shapes (docs/http-api.md "GET /jobs/{name}/runs"): the run record with
// Python-isoformat instants, seconds and snake_case names, rendered from the scheduler's
// RunSummary, and the stats object over a list of them (the types: wire/runs.ts). Pure.
import { formatIsoUtc, msToSeconds } from '../common/index.js';
import type { RunSummary } from '../scheduler/index.js';
import type { JobRuns, RunRecord, RunRecordOutcome, RunStats } from './wire/index.js';

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
