// In-memory run history: A.7 run records built from RunOutcome values, a bounded per-job list,
// and the stats object. Pure data; the scheduler decides what gets recorded.
import type { RunOutcome } from '../runner/index.js';
import type { RunRecord, RunRecordOutcome, RunStats } from './types.js';

/** Runs kept per job in memory (jobs.md §6). */
export const HISTORY_LIMIT = 50;
/** Runs in the A.6 `history` summary. */
export const HISTORY_SUMMARY_LIMIT = 20;
export const CANCELLED_FAIL_REASON = 'cancelled via web UI';

/** Python `datetime.isoformat()` of an aware UTC instant: microseconds only when non-zero. */
export function formatIsoUtc(epochMs: number): string {
  const whole = Math.floor(epochMs);
  const micros = Math.round((epochMs - whole) * 1000);
  const base = new Date(whole).toISOString(); // 2026-06-21T12:00:00.123Z
  const millis = whole - Math.floor(whole / 1000) * 1000;
  const fraction =
    millis === 0 && micros === 0
      ? ''
      : '.' + String(millis).padStart(3, '0') + String(micros).padStart(3, '0');
  return base.slice(0, 19) + fraction + '+00:00';
}

/** The record of a finished run; `cancelled` = cancelled via the API. */
export function buildRunRecord(outcome: RunOutcome, cancelled: boolean): RunRecord {
  const recordOutcome: RunRecordOutcome = cancelled
    ? 'cancelled'
    : outcome.failReason === null
      ? 'success'
      : 'failure';
  return {
    outcome: recordOutcome,
    exit_code: outcome.exitCode,
    started_at: formatIsoUtc(outcome.startedAtMs),
    finished_at: formatIsoUtc(outcome.finishedAtMs),
    duration: outcome.durationMs / 1000,
    fail_reason: cancelled ? CANCELLED_FAIL_REASON : outcome.failReason,
    resources: null,
  };
}

/** A job's newest runs, oldest first, at most `limit`. */
export class RunHistory {
  readonly #limit: number;
  #runs: RunRecord[] = [];

  constructor(limit = HISTORY_LIMIT) {
    this.#limit = limit;
  }

  push(record: RunRecord): void {
    this.#runs.push(record);
    if (this.#runs.length > this.#limit) this.#runs.splice(0, this.#runs.length - this.#limit);
  }

  /** Older runs (oldest first) in front of the ones recorded here, keeping the newest. */
  prepend(older: readonly RunRecord[]): void {
    const room = this.#limit - this.#runs.length;
    if (room <= 0 || older.length === 0) return;
    this.#runs = [...older.slice(Math.max(0, older.length - room)), ...this.#runs];
  }

  list(): readonly RunRecord[] {
    return [...this.#runs];
  }

  last(): RunRecord | null {
    return this.#runs.at(-1) ?? null;
  }

  /** The newest `count` runs, oldest first. */
  newest(count: number): readonly RunRecord[] {
    return this.#runs.slice(Math.max(0, this.#runs.length - count));
  }
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

/** The A.7 stats object over `runs` (oldest first). */
export function computeRunStats(runs: readonly RunRecord[]): RunStats {
  const count = (outcome: RunRecordOutcome): number =>
    runs.filter((run) => run.outcome === outcome).length;
  const success = count('success');
  const failure = count('failure');
  const durations = runs.map((run) => run.duration).filter(present);
  const cpu = runs.map((run) => run.resources?.cpu_total_seconds).filter(present);
  const rss = runs.map((run) => run.resources?.max_rss_bytes).filter(present);
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
    last_duration: newest?.duration ?? null,
    avg_cpu_seconds: average(cpu),
    max_cpu_seconds: maximum(cpu),
    last_cpu_seconds: newest?.resources?.cpu_total_seconds ?? null,
    avg_rss_bytes: average(rss),
    max_rss_bytes: maximum(rss),
    last_rss_bytes: newest?.resources?.max_rss_bytes ?? null,
  };
}
