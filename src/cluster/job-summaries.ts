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
import type { JobSummariesWire, JobSummaryLastWire, JobSummaryWire } from './peer-payload.js';
import { finiteOrNull, summariesToWire } from './summary-wire/index.js';
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
  readonly jobSummaries: JobSummariesWire;
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

const OUTCOMES: readonly JobSummaryLastWire['outcome'][] = [
  'success',
  'failure',
  'cancelled',
  'unknown',
];

/**
 * A peer's `job_summaries`, rebuilt: null when not reported (not an object), else every
 * well-formed entry in document order up to 512. A malformed entry is dropped, never a failure.
 */
export function parseSummariesWire(raw: unknown): JobSummariesWire | null {
  if (!isJsonObject(raw)) return null;
  const jobs: [string, JobSummaryWire][] = [];
  for (const [name, value] of Object.entries(raw)) {
    if (jobs.length >= MAX_SUMMARY_JOBS) break;
    if (name === '' || !atMostCodePoints(name, MAX_SUMMARY_NAME) || !isPythonPrintable(name))
      continue;
    if (!isJsonObject(value)) continue;
    jobs.push([
      name,
      {
        running: ownField(value, 'running') === true,
        enabled: ownField(value, 'enabled') !== false,
        scheduled_in: finiteOrNull(ownField(value, 'scheduled_in')),
        last: parseLast(ownField(value, 'last')),
      },
    ]);
  }
  return Object.fromEntries(jobs);
}

/** The summaries of a parsed body as the fleet view keeps them, stamped at receipt. */
export function summariesFromWire(
  wire: JobSummariesWire,
  truncated: boolean,
  receivedAtMs: number,
): JobSummariesReport {
  const jobs = new Map<string, JobSummary>();
  for (const [name, job] of Object.entries(wire)) {
    jobs.set(name, {
      running: job.running,
      enabled: job.enabled,
      scheduledInSeconds: job.scheduled_in,
      last: job.last === null ? null : lastFromWire(job.last),
    });
  }
  return { jobs, truncated, receivedAtMs };
}

function lastFromWire(last: JobSummaryLastWire): JobSummaryLast {
  return {
    outcome: last.outcome,
    finishedAt: last.finished_at,
    durationSeconds: last.duration,
    exitCode: last.exit_code,
  };
}

function parseLast(raw: unknown): JobSummaryLastWire | null {
  if (!isJsonObject(raw)) return null;
  const outcome = OUTCOMES.find((known) => known === ownField(raw, 'outcome'));
  const finishedAt = ownField(raw, 'finished_at');
  if (outcome === undefined) return null;
  if (
    typeof finishedAt !== 'string' ||
    !atMostCodePoints(finishedAt, MAX_FINISHED_AT) ||
    !isPythonPrintable(finishedAt)
  ) {
    return null;
  }
  const exitCode = ownField(raw, 'exit_code');
  return {
    outcome,
    finished_at: finishedAt,
    duration: finiteOrNull(ownField(raw, 'duration')),
    exit_code: typeof exitCode === 'number' && Number.isSafeInteger(exitCode) ? exitCode : null,
  };
}
