// The scheduler's durable collaborator (docs/durable-state.md "The durable scheduler features"):
// it answers the scheduler's durable-truth questions (depends-on-past, @reboot
// boot markers, retry settles), records the scheduler's events through the RunRecorder, and on
// each backend start runs the boot sequence (boot-steps.ts) and then missed-run catch-up. Only
// built when `state` is configured.
// Must not: block or delay a plain scheduled fire, or throw into the scheduler.
import {
  createDeferred,
  describeError,
  settlesWithin,
  TaskSet,
  YacronError,
} from '../common/index.js';
import type { ResolvedConfig, ResolvedJob, ResolvedState } from '../config/index.js';
import type {
  DurableCollaborator,
  DurableOutcome,
  RebootVerdict,
  RunSummary,
} from '../scheduler/index.js';
import { SCHEDULING_READ_TIMEOUT_MS, withTimeout } from '../state/index.js';
import {
  fillHistory,
  readBootMarkers,
  reconcileInterruptedRuns,
  REHYDRATE_RUNS,
  resumeRetries,
  seedCounters,
  warmUpFromLedger,
  type BootContext,
  type BootMarkerState,
  type HistoryRows,
} from './boot-steps.js';
import {
  listArchives,
  readArchive,
  type ArchiveEntry,
  type ArchiveLookup,
} from './archive-reader.js';
import { CatchupRunner } from './catchup-runner.js';
import { OrphanWatch, type LiveOrphans } from './interrupted-runs.js';
import { ConcurrencyLeases } from './concurrency-leases.js';
import { newestRealOutcome, parseLedgerRun, parseRuns } from './ledger-rows.js';
import { rebootMarkerData, rebootStream, REBOOT_KEEP, runsStream } from './records.js';
import { RetryClaims } from './retry-claims.js';
import { StoreRetryJournal } from './retry-journal.js';
import { RunRecorder } from './run-recorder.js';
import { StoreAccess } from './store-access.js';
import type { BootInfo, DurableDeps, TrendRuns } from './types.js';

export type { BootInfo, CounterSnapshots, DurableDeps, DurableProcessState } from './types.js';
export { COUNTER_SNAPSHOT_INTERVAL_MS } from './run-recorder.js';

/** A cached ledger outcome older than this is re-read in the background. */
const OUTCOME_REFRESH_MS = 10_000;
/** How long close() waits for the write queue (a hung mount must not hang shutdown). */
const CLOSE_DRAIN_MS = 5000;

export class DurableState implements DurableCollaborator {
  readonly onStoreUnavailable: 'degrade' | 'fail-closed';
  /** The retry protocol's persistence side (scheduler/retries.ts drives it). */
  readonly retries: StoreRetryJournal;
  /** Gate 6: the `concurrencyScope: cluster` slots (concurrency-leases.ts). */
  readonly concurrency: ConcurrencyLeases;
  readonly #deps: DurableDeps;
  readonly #settings: ResolvedState;
  readonly #access: StoreAccess;
  readonly #recorder: RunRecorder;
  readonly #tasks: TaskSet;
  readonly #claims: RetryClaims;
  /** A claim scan in progress (one at a time). */
  #scanning = false;
  /** The boot sequence finished (its re-arm step comes before any claim). */
  #bootDone = false;
  readonly #abort = new AbortController();
  #config: ResolvedConfig;
  #unsubscribers: (() => void)[] = [];
  /** The boot sequence read the ledger (the warm-up) at least once. */
  #ledgerRead = false;
  /** Newest durable success/failure per job, with when it was read (monotonic ms). */
  readonly #outcomes = new Map<
    string,
    { readonly outcome: DurableOutcome | null; readonly readAtMs: number }
  >();
  readonly #refreshing = new Set<string>();
  readonly #boot: Promise<BootInfo | null>;
  readonly #markers = createDeferred<Map<string, BootMarkerState>>();
  #catchup: CatchupRunner | null = null;
  /** Settles when the boot sequence ended (finished, failed or stopped by close). */
  #booted: Promise<void> = Promise.resolve();
  #closed = false;
  #started = false;

