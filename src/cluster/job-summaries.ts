// The per-job run summaries a node piggybacks on its /peer body for the fleet view: how we
// advertise ours (built from the scheduler's view) and how a peer's are rebuilt field by field
// (docs/clustering.md "Job summaries"). Display only. Pure, apart from the one list
// AdvertisedNamesMemo keeps. Must not: feed anything here into an
// election or a run decision.
import {
  atMostCodePoints,
  formatIsoUtc,
  isPythonPrintable,
  sortByCodePoint,
} from '../common/index.js';
import type { JobState, SchedulerView } from '../scheduler/index.js';
import type { JobSummariesWire, JobSummaryLastWire, JobSummaryWire } from './peer-payload.js';
import { finiteOrNull, summariesToWire } from './summary-wire/index.js';
import { isJsonObject, ownField } from './strict-json.js';
import type { AdvertisedJobs, JobSummariesReport, JobSummary, JobSummaryLast } from './types.js';

/** At most this many jobs are advertised (the sorted-name prefix) and accepted. */
export const MAX_SUMMARY_JOBS = 512;
/** Longer job names are not advertised and not accepted. */
export const MAX_SUMMARY_NAME = 128;
const MAX_FINISHED_AT = 64;

/** The names a node advertises, in code point order, and whether any configured job is left out. */
export interface AdvertisedNames {
  readonly names: readonly string[];
  readonly truncated: boolean;
}

/**
 * What we advertise: names longer than 128 code points dropped, sorted by code point, the first
 * 512 kept; `truncated` when anything was left out.
 */
export function advertisedNames(names: readonly string[]): AdvertisedNames {
  const kept = sortByCodePoint(names.filter((name) => atMostCodePoints(name, MAX_SUMMARY_NAME)));
  const truncated = kept.length !== names.length || kept.length > MAX_SUMMARY_JOBS;
  return { names: kept.slice(0, MAX_SUMMARY_JOBS), truncated };
}

/**
 * advertisedNames of a job list, computed again only when the list is another object (a reload
 * replaces it): every poll of every peer asks, and sorting thousands of names each time was most
 * of the cost of an answer (docs/performance.md "The /peer answer").
 */
export class AdvertisedNamesMemo {
  #jobs: readonly { readonly name: string }[] | null = null;
  #advertised: AdvertisedNames = { names: [], truncated: false };

  of(jobs: readonly { readonly name: string }[]): AdvertisedNames {
    if (jobs !== this.#jobs) {
      this.#advertised = advertisedNames(jobs.map((job) => job.name));
      this.#jobs = jobs;
    }
    return this.#advertised;
  }
}

/**
 * The scheduler's view of the advertised jobs as their summaries (display only), built for those
 * names alone: a name the scheduler does not have (mid-reload) is left out.
 */
export function jobSummaries(
  view: Pick<SchedulerView, 'getJobState' | 'getJobConfig'>,
  advertised: AdvertisedNames,
  nowMs: number,
): AdvertisedJobs {
  const jobs = new Map<string, JobSummary>();
  for (const name of advertised.names) {
    if (view.getJobConfig(name) === undefined) continue;
    jobs.set(name, summaryOf(view.getJobState(name), nowMs));
  }
  return { jobs, truncated: advertised.truncated };
}

function summaryOf(state: JobState, nowMs: number): JobSummary {
  const { job } = state;
  const running = state.runningInstances > 0;
  const timed = job.enabled && !running && job.schedule.kind !== 'reboot';
  const last = state.recentRuns.at(-1);
  return {
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
  };
}

/** A node with no summaries to advertise (no scheduler view wired in). */
export const NO_ADVERTISED_JOBS: AdvertisedJobs = Object.freeze({
  jobs: new Map<string, JobSummary>(),
  truncated: false,
});

/** The `job_summaries` wire object and its `job_summaries_truncated` flag. */
export interface SummariesWire {
  readonly jobSummaries: JobSummariesWire;
  readonly truncated: boolean;
}

/** Any summaries (all of a node's jobs, unsorted) narrowed to what would be advertised. */
export function advertisedSummaries(jobs: ReadonlyMap<string, JobSummary>): AdvertisedJobs {
  const advertised = advertisedNames([...jobs.keys()]);
  const kept = new Map<string, JobSummary>();
  for (const name of advertised.names) kept.set(name, jobs.get(name)!);
  return { jobs: kept, truncated: advertised.truncated };
}

/** An advertisement as the `job_summaries` wire object. */
export function summariesWire(advertised: AdvertisedJobs): SummariesWire {
  return { jobSummaries: summariesToWire(advertised.jobs), truncated: advertised.truncated };
}

/** All of a node's summaries as the `job_summaries` it would advertise. */
export function buildSummariesWire(jobs: ReadonlyMap<string, JobSummary>): SummariesWire {
  return summariesWire(advertisedSummaries(jobs));
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
