// The browser run ledger's rows (docs/dashboard.md "Run ledger, notifications and cues"): each
// finished run the page sees in `GET /jobs` (a job's `last_run`) becomes one row, kept per job
// oldest first, so a job's history outlives the daemon's last 50 runs in this browser. Pure:
// the page's IndexedDB adapter (ui/ledger/) stores the rows this module adds and deletes the
// ones it drops.
// Must not: hold more than LEDGER_PER_JOB rows of a job or LEDGER_TOTAL rows in all (the oldest
// go first), or record a run twice (a row's id is its job and its start and finish instants, so
// a reload or another poll of the same run is the same row).
import type { JobWire, RunOutcome } from './api-types.js';
import { parseIso } from './format.js';

/** Rows kept per job (the baseline's window). */
export const LEDGER_PER_JOB = 600;
/** Rows kept in all; past it the oldest row of any job goes. */
export const LEDGER_TOTAL = 20_000;

const OUTCOMES: readonly RunOutcome[] = ['success', 'failure', 'cancelled', 'unknown'];

export interface LedgerRun {
  /** `<job>|<started_at>|<finished_at>`: the same run always has the same id. */
  readonly id: string;
  readonly job: string;
  readonly startedAt: string | null;
  readonly finishedAt: string;
  readonly finishedMs: number;
  readonly outcome: RunOutcome;
  readonly exitCode: number | null;
  /** Seconds. */
  readonly durationS: number | null;
  readonly failReason: string | null;
}

/** The row of a job's last finished run; null when it has none (or an unreadable instant). */
export function ledgerRunOf(job: JobWire): LedgerRun | null {
  const run = job.last_run;
  if (run === null) return null;
  const finishedMs = parseIso(run.finished_at);
  if (finishedMs === null) return null;
  return {
    id: `${job.name}|${run.started_at ?? ''}|${run.finished_at}`,
    job: job.name,
    startedAt: run.started_at,
    finishedAt: run.finished_at,
    finishedMs,
    outcome: run.outcome,
    exitCode: run.exit_code,
    durationS: run.duration,
    failReason: run.fail_reason,
  };
}

function nullableNumber(value: unknown): value is number | null {
  return value === null || (typeof value === 'number' && Number.isFinite(value));
}

function nullableString(value: unknown): value is string | null {
  return value === null || typeof value === 'string';
}

/** A row read back from storage, checked field by field; null when anything is off. */
export function parseLedgerRun(value: unknown): LedgerRun | null {
  if (typeof value !== 'object' || value === null) return null;
  if (
    !('id' in value && typeof value.id === 'string') ||
    !('job' in value && typeof value.job === 'string') ||
    !('startedAt' in value && nullableString(value.startedAt)) ||
    !('finishedAt' in value && typeof value.finishedAt === 'string') ||
    !('finishedMs' in value && typeof value.finishedMs === 'number') ||
    !('outcome' in value) ||
    !('exitCode' in value && nullableNumber(value.exitCode)) ||
    !('durationS' in value && nullableNumber(value.durationS)) ||
    !('failReason' in value && nullableString(value.failReason))
  )
    return null;
  const outcome = OUTCOMES.find((candidate) => candidate === value.outcome);
  if (outcome === undefined || !Number.isFinite(value.finishedMs)) return null;
  return {
    id: value.id,
    job: value.job,
    startedAt: value.startedAt,
    finishedAt: value.finishedAt,
    finishedMs: value.finishedMs,
    outcome,
    exitCode: value.exitCode,
    durationS: value.durationS,
    failReason: value.failReason,
  };
}

/** What one change did: rows to store, rows to delete from storage. */
export interface LedgerChange {
  readonly added: readonly LedgerRun[];
  readonly dropped: readonly LedgerRun[];
}

/** The export file (`Export` in the settings). */
export interface LedgerExport {
  readonly schema: 'yacron2-run-ledger/1';
  readonly exported_at: string;
  readonly runs: Readonly<
    Record<
      string,
      readonly {
        readonly started_at: string | null;
        readonly finished_at: string;
        readonly outcome: RunOutcome;
        readonly exit_code: number | null;
        readonly duration: number | null;
        readonly fail_reason: string | null;
      }[]
    >
  >;
}

