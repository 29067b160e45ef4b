// The steps of the boot sequence (seed: "once per backend start (after the ledger warm, before
// the retry re-arm)"): read the @reboot markers, warm up from the ledger, reconcile interrupted
// runs, hand the rows to the in-memory history, re-arm pending retries, seed the counters. Each
// reads through the bounded StoreAccess and throws when the store cannot answer; DurableState
// runs them in order and logs a failed step.
import type { ResolvedJob } from '../config/index.js';
import type { DurableOutcome, RetryJournal, RetrySettleReason } from '../scheduler/index.js';
import { newestRealOutcome, parseRuns, reconciledRow, runSummaryOf } from './ledger-rows.js';
import {
  countersStream,
  inflightStream,
  ledgerInstantMs,
  parseInflight,
  parseRebootMarker,
  parseRetry,
  rebootStream,
  retriesStream,
  runsStream,
  type InflightOpen,
  type LedgerRun,
  type RebootMarker,
} from './records.js';
import { planRetryResume } from './retry-journal.js';
import type { StoreAccess } from './store-access.js';
import type { BootInfo, DurableDeps } from './types.js';

/** Runs read per job to warm up the in-memory history (its bound) and the gate's cache. */
export const REHYDRATE_RUNS = 50;
/** How many newest in-flight records reconciliation scans per job. */
const INFLIGHT_SCAN = 50;
/** Parallel per-job reads in the boot sequence. */
const BOOT_READ_CONCURRENCY = 16;

export interface BootContext {
  readonly deps: DurableDeps;
  readonly access: StoreAccess;
  readonly jobs: readonly ResolvedJob[];
}

/** This host's markers of one @reboot job, newest first, as read at backend start. */
export interface BootMarkerState {
  readonly markers: readonly RebootMarker[];
}

/** Ledger rows for the in-memory history per job, collected by the warm-up and reconciliation. */
export type HistoryRows = Map<string, LedgerRun[]>;

export async function readBootMarkers(ctx: BootContext): Promise<Map<string, BootMarkerState>> {
  const { deps, access } = ctx;
  const markers = new Map<string, BootMarkerState>();
  const rebootJobs = ctx.jobs.filter((job) => job.schedule.kind === 'reboot');
  await forEachLimited(rebootJobs, async (job) => {
    const records = await access.read(
      access.store.list(rebootStream(job.name), { limit: 20 }),
      `read the @reboot markers of ${job.name}`,
    );
    const mine = records
      .map((record) => parseRebootMarker(record.data))
      .filter((marker): marker is RebootMarker => marker?.host === deps.host);
    markers.set(job.name, { markers: mine });
  });
  return markers;
}

/**
 * Read each job's newest ledger rows: its newest real outcome goes to `onOutcome` (the gate's
 * cache), and, when `history` is given, the rows other processes wrote go there (rows of this
 * very process are in memory already: they ran before the store opened).
 */
export async function warmUpFromLedger(
  ctx: BootContext,
  onOutcome: (name: string, outcome: DurableOutcome | null) => void,
  history: HistoryRows | null,
): Promise<void> {
  const { access, deps } = ctx;
  await forEachLimited(ctx.jobs, async (job) => {
    const records = await access.read(
      access.store.list(runsStream(job.name), { limit: REHYDRATE_RUNS }),
      `read the run ledger of ${job.name}`,
    );
    const datas = records.map((record) => record.data);
    onOutcome(job.name, newestRealOutcome(parseRuns(datas)));
    if (history === null) return;
    const older = parseRuns(datas.filter((data) => data['token'] !== deps.process.token));
    if (older.length > 0) history.set(job.name, older);
  });
}

/**
 * Same-host crash reconciliation: an open in-flight record of this host without its close is
 * closed `reconciled-crash` and gets a synthetic `unknown` ledger row (also added to `history`),
 * unless it is this process's own, the job runs here now, or its pid still exists.
 */
