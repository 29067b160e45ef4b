// What the job table shows per job, derived once per poll from the `GET /jobs` object: the
// status (docs/dashboard.md "Job table"), the instants behind the age and countdown cells and
// the text the filter searches. Pure.
import type { JobWire, RunOutcome } from './api-types.js';
import { parseIso } from './format.js';

export type JobStatus =
  'running' | 'failed' | 'unknown' | 'cancelled' | 'pending' | 'ok' | 'disabled';

export interface StatusMeta {
  readonly label: string;
  /** A glyph beside the colour, so the status never rests on colour alone. */
  readonly glyph: string;
  /** Sort rank: what needs attention first. */
  readonly rank: number;
}

export const STATUS_META: Readonly<Record<JobStatus, StatusMeta>> = {
  failed: { label: 'Failed', glyph: '✕', rank: 0 },
  unknown: { label: 'Interrupted', glyph: '?', rank: 1 },
  running: { label: 'Running', glyph: '▶', rank: 2 },
  cancelled: { label: 'Cancelled', glyph: '⊘', rank: 3 },
  pending: { label: 'Pending', glyph: '○', rank: 4 },
  ok: { label: 'OK', glyph: '✓', rank: 5 },
  disabled: { label: 'Disabled', glyph: '–', rank: 6 },
};

export interface JobRow {
  readonly job: JobWire;
  readonly name: string;
  readonly status: JobStatus;
  /** Finish instant of the last run (epoch ms). */
  readonly lastFinishedMs: number | null;
  /** Next fire (epoch ms) as of the poll; null when running, disabled or none. */
  readonly nextFireMs: number | null;
  /** Success share over the sparkline runs (cancelled/unknown excluded); null with none. */
  readonly successRate: number | null;
  /** Failures among the sparkline runs. */
  readonly recentFailures: number;
  /** Lower-cased name and command, for the text filter. */
  readonly searchText: string;
}

export function statusOf(job: JobWire): JobStatus {
  if (job.running) return 'running';
  if (!job.enabled) return 'disabled';
  return outcomeStatus(job.last_run?.outcome ?? null);
}

export function outcomeStatus(outcome: RunOutcome | null): JobStatus {
  switch (outcome) {
    case null:
      return 'pending';
    case 'success':
      return 'ok';
    case 'failure':
      return 'failed';
    case 'cancelled':
      return 'cancelled';
    case 'unknown':
      return 'unknown';
  }
}

export function deriveRow(job: JobWire, polledAtMs: number): JobRow {
  let ok = 0;
  let failed = 0;
  for (const run of job.history) {
    if (run.outcome === 'success') ok += 1;
    else if (run.outcome === 'failure') failed += 1;
  }
  return {
    job,
    name: job.name,
    status: statusOf(job),
    lastFinishedMs: parseIso(job.last_run?.finished_at),
    nextFireMs: nextFireOf(job, polledAtMs),
    successRate: ok + failed === 0 ? null : ok / (ok + failed),
    recentFailures: failed,
    searchText: `${job.name}\n${job.command}`.toLowerCase(),
  };
}

/**
 * deriveRow for the next poll, reusing `previous` (the same job's row of the last poll) when the
 * job object is the last one or the decoder's copy of it with a new `scheduled_in` (it shares the
 * parsed `history` and `last_run`): only the next fire is recomputed. Objects are never mutated,
 * so shared parts mean equal parts.
 */
export function nextRow(job: JobWire, previous: JobRow | undefined, polledAtMs: number): JobRow {
  if (
    previous === undefined ||
    previous.job.history !== job.history ||
    previous.job.last_run !== job.last_run ||
    previous.name !== job.name
  )
    return deriveRow(job, polledAtMs);
  return {
    ...previous,
    job,
    nextFireMs: nextFireOf(job, polledAtMs),
  };
}

function nextFireOf(job: JobWire, polledAtMs: number): number | null {
  return job.scheduled_in === null ? null : polledAtMs + job.scheduled_in * 1000;
}

export interface StatusCounts {
  readonly total: number;
  readonly running: number;
  readonly failing: number;
  readonly ok: number;
}

export function countStatuses(rows: readonly JobRow[]): StatusCounts {
  let running = 0;
  let failing = 0;
  let ok = 0;
  for (const row of rows) {
    if (row.status === 'running') running += 1;
    else if (row.status === 'failed') failing += 1;
    else if (row.status === 'ok') ok += 1;
  }
  return { total: rows.length, running, failing, ok };
}

/** The zone frame label of a job: `UTC`, an IANA name, or `local` (the daemon's zone). */
export function timezoneLabel(job: JobWire): string {
  return job.timezone ?? 'local';
}