/** Approximate bytes a row takes in storage (its JSON text). */
function sizeOf(run: LedgerRun): number {
  return JSON.stringify(run).length;
}

export class LedgerRuns {
  readonly #byJob = new Map<string, LedgerRun[]>();
  readonly #ids = new Set<string>();
  #bytes = 0;
  readonly #perJob: number;
  readonly #total: number;

  constructor(perJob = LEDGER_PER_JOB, total = LEDGER_TOTAL) {
    this.#perJob = perJob;
    this.#total = total;
  }

  get count(): number {
    return this.#ids.size;
  }

  get jobCount(): number {
    return this.#byJob.size;
  }

  /** Approximate storage the rows take, in bytes. */
  get bytes(): number {
    return this.#bytes;
  }

  /** A job's rows, oldest first. */
  runsOf(job: string): readonly LedgerRun[] {
    return this.#byJob.get(job) ?? [];
  }

  jobs(): IterableIterator<string> {
    return this.#byJob.keys();
  }

  /** Replaces everything with stored rows (dedupe, order, caps); `dropped` = rows over a cap. */
  hydrate(rows: readonly LedgerRun[]): LedgerChange {
    this.clear();
    const dropped: LedgerRun[] = [];
    for (const run of [...rows].sort((a, b) => a.finishedMs - b.finishedMs))
      dropped.push(...this.#add(run));
    return { added: [], dropped };
  }

  /** Records each job's last finished run not recorded yet. */
  record(jobs: readonly JobWire[]): LedgerChange {
    const added: LedgerRun[] = [];
    const dropped: LedgerRun[] = [];
    for (const job of jobs) {
      const run = ledgerRunOf(job);
      if (run === null || this.#ids.has(run.id)) continue;
      const evicted = this.#add(run);
      // A row over a cap the moment it came (older than all a full job keeps) is not stored.
      if (evicted.includes(run)) continue;
      added.push(run);
      dropped.push(...evicted);
    }
    return { added, dropped };
  }

  clear(): void {
    this.#byJob.clear();
    this.#ids.clear();
    this.#bytes = 0;
  }

  export(nowIso: string): LedgerExport {
    const runs: LedgerExport['runs'] = Object.fromEntries(
      [...this.#byJob].map(([job, list]) => [
        job,
        list.map((run) => ({
          started_at: run.startedAt,
          finished_at: run.finishedAt,
          outcome: run.outcome,
          exit_code: run.exitCode,
          duration: run.durationS,
          fail_reason: run.failReason,
        })),
      ]),
    );
    return { schema: 'yacron2-run-ledger/1', exported_at: nowIso, runs };
  }

  /** Adds one row in finish order; returns the rows the caps dropped (maybe this one). */
  #add(run: LedgerRun): LedgerRun[] {
    if (this.#ids.has(run.id)) return [];
    let list = this.#byJob.get(run.job);
    if (list === undefined) {
      list = [];
      this.#byJob.set(run.job, list);
    }
    let index = list.length;
    while (index > 0 && list[index - 1]!.finishedMs > run.finishedMs) index -= 1;
    list.splice(index, 0, run);
    this.#ids.add(run.id);
    this.#bytes += sizeOf(run);
    const dropped: LedgerRun[] = [];
    while (list.length > this.#perJob) dropped.push(this.#dropOldest(run.job));
    while (this.#ids.size > this.#total) dropped.push(this.#dropOldest(this.#oldestJob()));
    return dropped;
  }

  /** The job whose oldest row is the oldest of all. */
  #oldestJob(): string {
    let oldest: string | null = null;
    let oldestMs = Infinity;
    for (const [job, list] of this.#byJob) {
      const first = list[0];
      if (first !== undefined && first.finishedMs < oldestMs) {
        oldest = job;
        oldestMs = first.finishedMs;
      }
    }
    if (oldest === null) throw new Error('the ledger holds no row to drop');
    return oldest;
  }

  #dropOldest(job: string): LedgerRun {
    const list = this.#byJob.get(job);
    const run = list?.shift();
    if (list === undefined || run === undefined) throw new Error(`no ledger row of ${job}`);
    if (list.length === 0) this.#byJob.delete(job);
    this.#ids.delete(run.id);
    this.#bytes -= sizeOf(run);
    return run;
  }
}
