// A node's job summaries as wire objects: the `job_summaries` of its /peer body and, relayed, the
// `jobs` of each node in GET /fleet (docs/clustering.md "Job summaries"). A door of its own so
// the HTTP layer renders /fleet with it without loading the cluster (docs/architecture.md
// "Layers": a daemon without a cluster never loads cluster/'s door). Pure, types-only imports.
import type { JobSummariesWire, JobSummaryWire } from '../peer-payload.js';
import type { JobSummary } from '../types.js';

/** A finite number, else null (the wire has no NaN or Infinity). */
export function finiteOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** Summaries as a wire object (`__proto__` is an ordinary key: fromEntries defines own keys). */
export function summariesToWire(jobs: ReadonlyMap<string, JobSummary>): JobSummariesWire {
  return Object.fromEntries([...jobs].map(([name, job]) => [name, summaryToWire(job)]));
}

/** One job's wire object (`running`, `enabled`, `scheduled_in`, `last`). */
export function summaryToWire(job: JobSummary): JobSummaryWire {
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