  constructor(deps: DurableDeps, settings: ResolvedState, config: ResolvedConfig) {
    this.#deps = deps;
    this.#settings = settings;
    this.#config = config;
    this.onStoreUnavailable = settings.onStoreUnavailable;
    this.#access = new StoreAccess(
      deps.store,
      deps.writes,
      deps.clock,
      deps.storeOpened,
      deps.storeOpenAttempt,
    );
    this.#recorder = new RunRecorder(deps, settings, this.#access);
    this.#claims = new RetryClaims({
      access: this.#access,
      clock: deps.clock,
      logger: deps.logger,
      host: deps.host,
      scheduler: deps.scheduler,
      process: deps.process,
      onStoreUnavailable: settings.onStoreUnavailable,
      sharedStore: () => deps.sharedStore?.(),
      ...(deps.cluster === undefined ? {} : { cluster: deps.cluster }),
      jobs: () => this.#config.jobs,
    });
    this.retries = new StoreRetryJournal({
      access: this.#access,
      clock: deps.clock,
      host: deps.host,
      process: deps.process,
      onStoreUnavailable: settings.onStoreUnavailable,
      claims: this.#claims,
    });
    this.#tasks = new TaskSet((error) =>
      deps.logger.error(`Durable state task failed: ${describeError(error)}`),
    );
    this.concurrency = new ConcurrencyLeases({
      store: deps.store,
      storeOpened: deps.storeOpened,
      ...(deps.lockFidelity === undefined ? {} : { lockFidelity: deps.lockFidelity }),
      access: this.#access,
      clock: deps.clock,
      logger: deps.logger,
      host: deps.host,
      processToken: deps.process.token,
      ttlMs: settings.slotTtlMs,
      onStoreUnavailable: settings.onStoreUnavailable,
      tasks: this.#tasks,
    });
    this.#boot = deps.readBoot().catch((error: unknown) => {
      deps.logger.warn(
        `Cannot read this OS boot's identity: ${describeError(error)}; @reboot jobs run at every daemon start`,
      );
      return null;
    });
    // Nobody may be waiting (no @reboot job): never an unhandled rejection.
    this.#markers.promise.catch(() => undefined);
  }
  /** The boot sequence has finished (its steps ran, failed ones logged). */
  get booted(): boolean {
    return this.#bootDone;
  }

  /** Live runs whose staged job-API secret values are held for archive scrubbing (tests). */
  get runsHoldingSecrets(): number {
    return this.#recorder.runsHoldingSecrets;
  }

  /** Subscribe to the scheduler and run the boot sequence once the store is open. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    const { events } = this.#deps.scheduler;
    this.#unsubscribers.push(
      events.on('run:started', (event) => this.#recorder.onRunStarted(event)),
      events.on('run:output', (event) => this.#recorder.onRunOutput(event)),
      events.on('run:finished', (event) => this.#recorder.onRunFinished(event)),
      events.on('retry:abandoned', (event) => this.#recorder.onRetryAbandoned(event)),
    );
    const booted = createDeferred<void>();
    this.#booted = booted.promise;
    this.#tasks.run(() => this.#backendStart().finally(() => booted.resolve()));
  }

  updateConfig(config: ResolvedConfig): void {
    this.#config = config;
    // Jobs added by the reload: read their ledger before their first gated fire, if possible.
    if (!this.#ledgerRead) return;
    for (const job of config.jobs) {
      if (job.onlyIfLastSucceeded && !this.#outcomes.has(job.name)) this.#refreshOutcome(job.name);
    }
  }

  /**
   * Stop: abort catch-up, write the final counter snapshot (unless `finalSnapshot` is false: a
   * state-section reload closes the old backend's write queue first, and the next backend keeps
   * snapshotting) and wait, bounded, for the accepted writes. A stop that came before the boot
   * sequence seeded the counters (the store still opening) seeds them first, so the snapshot
   * carries the previous process's totals and this one's runs alike.
   */
  async close(options: { readonly finalSnapshot?: boolean } = {}): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#abort.abort();
    this.#access.close();
    for (const off of this.#unsubscribers) off();
    this.#unsubscribers = [];
    this.#markers.reject(new Error('the durable state was closed'));
    const finalSnapshot = options.finalSnapshot !== false;
    const drained = async (): Promise<void> => {
      // The boot sequence stops at its next step; then the snapshot, then the writes.
      await this.#booted;
      if (finalSnapshot) await this.#finalCounterSnapshot();
      await this.#deps.writes.drain();
    };
    await settlesWithin(
      Promise.all([this.concurrency.close(), this.#tasks.close(), drained()]),
      CLOSE_DRAIN_MS,
      this.#deps.clock,
    );
  }

  async #finalCounterSnapshot(): Promise<void> {
    if (!this.#recorder.countersReady) {
      // Unseeded, a snapshot would replace the previous totals with this process's alone.
      if (!(await this.#access.untilOpen())) return;
      try {
        await seedCounters(this.#bootContext());
      } catch {
        return; // the store cannot answer: the last snapshot stays as it is
      }
      this.#recorder.enableCounterSnapshots();
    }
    this.#recorder.writeCounters();
  }

  #bootContext(): BootContext {
    return {
      deps: this.#deps,
      access: this.#access,
      jobs: this.#config.jobs,
      lastFinishMs: new Map(),
    };
  }

  // ---- the collaborator's decision points ------------------------------------------------------

  lastDurableOutcome(jobName: string): DurableOutcome | null | 'unavailable' {
    const known = this.#outcomes.get(jobName);
    if (!this.#access.readable) {
      this.#refreshOutcome(jobName);
      return 'unavailable';
    }
    if (known === undefined) {
      this.#refreshOutcome(jobName);
      // Before the boot sequence read the ledger, the store has not answered yet; a job added
      // later by a reload is read in the background and judged from memory until then.
      return this.#ledgerRead ? null : 'unavailable';
    }
    // Re-read in the background for the next decision: on a shared mount other nodes append.
    if (this.#deps.clock.monotonic() - known.readAtMs >= OUTCOME_REFRESH_MS) {
      this.#refreshOutcome(jobName);
    }
    return known.outcome;
  }

  async checkRebootRun(job: ResolvedJob): Promise<RebootVerdict> {
    const { logger, clock, host } = this.#deps;
    const boot = await this.#boot;
    // No boot identity on this platform: every daemon start is a boot, as without a store.
    if (boot === null) return 'run';
    try {
      const markers = await withTimeout(
        this.#markers.promise,
        SCHEDULING_READ_TIMEOUT_MS,
        clock,
        `read the @reboot marker of ${job.name}`,
      );
      // This host's newest marker decides: a marker of this boot for this definition.
      const newest = markers.get(job.name)?.newest ?? null;
      const ran =
        newest !== null && newest.jobDigest === job.digest && this.#deps.sameBoot(newest, boot);
      if (ran) {
        logger.info(
          `Job ${job.name}: @reboot already ran during this OS boot; not running it again`,
        );
        return 'ran-this-boot';
      }
      // Record-then-run: a crash between the marker and the spawn errs toward not re-running.
      const stream = rebootStream(job.name);
      const marker = {
        host,
        bootId: boot.bootId,
        bootTimeMs: boot.bootTimeMs,
        jobDigest: job.digest,
      };
      const landed = await this.#access.writeAndWait(
        'reboot-marker',
        stream,
        rebootMarkerData(marker, clock.now()),
      );
      if (landed) {
        this.#access.submitPrune('reboot-marker', stream, REBOOT_KEEP);
        return 'run';
      }
      return this.#policyFor(job, 'the @reboot marker could not be written');
    } catch (error) {
      return this.#policyFor(job, `the @reboot marker could not be read (${describeError(error)})`);
    }
  }

  /**
   * Cross-node retry resume: scan the jobs this node owns for a ladder another node handed off or
   * left stale, and claim it (docs/durable-state.md "Retry resume across nodes"). The daemon
   * calls it from its housekeeping pass and when this node gains leadership or quorum; a scan
   * already running absorbs the call. Never throws.
   */
  scanRetryClaims(): void {
    if (this.#closed || this.#scanning || !this.#bootDone) return;
    this.#scanning = true;
    this.#tasks.run(async () => {
      try {
        await this.#claims.scan();
      } finally {
        this.#scanning = false;
      }
    });
  }

  // ---- SLA trends ------------------------------------------------------------------------------

  /**
   * The ledger's runs of a job, oldest first, that GET /jobs/{name}/trends computes its windows
   * over. Rejects when the ledger cannot answer within the scheduling read bound: the route then
   * answers from the in-memory history (http/job-trends.ts owns that one fallback).
   */
  async getTrends(name: string): Promise<TrendRuns> {
    const { clock, store } = this.#deps;
    const limit = this.#settings.maxRunsPerJob ?? undefined;
    const records = await withTimeout(
      store.list(runsStream(name), limit === undefined ? {} : { limit }),
      SCHEDULING_READ_TIMEOUT_MS,
      clock,
      `read the run ledger of ${name}`,
    );
    const runs: RunSummary[] = [];
    for (const record of records) {
      const run = parseLedgerRun(record.data);
      if (run !== undefined) runs.push(run.summary);
    }
    runs.sort((a, b) => a.finishedAtMs - b.finishedAtMs);
    return { source: 'durable', runs };
  }

  // ---- archived output -------------------------------------------------------------------------

  /**
   * The job's archived runs, newest first (docs/durable-state.md "Output archival"). Rejects with
   * YC_ERR_STATE_UNAVAILABLE while the store is still opening, with YC_ERR_STATE_TIMEOUT when it
   * cannot answer within the scheduling read bound, and with the store's error.
   */
  listArchives(name: string, limit: number): Promise<readonly ArchiveEntry[]> {
    return this.#archiveRead(
      (store) => listArchives(store, name, limit),
      `list the archived output of ${name}`,
    );
  }

  /** One archived run's output by its record id; as listArchives for a store that cannot answer. */
  readArchive(name: string, id: string): Promise<ArchiveLookup> {
    return this.#archiveRead(
      (store) => readArchive(store, name, id),
      `read the archived output of ${name}`,
    );
  }

  #archiveRead<T>(read: (store: DurableDeps['store']) => Promise<T>, what: string): Promise<T> {
    if (!this.#access.isOpen) {
      return Promise.reject(
        new YacronError(
          'YC_ERR_STATE_UNAVAILABLE',
          `Cannot ${what}: the state store is not open yet`,
        ),
      );
    }
    return withTimeout(read(this.#deps.store), SCHEDULING_READ_TIMEOUT_MS, this.#deps.clock, what);
  }

  // ---- internals -------------------------------------------------------------------------------

  #policyFor(job: ResolvedJob, problem: string): 'run' | 'state-unavailable' {
    if (this.onStoreUnavailable === 'degrade') {
      this.#deps.logger.warn(
        `Job ${job.name}: ${problem}; running the @reboot job anyway (degrade)`,
      );
      return 'run';
    }
    this.#deps.logger.warn(`Job ${job.name}: ${problem}; skipping the boot run (fail-closed)`);
    return 'state-unavailable';
  }

  #setOutcome(name: string, outcome: DurableOutcome | null): void {
    this.#outcomes.set(name, { outcome, readAtMs: this.#deps.clock.monotonic() });
  }

  /** Re-read one job's newest durable outcome in the background (once at a time per job). */
  #refreshOutcome(name: string): void {
    if (this.#closed || this.#refreshing.has(name)) return;
    this.#refreshing.add(name);
    this.#tasks.run(async () => {
      try {
        const records = await this.#access.read(
          this.#deps.store.list(runsStream(name), { limit: REHYDRATE_RUNS }),
          `read the run ledger of ${name}`,
        );
        this.#setOutcome(name, newestRealOutcome(parseRuns(records.map((r) => r.data))));
      } catch {
        // Still unavailable: the gate keeps following onStoreUnavailable.
      } finally {
        this.#refreshing.delete(name);
      }
    });
  }

  // ---- the boot sequence ---------------------------------------------------------------------------

  async #backendStart(): Promise<void> {
    const { logger, process } = this.#deps;
    // A close while the store is not open ends the wait (StoreAccess.untilOpen says when).
    const opened = await this.#access.untilOpen();
    if (!opened || this.#closed) return;
    const context = this.#bootContext();
    // Rows for the in-memory history: the warm-up's (first backend start of the process only)
    // plus the reconciled ones, handed over together in ledger order.
    const history: HistoryRows = new Map();
    const rehydrateHistory = !process.historyRehydrated;
    process.historyRehydrated = true;
    const steps: [string, () => Promise<void>][] = [
      [
        'read the @reboot markers',
        async () => {
          try {
            this.#markers.resolve(await readBootMarkers(context));
          } catch (error) {
            this.#markers.reject(error instanceof Error ? error : new Error(String(error)));
            throw error;
          }
        },
      ],
      [
        'rehydrate the run history',
        async () => {
          await warmUpFromLedger(
            context,
            (name, outcome) => this.#setOutcome(name, outcome),
            rehydrateHistory ? history : null,
          );
          this.#ledgerRead = true;
        },
      ],
      [
        'reconcile interrupted runs',
        async () => {
          try {
            this.#watchOrphans(context, await reconcileInterruptedRuns(context, history));
          } finally {
            // The streams were read whole (or the store could not answer): prunes may go on.
            this.#recorder.releaseInflightPrunes();
          }
        },
      ],
      ['fill the run history', () => Promise.resolve(fillHistory(context, history))],
      [
        're-arm durable retries',
        async () => {
          const markers = await this.#markers.promise.catch(
            () => new Map<string, BootMarkerState>(),
          );
          await resumeRetries(context, this.retries, await this.#boot, markers);
        },
      ],
      [
        'seed the durable counters',
        async () => {
          await seedCounters(context);
          this.#recorder.enableCounterSnapshots();
        },
      ],
    ];
    for (const [what, step] of steps) {
      if (this.#closed) return;
      try {
        await step();
      } catch (error) {
        logger.warn(`State store: cannot ${what}: ${describeError(error)}`);
      }
    }
    if (this.#closed) return;
    // Ladders other nodes left for the jobs this node owns now (a no-op unless resume is active).
    this.#bootDone = true;
    this.scanRetryClaims();
    if (this.#deps.sharedStore?.() !== false) this.#tasks.run(() => this.#refreshGatedOutcomes());
    if (process.catchupEvaluated) return;
    process.catchupEvaluated = true;
    this.#catchup = new CatchupRunner({
      clock: this.#deps.clock,
      logger,
      store: this.#deps.store,
      scheduler: this.#deps.scheduler,
      untilMs: this.#deps.schedulerStartedAtMs,
      onStoreUnavailable: this.onStoreUnavailable,
      read: (work, what) => this.#access.read(work, what),
      writeAndWait: (stream, data) => this.#access.writeAndWait('checkpoint', stream, data),
      prune: (stream, keep) => this.#access.submitPrune('checkpoint', stream, keep),
      tasks: this.#tasks,
      signal: this.#abort.signal,
    });
    this.#catchup.start(this.#config.jobs);
  }

  /**
   * Ask the cluster gate again for the catch-ups it refused (this node gained ownership or
   * quorum, or the daemon's housekeeping pass). Never throws; a no-op before the boot sequence.
   */
  recheckCatchup(): void {
    if (this.#closed) return;
    this.#catchup?.recheck();
  }

  /**
   * Watch the orphans the reconciliation left alone (their pids still existed) and reconcile
   * each job again once one of them is gone; their streams are not pruned meanwhile.
   */
  #watchOrphans(context: BootContext, orphans: readonly LiveOrphans[]): void {
    if (orphans.length === 0) return;
    const watch = new OrphanWatch(
      context,
      (name, rows) => {
        this.#deps.scheduler.rehydrateHistory(
          name,
          rows.map((run) => run.summary),
        );
      },
      (name) => this.#recorder.releaseInflight(name),
    );
    for (const each of orphans) {
      this.#recorder.holdInflight(each.job.name);
      watch.add(each);
    }
    this.#tasks.run(() => watch.run(this.#abort.signal));
  }

  /**
   * On a store other nodes write to, re-read the gated jobs' newest durable outcome every
   * OUTCOME_REFRESH_MS, not only after a decision: a decision-triggered read answers the NEXT fire
   * with what the ledger held just after the previous one, so a failure another node records
   * between two fires would be missed (and a local success would then hide it for good).
   */
  async #refreshGatedOutcomes(): Promise<void> {
    for (;;) {
      try {
        await this.#deps.clock.sleep(OUTCOME_REFRESH_MS, this.#abort.signal);
      } catch {
        return; // closed
      }
      for (const job of this.#config.jobs) {
        if (job.onlyIfLastSucceeded) this.#refreshOutcome(job.name);
      }
    }
  }
}
