// Crash reconciliation of one job, see
// docs/durable-state.md "In-flight records and crash reconciliation": read the job's whole
// in-flight stream and as much of its ledger as the open runs need, append a `closed` record and
// an `unknown` row for each run a previous daemon process on this host left without a completion,
// and hand back the runs whose process is still alive. The boot sequence calls it for every job;
// OrphanWatch calls it again for a job once one of its live orphans is gone. The decisions are
// inflight-plan.ts's.
// Must not: kill or signal an orphaned job process, or append a row for a run the ledger has.
import { describeError } from '../common/index.js';
import type { ResolvedJob } from '../config/index.js';
import type { StateStore } from '../state/index.js';
import type { InflightOpen } from './records.js';
import { parseLedgerRun, reconciledRowOf, type LedgerRun } from './ledger-rows.js';
import { accountedStarts, openRunsOfOtherProcesses, unaccountedOpens } from './inflight-plan.js';
import { inflightClosedData, inflightStream, isoAt, runsStream } from './records.js';
import type { StoreAccess } from './store-access.js';
import type { DurableDeps } from './types.js';

/**
 * The most in-flight records read per job. A stream is pruned to INFLIGHT_KEEP, except while it
 * holds a live orphan's open record (run-recorder.ts keeps it up to INFLIGHT_HOLD_MAX_OPENS).
 */
export const INFLIGHT_READ_MAX = 1024;
/** The ledger is read back in steps of this many rows, times 4 each step, up to the last. */
const LEDGER_READ_FIRST = 64;
const LEDGER_READ_MAX = 4096;
/**
 * A ledger row written this long before an open run started cannot be that run's row (rows of
 * other hosts sharing the store are named by their own clocks).
 */
const LEDGER_CLOCK_SLACK_MS = 60_000;
/** How often OrphanWatch looks at its orphans' pids; one is gone after two looks in a row. */
export const ORPHAN_POLL_MS = 1000;

export interface ReconcileContext {
  readonly deps: DurableDeps;
  readonly access: StoreAccess;
}

/** A job's runs whose process outlived the daemon that started them (their pids still exist). */
export interface LiveOrphans {
  readonly job: ResolvedJob;
  readonly opens: readonly InflightOpen[];
}

/**
 * Reconcile one job: every open run of another process of this host that no ledger row accounts
 * for gets a `closed` (reason `reconciled-crash`) record and an `unknown` row, unless its pid
 * still exists. Returns the rows appended (for the in-memory history) and the live orphans (the
 * caller says so: the watch asks again and again).
 */
export async function reconcileJob(
  ctx: ReconcileContext,
  job: ResolvedJob,
): Promise<{ readonly rows: LedgerRun[]; readonly alive: InflightOpen[] }> {
  const { access, deps } = ctx;
  const { host, process, logger, pidAlive, clock } = deps;
  const stream = inflightStream(job.name);
  const records = await access.read(
    access.store.list(stream, { limit: INFLIGHT_READ_MAX }),
    `read the in-flight records of ${job.name}`,
  );
  const opens = openRunsOfOtherProcesses(records, host, process.token);
  if (opens.length === 0) return { rows: [], alive: [] };
  const accounted = await readAccountedStarts(
    (work, what) => access.read(work, what),
    access.store,
    job.name,
    Math.min(...opens.map((open) => open.startedAtMs)),
  );
  const owed = unaccountedOpens(opens, accounted);
  const rows: LedgerRun[] = [];
  const alive: InflightOpen[] = [];
  for (const open of owed) {
    // A daemon crash does not kill the job processes it spawned.
    if (open.pid !== null && pidAlive(open.pid)) {
      alive.push(open);
      continue;
    }
    const closed = await access.writeAndWait(
      'inflight',
      stream,
      inflightClosedData(host, process.token, 'reconciled-crash', clock.now()),
    );
    if (!closed) continue;
    const row = reconciledRowOf(job.onMissed, open.startedAtMs, open.host);
    if (await access.writeAndWait('run-record', runsStream(job.name), row)) {
      const run = parseLedgerRun(row);
      if (run !== undefined) rows.push(run);
    }
    logger.warn(
      `Job ${job.name}: the run started at ${isoAt(open.startedAtMs)} never finished (daemon crash); recorded as outcome unknown`,
    );
  }
  return { rows, alive };
}

