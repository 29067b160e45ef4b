// The per-job run summaries a node piggybacks on its /peer body for the fleet view: how we
// advertise ours (built from the scheduler's view) and how a peer's are rebuilt field by field
// (docs/clustering.md "Job summaries"). Display only. Pure. Must not: feed anything here into an
// election or a run decision.
import {
  atMostCodePoints,
  formatIsoUtc,
  isPythonPrintable,
  sortByCodePoint,
} from '../common/index.js';
import type { SchedulerView } from '../scheduler/index.js';
import { isJsonObject, ownField } from './strict-json.js';
import type { JobSummariesReport, JobSummary, JobSummaryLast } from './types.js';

/** At most this many jobs are advertised (the sorted-name prefix) and accepted. */
export const MAX_SUMMARY_JOBS = 512;
/** Longer job names are not advertised and not accepted. */
export const MAX_SUMMARY_NAME = 128;
const MAX_FINISHED_AT = 64;

/** The scheduler's view as the per-job summaries this node gossips (display only). */
export function jobSummaries(
  view: Pick<SchedulerView, 'getJobStates'>,
  nowMs: number,
): Map<string, JobSummary> {
  const out = new Map<string, JobSummary>();
  for (const state of view.getJobStates()) {
    const { job } = state;
    const running = state.runningInstances > 0;
    const timed = job.enabled && !running && job.schedule.kind !== 'reboot';
    const last = state.recentRuns.at(-1);
    out.set(job.name, {
      running,
      enabled: job.enabled,
      scheduledInSeconds:
        timed && state.nextFireAtMs !== null ? (state.nextFireAtMs - nowMs) / 1000 : null,
      last:
        last === undefined || !Number.isFinite(last.finishedAtMs)
          ? null
          : {
              outcome: last.outcome,
              finishedAt: formatIsoUtc(last.finishedAtMs),
              durationSeconds: last.durationMs === null ? null : last.durationMs / 1000,
              exitCode: last.exitCode,
            },
    });
  }
  return out;
}

/** The `job_summaries` wire object and its `job_summaries_truncated` flag. */
export interface SummariesWire {
  readonly jobSummaries: Record<string, unknown>;
  readonly truncated: boolean;
}

/**
 * What we advertise: names longer than 128 code points dropped, sorted by code point, the first
 * 512 kept; `truncated` when anything was left out.
 */
export function advertisedSummaries(jobs: ReadonlyMap<string, JobSummary>): {
  readonly jobs: ReadonlyMap<string, JobSummary>;
  readonly truncated: boolean;
} {
  const names = sortByCodePoint(
    [...jobs.keys()].filter((name) => atMostCodePoints(name, MAX_SUMMARY_NAME)),
  );
  const truncated = names.length !== jobs.size || names.length > MAX_SUMMARY_JOBS;
  const kept = new Map<string, JobSummary>();
  for (const name of names.slice(0, MAX_SUMMARY_JOBS)) {
    const job = jobs.get(name);
    if (job !== undefined) kept.set(name, job);
  }
  return { jobs: kept, truncated };
}

/** Our advertisement as the `job_summaries` wire object. */
export function buildSummariesWire(jobs: ReadonlyMap<string, JobSummary>): SummariesWire {
  const advertised = advertisedSummaries(jobs);
  return { jobSummaries: summariesToWire(advertised.jobs), truncated: advertised.truncated };
}

/** Summaries as a wire object (a null-prototype object: `__proto__` is an ordinary key). */
export function summariesToWire(jobs: ReadonlyMap<string, JobSummary>): Record<string, unknown> {
  const out = Object.create(null) as Record<string, unknown>;
  for (const [name, job] of jobs) out[name] = summaryToWire(job);
  return out;
}

/** One job's wire object (`running`, `enabled`, `scheduled_in`, `last`). */
export function summaryToWire(job: JobSummary): Record<string, unknown> {
  return {
    running: job.running,
    enabled: job.enabled,
    scheduled_in: finiteOrNull(job.scheduledInSeconds),
    last:
      job.last === null
        ? null
        : {
            outcome: job.last.outcome,
            finished_at: job.last.finishedAt,
            duration: finiteOrNull(job.last.durationSeconds),
            exit_code: job.last.exitCode,
          },
  };
}

const OUTCOMES: ReadonlySet<string> = new Set(['success', 'failure', 'cancelled', 'unknown']);

/**
 * A peer's summaries, rebuilt: null when not reported (not an object), else every well-formed
 * entry in document order up to 512. A malformed entry is dropped, never a failure.
 */
export function parseSummaries(
  raw: unknown,
  truncatedRaw: unknown,
  receivedAtMs: number,
): JobSummariesReport | null {
  if (!isJsonObject(raw)) return null;
  const jobs = new Map<string, JobSummary>();
  for (const [name, value] of Object.entries(raw)) {
    if (jobs.size >= MAX_SUMMARY_JOBS) break;
    if (name === '' || !atMostCodePoints(name, MAX_SUMMARY_NAME) || !isPythonPrintable(name))
      continue;
    if (!isJsonObject(value)) continue;
    jobs.set(name, {
      running: ownField(value, 'running') === true,
      enabled: ownField(value, 'enabled') !== false,
      scheduledInSeconds: finiteOrNull(ownField(value, 'scheduled_in')),
      last: parseLast(ownField(value, 'last')),
    });
  }
  return { jobs, truncated: truncatedRaw === true, receivedAtMs };
}

function parseLast(raw: unknown): JobSummaryLast | null {
  if (!isJsonObject(raw)) return null;
  const outcome = ownField(raw, 'outcome');
  const finishedAt = ownField(raw, 'finished_at');
  if (typeof outcome !== 'string' || !OUTCOMES.has(outcome)) return null;
  if (
    typeof finishedAt !== 'string' ||
    !atMostCodePoints(finishedAt, MAX_FINISHED_AT) ||
    !isPythonPrintable(finishedAt)
  ) {
    return null;
  }
  const exitCode = ownField(raw, 'exit_code');
  return {
    outcome: outcome as JobSummaryLast['outcome'],
    finishedAt,
    durationSeconds: finiteOrNull(ownField(raw, 'duration')),
    exitCode: typeof exitCode === 'number' && Number.isSafeInteger(exitCode) ? exitCode : null,
  };
}

function finiteOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