export async function reconcileInterruptedRuns(
  ctx: BootContext,
  history: HistoryRows,
): Promise<void> {
  const { access, deps } = ctx;
  const { scheduler, host, process, logger, pidAlive } = deps;
  await forEachLimited(ctx.jobs, async (job) => {
    const stream = inflightStream(job.name);
    const records = await access.read(
      access.store.list(stream, { limit: INFLIGHT_SCAN }),
      `read the in-flight records of ${job.name}`,
    );
    // Oldest first: an open record stays open until a close of the same token follows it.
    const open = new Map<string, InflightOpen>();
    for (const stored of [...records].reverse()) {
      const record = parseInflight(stored.data);
      if (record === undefined) continue;
      if (record.kind === 'open') open.set(record.token, record);
      else {
        open.delete(record.token);
        if (record.closes !== undefined) open.delete(record.closes);
      }
    }
    for (const record of open.values()) {
      // Guard 1: a record of this very process (a state-section reload under live runs).
      if (record.host !== host || record.token === process.token) continue;
      // Guard 2: live local instances outrank the ledger.
      if (scheduler.activeInstances(job.name) > 0) continue;
      // Guard 3: a daemon crash does not kill the job processes it spawned.
      if (record.pid !== null && pidAlive(record.pid)) {
        logger.warn(
          `Job ${job.name}: an interrupted run (pid ${record.pid}) from a previous daemon process is still alive; leaving it alone`,
        );
        continue;
      }
      const closed = await access.writeAndWait('inflight', stream, {
        kind: 'closed',
        host,
        token: process.token,
        reason: 'reconciled-crash',
        closes: record.token,
      });
      if (!closed) continue;
      const row = reconciledRow(job, record, host);
      if (await access.writeAndWait('run-record', runsStream(job.name), row)) {
        const rows = history.get(job.name) ?? [];
        rows.push(row);
        history.set(job.name, rows);
      }
      logger.warn(
        `Job ${job.name}: the run started at ${new Date(record.startedAtMs).toISOString()} never finished (daemon crash); recorded as outcome unknown`,
      );
    }
  });
}

/** Hand the collected rows to the in-memory history, oldest first. */
export function fillHistory(ctx: BootContext, history: HistoryRows): void {
  let restored = 0;
  for (const [name, runs] of history) {
    runs.sort((a, b) => ledgerInstantMs(a) - ledgerInstantMs(b));
    if (ctx.deps.scheduler.rehydrateHistory(name, runs.map(runSummaryOf))) restored += runs.length;
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
  journal: RetryJournal,
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
    const newest = records[0] === undefined ? undefined : parseRetry(records[0].data);
    if (newest?.kind !== 'pending' || newest.host !== host) return;
    // This process's own live ladder (armed before the boot sequence reached this step).
    if (records[0]?.data['token'] === deps.process.token) return;
    const settle = (reason: RetrySettleReason): void => {
      logger.info(`Cron job ${name}: settling its durable retry #${newest.attempt} (${reason})`);
      journal.settled(name, newest.attempt, reason);
    };
    const plan = planRetryResume(newest, jobs.get(name), clock.now(), () => {
      // No boot identity on this platform: every daemon start is the same "boot".
      if (boot === null) return true;
      return (markers.get(name)?.markers ?? []).some((marker) => deps.sameBoot(marker, boot));
    });
    switch (plan.kind) {
      case 'settle':
        settle(plan.reason);
        return;
      case 'resume':
        if (!scheduler.resumeRetry(name, newest.attempt, newest.notBeforeMs)) settle('superseded');
        return;
    }
  });
}

/** Add this host's last counter snapshot into the fresh accumulators, once per process. */
export async function seedCounters(ctx: BootContext): Promise<void> {
  const { access, deps } = ctx;
  const { counters, host, process } = deps;
  if (counters === undefined || process.countersSeeded) return;
  const records = await access.read(
    access.store.list(countersStream(host), { limit: 1 }),
    'read the counter snapshot',
  );
  process.countersSeeded = true;
  const snapshot = records[0]?.data['snapshot'];
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