/**
 * The start instants the job's ledger accounts for, read newest first until the rows reach back
 * before `oldestMs` (the oldest open run's start; or the ledger ends, or LEDGER_READ_MAX rows were
 * read), through `read` (the scheduling-path bound). Missed-run catch-up asks it too.
 */
export async function readAccountedStarts(
  read: <T>(work: Promise<T>, what: string) => Promise<T>,
  store: StateStore,
  name: string,
  oldestMs: number,
): Promise<Set<number>> {
  for (let limit = LEDGER_READ_FIRST; ; limit *= 4) {
    const rows = await read(
      store.list(runsStream(name), { limit }),
      `read the run ledger of ${name}`,
    );
    const oldestRead = rows.at(-1);
    const reachesBack =
      oldestRead === undefined || oldestRead.writtenAtMs < oldestMs - LEDGER_CLOCK_SLACK_MS;
    if (rows.length < limit || reachesBack || limit >= LEDGER_READ_MAX) {
      return accountedStarts(rows.map((row) => row.data));
    }
  }
}

/**
 * Watches the live orphans the boot's reconciliation left alone and reconciles a job again once
 * one of its orphans' pid has been gone at two looks in a row (its own daemon, if it is alive
 * after all, has had a second to record the run). `onSettled` is told when a job has no orphan
 * left, `onRows` of the rows appended. Bounded: the orphans come from one bounded read, and the
 * watch ends with the signal.
 */
export class OrphanWatch {
  readonly #ctx: ReconcileContext;
  readonly #watched = new Map<string, LiveOrphans>();
  readonly #goneOnce = new Set<string>();
  /** Jobs whose last reconciliation failed (logged once). */
  readonly #failing = new Set<string>();
  readonly #onRows: (job: string, rows: readonly LedgerRun[]) => void;
  readonly #onSettled: (job: string) => void;

  constructor(
    ctx: ReconcileContext,
    onRows: (job: string, rows: readonly LedgerRun[]) => void,
    onSettled: (job: string) => void,
  ) {
    this.#ctx = ctx;
    this.#onRows = onRows;
    this.#onSettled = onSettled;
  }

  get size(): number {
    return this.#watched.size;
  }

  add(orphans: LiveOrphans): void {
    if (orphans.opens.length > 0) this.#watched.set(orphans.job.name, orphans);
  }

  /** Look every ORPHAN_POLL_MS until no orphan is left or the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const { clock, logger } = this.#ctx.deps;
    while (this.#watched.size > 0) {
      try {
        await clock.sleep(ORPHAN_POLL_MS, signal);
      } catch {
        return; // closed
      }
      for (const [name, orphans] of [...this.#watched]) {
        if (!this.#anyGone(orphans)) continue;
        try {
          const { rows, alive } = await reconcileJob(this.#ctx, orphans.job);
          this.#failing.delete(name);
          if (rows.length > 0) this.#onRows(name, rows);
          if (alive.length > 0) {
            this.#watched.set(name, { job: orphans.job, opens: alive });
            continue;
          }
        } catch (error) {
          // Once per job until it succeeds: a store in trouble is asked again at every look.
          if (!this.#failing.has(name)) {
            this.#failing.add(name);
            logger.warn(
              `State store: cannot reconcile the interrupted runs of ${name}: ${describeError(error)}; trying again`,
            );
          }
          continue;
        }
        this.#watched.delete(name);
        this.#onSettled(name);
      }
    }
  }

  /** Whether an orphan of the job has been gone at this look and the one before. */
  #anyGone({ opens }: LiveOrphans): boolean {
    let due = false;
    for (const open of opens) {
      const key = `${open.proc}|${open.startedAtMs}`;
      if (open.pid !== null && this.#ctx.deps.pidAlive(open.pid)) {
        this.#goneOnce.delete(key);
      } else if (this.#goneOnce.has(key)) {
        due = true;
      } else {
        this.#goneOnce.add(key);
      }
    }
    return due;
  }
}
