// The steps of the boot sequence (docs/durable-state.md "The boot sequence"): read the @reboot
// markers, warm up from the ledger, reconcile interrupted runs, hand the rows to the in-memory
// history, re-arm pending retries, seed the counters. Each reads through the bounded StoreAccess
// and throws when the store cannot answer; DurableState runs them in order and logs a failed
// step.
import type { ResolvedJob } from '../config/index.js';
import type { DurableOutcome, RunSummary } from '../scheduler/index.js';
import { newestFinishMs, newestRealOutcome, parseRuns, type LedgerRun } from './ledger-rows.js';
import { reconcileJob, type LiveOrphans } from './interrupted-runs.js';
import {
  countersStream,
  isoAt,
  parseRebootMarker,
  rebootStream,
  REBOOT_KEEP,
  retriesStream,
  runsStream,
  type RebootMarker,
} from './records.js';
import { parseRetry } from './retry-records.js';
import { planRetryResume, type StoreRetryJournal } from './retry-journal.js';
import type { StoreAccess } from './store-access.js';
import type { BootInfo, DurableDeps } from './types.js';

/** Runs read per job to warm up the in-memory history (its bound) and the gate's cache. */
export const REHYDRATE_RUNS = 50;
/** Parallel per-job reads in the boot sequence. */
const BOOT_READ_CONCURRENCY = 16;

export interface BootContext {
  readonly deps: DurableDeps;
  readonly access: StoreAccess;
  readonly jobs: readonly ResolvedJob[];
  /** When each job's newest ledger row finished, filled by the warm-up. */
  readonly lastFinishMs: Map<string, number>;
}

/** The @reboot marker that decides for one job: this host's newest, or null when none. */
export interface BootMarkerState {
  readonly newest: RebootMarker | null;
}

/** Ledger rows for the in-memory history per job, collected by the warm-up and reconciliation. */
export type HistoryRows = Map<string, LedgerRun[]>;

/** Of each @reboot job's newest REBOOT_KEEP markers, the first of this host decides. */
export async function readBootMarkers(ctx: BootContext): Promise<Map<string, BootMarkerState>> {
  const { deps, access } = ctx;
  const markers = new Map<string, BootMarkerState>();
  const rebootJobs = ctx.jobs.filter((job) => job.schedule.kind === 'reboot');
  await forEachLimited(rebootJobs, async (job) => {
    const records = await access.read(
      access.store.list(rebootStream(job.name), { limit: REBOOT_KEEP }),
      `read the @reboot markers of ${job.name}`,
    );
    let newest: RebootMarker | null = null;
    for (const record of records) {
      const marker = parseRebootMarker(record.data);
      if (marker?.host === deps.host) {
        newest = marker;
        break;
      }
    }
    markers.set(job.name, { newest });
  });
  return markers;
}

/** A run's identity for telling a ledger row from the same run already in memory. */
const runKey = (run: RunSummary): string =>
  `${run.outcome}|${run.startedAtMs === null ? '' : isoAt(run.startedAtMs)}|${isoAt(run.finishedAtMs)}`;

/**
 * Read each job's newest ledger rows: its newest real outcome goes to `onOutcome` (the gate's
 * cache), its newest finish to ctx.lastFinishMs, and, when `history` is given, the rows not
 * already in memory go there (runs of this process that ended before the store opened are).
 */
export async function warmUpFromLedger(
  ctx: BootContext,
  onOutcome: (name: string, outcome: DurableOutcome | null) => void,
  history: HistoryRows | null,
): Promise<void> {
  const { access } = ctx;
  await forEachLimited(ctx.jobs, async (job) => {
    const records = await access.read(
      access.store.list(runsStream(job.name), { limit: REHYDRATE_RUNS }),
      `read the run ledger of ${job.name}`,
    );
    const runs = parseRuns(records.map((record) => record.data));
    onOutcome(job.name, newestRealOutcome(runs));
    const finishedMs = newestFinishMs(runs);
    if (finishedMs !== null) ctx.lastFinishMs.set(job.name, finishedMs);
    if (history === null) return;
    const inMemory = new Set(memoryRuns(ctx.deps.scheduler, job.name).map(runKey));
    const older = runs.filter((run) => !inMemory.has(runKey(run.summary)));
    if (older.length > 0) history.set(job.name, older);
  });
}

/**
 * Same-host crash reconciliation (interrupted-runs.ts): every run another daemon process of this
 * host left open without a completion gets a `closed` (reason `reconciled-crash`) record and an
 * `unknown` ledger row (also added to `history`), unless its pid still exists: those orphans are
 * returned, to be watched until they end.
 */
export async function reconcileInterruptedRuns(
  ctx: BootContext,
  history: HistoryRows,
): Promise<LiveOrphans[]> {
  const orphans: LiveOrphans[] = [];
  await forEachLimited(ctx.jobs, async (job) => {
    const { rows, alive } = await reconcileJob(ctx, job);
    if (rows.length > 0) history.set(job.name, [...(history.get(job.name) ?? []), ...rows]);
    for (const open of alive) {
      ctx.deps.logger.warn(
        `Job ${job.name}: an interrupted run (pid ${open.pid}) from a previous daemon process is still alive; leaving it alone until it ends`,
      );
    }
    if (alive.length > 0) orphans.push({ job, opens: alive });
  });
  return orphans;
}

