// Which finished runs the page alerts on, and how desktop notifications are coalesced
// (docs/dashboard.md "Run ledger, notifications and cues"). FinishedRunWatch diffs the job
// snapshots: a job's `last_run` with a finish instant it has not seen is a run that finished
// while the page was open. NoticeGate turns the failures among them into at most NOTICE_LIMIT
// notifications per NOTICE_WINDOW_MS; a burst past that becomes one summary notification. Pure.
// Must not: report a run that finished before the page's first snapshot, or a job seen for the
// first time (its last run may be old: a reload added it).
import type { JobWire, RunOutcome } from './api-types.js';

export interface FinishedRun {
  readonly job: string;
  readonly outcome: RunOutcome;
  readonly exitCode: number | null;
  readonly failReason: string | null;
  readonly finishedAt: string;
}

export class FinishedRunWatch {
  /** Job name → the finish instant of its last run seen (null: seen with none). */
  #seen = new Map<string, string | null>();
  #primed = false;

  /** The runs that finished since the previous snapshot; none on the first. */
  observe(jobs: readonly JobWire[]): FinishedRun[] {
    const finished: FinishedRun[] = [];
    const next = new Map<string, string | null>();
    for (const job of jobs) {
      const run = job.last_run;
      const at = run?.finished_at ?? null;
      const before = this.#seen.get(job.name);
      if (this.#primed && run !== null && before !== undefined && before !== at)
        finished.push({
          job: job.name,
          outcome: run.outcome,
          exitCode: run.exit_code,
          failReason: run.fail_reason,
          finishedAt: run.finished_at,
        });
      // Jobs gone from the list are forgotten (the map holds only the current ones).
      next.set(job.name, at ?? before ?? null);
    }
    this.#seen = next;
    this.#primed = true;
    return finished;
  }
}

/** At most this many notifications per window... */
export const NOTICE_LIMIT = 4;
export const NOTICE_WINDOW_MS = 60_000;
/** Names listed in a summary notification. */
const SUMMARY_NAMES = 5;

export interface Notice {
  readonly title: string;
  readonly body: string;
  /** Replaces an earlier notification with the same tag (a job failing again). */
  readonly tag: string;
}

function failureNotice(run: FinishedRun): Notice {
  const exit = run.exitCode === null ? '' : ` (exit ${run.exitCode})`;
  return {
    title: 'yacron2: job failed',
    body: `${run.job}${exit}${run.failReason === null ? '' : `\n${run.failReason}`}`,
    tag: `yacron2-job-${run.job}`,
  };
}

function summaryNotice(runs: readonly FinishedRun[], suppressed: number): Notice {
  const names = runs.slice(0, SUMMARY_NAMES).map((run) => run.job);
  const more = runs.length - names.length;
  const count = runs.length + suppressed;
  return {
    title: `yacron2: ${count} jobs failed`,
    body: `${names.join(', ')}${more > 0 ? ` and ${more} more` : ''}${
      suppressed > 0 ? ` (${suppressed} earlier not shown)` : ''
    }`,
    tag: 'yacron2-failures',
  };
}

export class NoticeGate {
  /** Send instants within the window, oldest first (at most NOTICE_LIMIT). */
  #sent: number[] = [];
  /** Failures not shown since the last notification. */
  #suppressed = 0;

  /** The notifications to show now for these failures (other outcomes are ignored). */
  plan(finished: readonly FinishedRun[], nowMs: number): Notice[] {
    const failures = finished.filter((run) => run.outcome === 'failure');
    if (failures.length === 0) return [];
    this.#sent = this.#sent.filter((at) => nowMs - at < NOTICE_WINDOW_MS);
    const budget = NOTICE_LIMIT - this.#sent.length;
    if (budget <= 0) {
      this.#suppressed += failures.length;
      return [];
    }
    const notices: Notice[] =
      failures.length <= budget && this.#suppressed === 0
        ? failures.map(failureNotice)
        : budget === 1 || this.#suppressed > 0
          ? [summaryNotice(failures, this.#suppressed)]
          : [
              ...failures.slice(0, budget - 1).map(failureNotice),
              summaryNotice(failures.slice(budget - 1), 0),
            ];
    this.#suppressed = 0;
    for (let i = 0; i < notices.length; i++) this.#sent.push(nowMs);
    return notices;
  }
}
