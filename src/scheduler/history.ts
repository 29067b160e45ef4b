// In-memory run history: the summary of each finished run in domain values (epoch ms,
// milliseconds), built from its RunOutcome, and a bounded per-job list. Pure data; the scheduler
// decides what gets recorded, and the edges render it (http/ as the API's run record, durable/ as
// a ledger row).
import type { RunOutcome } from '../runner/index.js';

/** Runs kept per job in memory (docs/configuration.md "How a run works"). */
export const HISTORY_LIMIT = 50;
/** Runs in a job view's `history` summary. */
export const HISTORY_SUMMARY_LIMIT = 20;
export const CANCELLED_FAIL_REASON = 'cancelled via web UI';

export type RunSummaryOutcome = 'success' | 'failure' | 'cancelled' | 'unknown';

/** One point of a run's resource series: epoch ms, CPU % (100 = one core), RSS bytes. */
export type RunResourcePoint = readonly [atMs: number, cpuPercent: number, rssBytes: number];

/** Resource use of a run's process tree (when monitored). */
export interface RunResources {
  readonly cpuUserSeconds: number;
  readonly cpuSystemSeconds: number;
  readonly cpuTotalSeconds: number;
  readonly maxRssBytes: number;
  readonly samples: number;
  /** The CPU/RSS series, bounded by monitorResources.history (absent when not kept). */
  readonly series?: readonly RunResourcePoint[];
}

/** One finished run as the scheduler and its subscribers see it. */
export interface RunSummary {
  readonly outcome: RunSummaryOutcome;
  readonly exitCode: number | null;
  /** Epoch ms of the launch; null for a run whose start is unknown (a reconciled crash). */
  readonly startedAtMs: number | null;
  /** Epoch ms the run ended (NaN when unknown). */
  readonly finishedAtMs: number;
  readonly durationMs: number | null;
  readonly failReason: string | null;
  readonly resources: RunResources | null;
}

/** The summary of a finished run; `cancelled` = cancelled via the API. */
export function summarizeRun(
  outcome: RunOutcome,
  cancelled: boolean,
  resources: RunResources | null = null,
): RunSummary {
  const summaryOutcome: RunSummaryOutcome = cancelled
    ? 'cancelled'
    : outcome.failReason === null
      ? 'success'
      : 'failure';
  return {
    outcome: summaryOutcome,
    exitCode: outcome.exitCode,
    startedAtMs: outcome.startedAtMs,
    finishedAtMs: outcome.finishedAtMs,
    durationMs: outcome.durationMs,
    failReason: cancelled ? CANCELLED_FAIL_REASON : outcome.failReason,
    resources,
  };
}

/** A job's newest runs, oldest first, at most `limit`. */
export class RunHistory {
  readonly #limit: number;
  #runs: RunSummary[] = [];

  constructor(limit = HISTORY_LIMIT) {
    this.#limit = limit;
  }

  push(run: RunSummary): void {
    this.#runs.push(run);
    if (this.#runs.length > this.#limit) this.#runs.splice(0, this.#runs.length - this.#limit);
  }

  /** Older runs (oldest first) in front of the ones recorded here, keeping the newest. */
  prepend(older: readonly RunSummary[]): void {
    const room = this.#limit - this.#runs.length;
    if (room <= 0 || older.length === 0) return;
    this.#runs = [...older.slice(Math.max(0, older.length - room)), ...this.#runs];
  }

  list(): readonly RunSummary[] {
    return [...this.#runs];
  }

  last(): RunSummary | null {
    return this.#runs.at(-1) ?? null;
  }

  /** The newest `count` runs, oldest first. */
  newest(count: number): readonly RunSummary[] {
    return this.#runs.slice(Math.max(0, this.#runs.length - count));
  }
}