/** Hand the collected rows to the in-memory history, oldest first. */
export function fillHistory(ctx: BootContext, history: HistoryRows): void {
  let restored = 0;
  for (const [name, runs] of history) {
    runs.sort((a, b) => a.summary.finishedAtMs - b.summary.finishedAtMs);
    const summaries = runs.map((run) => run.summary);
    if (ctx.deps.scheduler.rehydrateHistory(name, summaries)) restored += runs.length;
  }
  history.clear();
  if (restored > 0) {
    ctx.deps.logger.info(`State store: rehydrated ${restored} run(s) of history from the ledger`);
  }
}

/**
 * Re-arm each pending retry of this host at its persisted position, or settle it
 * (planRetryResume says which); the scheduler may still refuse the re-arm (a ladder of this
 * process is newer), and then the record is settled `superseded`.
 */
export async function resumeRetries(
  ctx: BootContext,
  journal: StoreRetryJournal,
  boot: BootInfo | null,
  markers: ReadonlyMap<string, BootMarkerState>,
): Promise<void> {
  const { access, deps } = ctx;
  const { scheduler, host, clock, logger } = deps;
  const jobs = new Map(ctx.jobs.map((job) => [job.name, job]));
  const names = new Set(jobs.keys());
  const streams = await access.read(access.store.listStreams('retries/'), 'list the retry streams');
  for (const stream of streams) names.add(stream.slice('retries/'.length));
  await forEachLimited([...names], async (name) => {
    const records = await access.read(
      access.store.list(retriesStream(name), { limit: 1 }),
      `read the retry records of ${name}`,
    );
    const data = records[0]?.data;
    const newest = data === undefined ? undefined : parseRetry(data);
    // Only a pending record of this host re-arms here (a handoff is claimed, not re-armed).
    if (newest?.kind !== 'pending' && newest?.kind !== 'pending-invalid') return;
    if (newest.host !== host) return;
    // This process's own live ladder (armed before the boot sequence reached this step).
    if (data?.['at'] !== undefined && deps.process.armedRetries.get(name) === data['at']) return;
    const attempt = newest.kind === 'pending' ? newest.attempt : null;
    const plan = planRetryResume(newest, {
      job: jobs.get(name),
      nowMs: clock.now(),
      // No boot identity on this platform: every daemon start is the same "boot".
      sameBootMarker: () => {
        const marker = markers.get(name)?.newest ?? null;
        return boot === null || (marker !== null && deps.sameBoot(marker, boot));
      },
      lastRunFinishedMs: lastFinish(ctx, name),
    });
    if (plan.kind === 'resume') {
      const { pending } = plan;
      if (scheduler.resumeRetry(name, pending.attempt, pending.notBeforeMs)) return;
      logger.info(`Cron job ${name}: settling its durable retry #${pending.attempt} (superseded)`);
      journal.settledAs(name, pending.attempt, 'superseded');
      return;
    }
    logger.info(
      `Cron job ${name}: settling its durable retry${attempt === null ? '' : ` #${attempt}`} (${plan.reason})`,
    );
    journal.settledAs(name, attempt, plan.reason);
  });
}

/** The in-memory history of a job; none for a name the scheduler does not (or no longer) know. */
function memoryRuns(
  scheduler: BootContext['deps']['scheduler'],
  name: string,
): readonly RunSummary[] {
  try {
    return scheduler.getRuns(name);
  } catch {
    return [];
  }
}

/** When the job's newest known run finished: the ledger's or the in-memory history's. */
function lastFinish(ctx: BootContext, name: string): number | null {
  const ledger = ctx.lastFinishMs.get(name) ?? null;
  const memory = memoryLastFinishMs(ctx.deps.scheduler, name);
  return ledger === null || (memory !== null && memory > ledger) ? memory : ledger;
}

/** When the job's newest run in the in-memory history finished (reconciled rows aside), or null. */
export function memoryLastFinishMs(
  scheduler: BootContext['deps']['scheduler'],
  name: string,
): number | null {
  let newest: number | null = null;
  for (const run of memoryRuns(scheduler, name)) {
    if (run.startedAtMs === null) continue; // a reconciled row: no verdict, no finish
    if (newest === null || run.finishedAtMs > newest) newest = run.finishedAtMs;
  }
  return newest;
}

/** Add this host's newest counter snapshot into the fresh accumulators, once per process. */
export async function seedCounters(ctx: BootContext): Promise<void> {
  const { access, deps } = ctx;
  const { counters, host, process } = deps;
  if (counters === undefined || process.countersSeeded) return;
  const records = await access.read(
    access.store.list(countersStream(host), { limit: 1 }),
    'read the counter snapshot',
  );
  process.countersSeeded = true;
  const snapshot = records[0]?.data;
  if (snapshot === undefined) return;
  counters.seed(snapshot, new Set(ctx.jobs.map((job) => job.name)));
  deps.logger.info('State store: Prometheus counters continue from the last snapshot');
}

/** Run `work` over items, at most BOOT_READ_CONCURRENCY at a time; the first error rejects. */
async function forEachLimited<T>(
  items: readonly T[],
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(BOOT_READ_CONCURRENCY, items.length) }, worker));
}
