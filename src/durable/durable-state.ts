// The scheduler's durable collaborator (seed "The durable run ledger" through "When the store is
// unavailable"): it writes the ledger, in-flight records, archived output, retry records, boot
// markers and counter snapshots as background writes from the scheduler's events, and on each
// backend start runs the boot sequence (boot markers, history rehydration, crash reconciliation,
// retry re-arm, counter seeding, missed-run catch-up). Only built when `state` is configured.
// Must not: block or delay a plain scheduled fire, or throw into the scheduler.
import { describeError, TaskSet, type Clock, type Logger } from '../common/index.js';
import type { ResolvedConfig, ResolvedJob, ResolvedState } from '../config/index.js';
import type {
  DurableCollaborator,
  DurableOutcome,
  RetrySettleReason,
  RunFinishedEvent,
  RunStartedEvent,
  Scheduler,
} from '../scheduler/index.js';
import {
  SCHEDULING_READ_TIMEOUT_MS,
  withTimeout,
  type DroppedWriteKind,
  type StateStore,
  type StateWriteQueue,
} from '../state/index.js';
import { CatchupRunner } from './catchup-runner.js';
import { ledgerRowOf, reconciledRow, runRecordOf } from './ledger-rows.js';
import {
  countersStream,
  inflightStream,
  ledgerInstantMs,
  logsStream,
  parseInflight,
  parseLedgerRun,
  parseRebootMarker,
  parseRetry,
  rebootStream,
  retriesStream,
  runsStream,
  type InflightOpen,
  type LedgerRun,
  type RebootMarker,
} from './records.js';
import { REDACTED } from './redact.js';
import { computeTrends, toTrendRuns, type TrendRun, type TrendsView } from './trends.js';

/** A boot's identity: an exact id (Linux) or a boot time compared with a tolerance. */
export interface BootInfo {
  readonly bootId: string | null;
  readonly bootTimeMs: number | null;
}

/** What survives a state-section reload: the once-per-process steps and the process token. */
export interface DurableProcessState {
  /** Identifies this daemon process in in-flight records (the reconciliation's own-process guard). */
  readonly token: string;
  historyRehydrated: boolean;
  countersSeeded: boolean;
  catchupEvaluated: boolean;
  /**
   * Live instances per job on this node, for the in-flight 0->1 / 1->0 records: kept here so a
   * run started under one backend still gets its close under the next one.
   */
  readonly live: Map<string, number>;
}

export interface CounterSnapshots {
  snapshot(): unknown;
  seed(snapshot: unknown, configuredJobNames: ReadonlySet<string>): void;
}

export interface DurableDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly host: string;
  readonly store: StateStore;
  readonly writes: StateWriteQueue;
  /** Resolves true once the store is open, false when it closed first. Never rejects. */
  readonly storeOpened: Promise<boolean>;
  readonly scheduler: Scheduler;
  readonly process: DurableProcessState;
  /** Epoch ms of the scheduler's start-up pass: the live loop fires slots after it. */
  readonly schedulerStartedAtMs: number;
  readonly readBoot: () => Promise<BootInfo | null>;
  readonly sameBoot: (a: BootInfo, b: BootInfo) => boolean;
  /** Does a process with this pid exist on this host? */
  readonly pidAlive: (pid: number) => boolean;
  readonly counters?: CounterSnapshots;
  readonly redact: (text: string) => string;
  /** The secrets staged for a live run over the job API (scrubbed from its archived output). */
  readonly secretValues?: (runId: string) => Promise<readonly string[]> | undefined;
  /**
   * Whether other hosts may write this store (topology shared); undefined = assume they may.
   * Only then are the gated jobs' ledger outcomes re-read on a timer.
   */
  readonly sharedStore?: () => boolean | undefined;
}

/** Counter snapshots are written at most this often (plus a final one at shutdown). */
export const COUNTER_SNAPSHOT_INTERVAL_MS = 15_000;
/** A cached ledger outcome older than this is re-read in the background after a decision. */
const OUTCOME_REFRESH_MS = 10_000;
/** Runs rehydrated into the in-memory history per job (its bound). */
const REHYDRATE_RUNS = 50;
/** In-flight records kept per job after each close. */
const INFLIGHT_KEEP = 20;
/** In-flight streams are pruned on the first close and every this many after it. */
const INFLIGHT_PRUNE_EVERY = 10;
/** How many newest in-flight records reconciliation scans per job. */
const INFLIGHT_SCAN = 50;
/** Parallel per-job reads in the boot sequence. */
const BOOT_READ_CONCURRENCY = 16;
/** Ledger and archive prunes happen every this many appends per job (and on the first). */
const PRUNE_EVERY = 20;
/** How long close() waits for the write queue (a hung mount must not hang shutdown). */
const CLOSE_DRAIN_MS = 5000;

interface BootMarkerState {
  /** This host's markers of the job, newest first, as read at backend start. */
  readonly markers: readonly RebootMarker[];
}

export class DurableState implements DurableCollaborator {
  readonly onStoreUnavailable: 'degrade' | 'fail-closed';
  readonly #deps: DurableDeps;
  readonly #settings: ResolvedState;
  readonly #tasks: TaskSet;
  readonly #abort = new AbortController();
  #config: ResolvedConfig;
  #unsubscribers: (() => void)[] = [];
  /** False after a store read failed or timed out, until a read succeeds again. */
  #readable = true;
  /** The boot sequence read the ledger (rehydration) at least once. */
  #ledgerRead = false;
  /** Newest durable success/failure per job, with when it was read (monotonic ms). */
  readonly #outcomes = new Map<
    string,
    { readonly outcome: DurableOutcome | null; readonly readAtMs: number }
  >();
  readonly #appends = new Map<string, number>();
  readonly #closes = new Map<string, number>();
  #lastCountersMs = Number.NEGATIVE_INFINITY;
  #countersReady = false;
  readonly #boot: Promise<BootInfo | null>;
  readonly #markers: Promise<Map<string, BootMarkerState>>;
  #resolveMarkers: (markers: Map<string, BootMarkerState>) => void = () => undefined;
  #rejectMarkers: (error: Error) => void = () => undefined;
  #closed = false;
  #started = false;
  /**
   * Ledger rows for the in-memory history, per job: what the warm-up read (first backend start
   * only) plus the rows reconciliation appended, handed to the scheduler after reconciliation so
   * GET /jobs/{name}/runs shows a reconciled row at once, in ledger order.
   */
  readonly #historyRows = new Map<string, LedgerRun[]>();
  /** Staged job-API secret values of live runs that archive their output. */
  readonly #runSecrets = new Map<string, Promise<readonly string[]>>();

  constructor(deps: DurableDeps, settings: ResolvedState, config: ResolvedConfig) {
    this.#deps = deps;
    this.#settings = settings;
    this.#config = config;
    this.onStoreUnavailable = settings.onStoreUnavailable;
    this.#tasks = new TaskSet((error) =>
      deps.logger.error(`Durable state task failed: ${describeError(error)}`),
    );
    this.#boot = deps.readBoot().catch((error: unknown) => {
      deps.logger.warn(
        `Cannot read this OS boot's identity: ${describeError(error)}; @reboot jobs run at every daemon start`,
      );
      return null;
    });
    this.#markers = new Promise((resolve, reject) => {
      this.#resolveMarkers = resolve;
      this.#rejectMarkers = reject;
    });
    // Nobody may be waiting (no @reboot job): never an unhandled rejection.
    this.#markers.catch(() => undefined);
  }

  /** Subscribe to the scheduler and run the boot sequence once the store is open. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    const { events } = this.#deps.scheduler;
    this.#unsubscribers.push(
      events.on('run:started', (event) => this.#onRunStarted(event)),
      events.on('run:finished', (event) => this.#onRunFinished(event)),
    );
    this.#tasks.run(() => this.#backendStart());
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
   * snapshotting) and wait, bounded, for the accepted writes.
   */
  async close(options: { readonly finalSnapshot?: boolean } = {}): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#abort.abort();
    for (const off of this.#unsubscribers) off();
    this.#unsubscribers = [];
    this.#rejectMarkers(new Error('the durable state was closed'));
    // The final, unthrottled counter snapshot.
    if (this.#countersReady && options.finalSnapshot !== false) this.#writeCounters();
    const giveUp = new AbortController();
    await Promise.race([
      Promise.all([this.#tasks.close(), this.#deps.writes.drain()]),
      this.#deps.clock.sleep(CLOSE_DRAIN_MS, giveUp.signal).catch(() => undefined),
    ]);
    giveUp.abort();
  }

  // ---- the collaborator's decision points ------------------------------------------------------

  lastDurableOutcome(jobName: string): DurableOutcome | null | 'unavailable' {
    const known = this.#outcomes.get(jobName);
    if (!this.#readable) {
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

  async checkRebootRun(job: ResolvedJob): Promise<'run' | 'ran-this-boot' | 'state-unavailable'> {
    const { logger, clock, host } = this.#deps;
    const boot = await this.#boot;
    // No boot identity on this platform: every daemon start is a boot, as without a store.
    if (boot === null) return 'run';
    try {
      const markers = await withTimeout(
        this.#markers,
        SCHEDULING_READ_TIMEOUT_MS,
        clock,
        `read the @reboot marker of ${job.name}`,
      );
      const ran = (markers.get(job.name)?.markers ?? []).some(
        (marker) => marker.digest === job.digest && this.#deps.sameBoot(marker, boot),
      );
      if (ran) {
        logger.info(
          `Job ${job.name}: @reboot already ran during this OS boot; not running it again`,
        );
        return 'ran-this-boot';
      }
      // Record-then-run: a crash between the marker and the spawn errs toward not re-running.
      const landed = await this.#writeAndWait('reboot-marker', rebootStream(job.name), {
        host,
        bootId: boot.bootId,
        bootTimeMs: boot.bootTimeMs,
        digest: job.digest,
        atMs: clock.now(),
      });
      if (landed) return 'run';
      return this.#policyFor(job, 'the @reboot marker could not be written');
    } catch (error) {
      return this.#policyFor(job, `the @reboot marker could not be read (${describeError(error)})`);
    }
  }

  retryArmed(job: ResolvedJob, attempt: number, notBeforeMs: number): void {
    this.#submit('retry', retriesStream(job.name), {
      kind: 'pending',
      host: this.#deps.host,
      token: this.#deps.process.token,
      attempt,
      notBeforeMs,
      digest: job.digest,
    });
  }

  async retryDue(job: ResolvedJob, attempt: number): Promise<'launched' | 'unrecorded' | 'defer'> {
    const landed = await this.#writeAndWait('retry', retriesStream(job.name), {
      kind: 'settled',
      host: this.#deps.host,
      token: this.#deps.process.token,
      attempt,
      reason: 'launched',
    });
    if (landed) return 'launched';
    return this.onStoreUnavailable === 'degrade' ? 'unrecorded' : 'defer';
  }

  retrySettled(job: ResolvedJob, attempt: number, reason: RetrySettleReason): void {
    this.#submit('retry', retriesStream(job.name), {
      kind: 'settled',
      host: this.#deps.host,
      attempt,
      reason,
    });
  }

  // ---- SLA trends ------------------------------------------------------------------------------

  /** GET /jobs/{name}/trends: the ledger's windows, or the in-memory history when it cannot answer. */
  async getTrends(name: string): Promise<TrendsView> {
    const { clock, store, scheduler } = this.#deps;
    try {
      const limit = this.#settings.maxRunsPerJob ?? undefined;
      const records = await withTimeout(
        store.list(runsStream(name), limit === undefined ? {} : { limit }),
        SCHEDULING_READ_TIMEOUT_MS,
        clock,
        `read the run ledger of ${name}`,
      );
      const runs: TrendRun[] = [];
      for (const record of records) {
        const run = parseLedgerRun(record.data);
        if (run === undefined) continue;
        runs.push({ ...runRecordOf(run), finishedAtMs: ledgerInstantMs(run) });
      }
      runs.sort((a, b) => a.finishedAtMs - b.finishedAtMs);
      return computeTrends(name, runs, clock.now(), 'durable');
    } catch (error) {
      this.#deps.logger.warn(
        `Cannot read the run ledger of ${name} for trends: ${describeError(error)}; answering from memory`,
      );
      return computeTrends(name, toTrendRuns(scheduler.getRuns(name).runs), clock.now(), 'memory');
    }
  }

  // ---- events -> background writes -------------------------------------------------------------

  #onRunStarted(event: RunStartedEvent): void {
    const name = event.job.name;
    if (event.job.archiveOutput && event.job.secrets.length > 0) {
      // Asked at the start: by the run's end the job API has dropped them.
      const values = this.#deps.secretValues?.(event.runId);
      if (values !== undefined) this.#runSecrets.set(event.runId, values);
    }
    const lives = this.#deps.process.live;
    const live = lives.get(name) ?? 0;
    lives.set(name, live + 1);
    if (live > 0) return;
    // The 0 -> 1 transition: an open in-flight record (the crash-reconciliation anchor).
    const open: InflightOpen = {
      kind: 'open',
      host: this.#deps.host,
      token: this.#deps.process.token,
      pid: event.pid,
      startedAtMs: event.startedAtMs,
      digest: event.job.digest,
    };
    this.#submit('inflight', inflightStream(name), open);
  }

  #onRunFinished(event: RunFinishedEvent): void {
    const { job } = event;
    const name = job.name;
    const lives = this.#deps.process.live;
    const live = lives.get(name) ?? 0;
    if (live > 0) {
      if (live === 1) {
        lives.delete(name);
        const stream = inflightStream(name);
        this.#submit('inflight', stream, {
          kind: 'closed',
          host: this.#deps.host,
          token: this.#deps.process.token,
          reason: 'finished',
        });
        // Pruned every INFLIGHT_PRUNE_EVERY closes, not each: a prune lists the stream. The
        // stream stays under INFLIGHT_KEEP + INFLIGHT_PRUNE_EVERY * 2 records, inside the
        // reconciliation's INFLIGHT_SCAN window.
        const closes = (this.#closes.get(name) ?? 0) + 1;
        this.#closes.set(name, closes);
        if (closes % INFLIGHT_PRUNE_EVERY === 1)
          this.#submitPrune('inflight', stream, INFLIGHT_KEEP);
      } else {
        lives.set(name, live - 1);
      }
    }
    if (!event.recorded) return;
    const appends = (this.#appends.get(name) ?? 0) + 1;
    this.#appends.set(name, appends);
    const prune = appends === 1 || appends % PRUNE_EVERY === 0;
    const keep = this.#settings.maxRunsPerJob;
    this.#submit(
      'run-record',
      runsStream(name),
      ledgerRowOf(event, this.#deps.host, this.#deps.process.token),
    );
    if (prune && keep !== null) this.#submitPrune('run-record', runsStream(name), keep);
    if (job.archiveOutput) {
      this.#archive(event);
      if (prune && keep !== null) this.#submitPrune('archive', logsStream(name), keep);
    }
    if (this.#countersReady) {
      const nowMs = this.#deps.clock.monotonic();
      if (nowMs - this.#lastCountersMs >= COUNTER_SNAPSHOT_INTERVAL_MS) {
        this.#lastCountersMs = nowMs;
        this.#writeCounters();
      }
    }
  }

  #archive(event: RunFinishedEvent): void {
    const { job, outcome } = event;
    const { store, writes, host } = this.#deps;
    const stream = logsStream(job.name);
    const staged = this.#runSecrets.get(event.runId) ?? Promise.resolve([]);
    this.#runSecrets.delete(event.runId);
    writes.submit('archive', stream, async () => {
      // The run's own staged secrets are scrubbed whatever redactArchivedSecrets says: they
      // never touch the store.
      const secrets = (await staged.catch(() => [])).filter((value) => value.length > 0);
      const scrub = (text: string | undefined): string | null => {
        if (text === undefined) return null;
        let scrubbed = text;
        for (const value of secrets) scrubbed = scrubbed.replaceAll(value, REDACTED);
        return job.redactArchivedSecrets ? this.#deps.redact(scrubbed) : scrubbed;
      };
      return store.append(stream, {
        job: job.name,
        host,
        runId: event.runId,
        outcome: event.record.outcome,
        finishedAtMs: outcome.finishedAtMs,
        stdout: scrub(outcome.stdout?.text),
        stderr: scrub(outcome.stderr?.text),
        truncated: Boolean(outcome.stdout?.truncated || outcome.stderr?.truncated),
        redacted: job.redactArchivedSecrets,
      });
    });
  }

  #writeCounters(): void {
    const counters = this.#deps.counters;
    if (counters === undefined) return;
    const stream = countersStream(this.#deps.host);
    this.#submit('counters', stream, {
      host: this.#deps.host,
      atMs: this.#deps.clock.now(),
      snapshot: counters.snapshot(),
    });
    this.#submitPrune('counters', stream, 3);
  }

  // ---- store plumbing ----------------------------------------------------------------------------

  #submit(kind: DroppedWriteKind, stream: string, data: object): void {
    const { store, writes } = this.#deps;
    writes.submit(kind, stream, () => store.append(stream, data));
  }

  #submitPrune(kind: DroppedWriteKind, stream: string, keep: number): void {
    const { store, writes } = this.#deps;
    writes.submit(kind, stream, () => store.prune(stream, keep));
  }

  /** Queue a write and wait (bounded) until it landed; false when dropped or too slow. */
  async #writeAndWait(kind: DroppedWriteKind, stream: string, data: object): Promise<boolean> {
    const { store, writes, clock } = this.#deps;
    const landed = writes.write(kind, stream, () => store.append(stream, data));
    try {
      return await withTimeout(landed, SCHEDULING_READ_TIMEOUT_MS, clock, `write to ${stream}`);
    } catch {
      return false;
    }
  }

  /**
   * Read through the scheduling-path bound. Reads alone decide whether the store "can answer"
   * for the durable-truth gates: a failing write (a full disk) does not make the ledger
   * unreadable, and must not make a fail-closed gate flap.
   */
  async #read<T>(work: Promise<T>, what: string): Promise<T> {
    try {
      const value = await withTimeout(work, SCHEDULING_READ_TIMEOUT_MS, this.#deps.clock, what);
      this.#readable = true;
      return value;
    } catch (error) {
      this.#readable = false;
      throw error;
    }
  }

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

  /** Re-read one job's newest durable outcome in the background (after trouble, or unknown). */
  #refreshing = new Set<string>();
  #refreshOutcome(name: string): void {
    if (this.#closed || this.#refreshing.has(name)) return;
    this.#refreshing.add(name);
    this.#tasks.run(async () => {
      try {
        const records = await this.#read(
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
    const { logger } = this.#deps;
    const opened = await this.#deps.storeOpened;
    if (!opened || this.#closed) return;
    const steps: [string, () => Promise<void>][] = [
      ['read the @reboot markers', () => this.#readBootMarkers()],
      ['rehydrate the run history', () => this.#rehydrate()],
      ['reconcile interrupted runs', () => this.#reconcile()],
      ['fill the run history', () => this.#fillHistory()],
      ['re-arm durable retries', () => this.#resumeRetries()],
      ['seed the durable counters', () => this.#seedCounters()],
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
    if (this.#deps.sharedStore?.() !== false) this.#tasks.run(() => this.#refreshGatedOutcomes());
    if (this.#deps.process.catchupEvaluated) return;
    this.#deps.process.catchupEvaluated = true;
    new CatchupRunner({
      clock: this.#deps.clock,
      logger,
      host: this.#deps.host,
      store: this.#deps.store,
      scheduler: this.#deps.scheduler,
      untilMs: this.#deps.schedulerStartedAtMs,
      onStoreUnavailable: this.onStoreUnavailable,
      read: (work, what) => this.#read(work, what),
      writeAndWait: (stream, data) => this.#writeAndWait('checkpoint', stream, data),
      tasks: this.#tasks,
      signal: this.#abort.signal,
    }).start(this.#config.jobs);
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

  async #readBootMarkers(): Promise<void> {
    const markers = new Map<string, BootMarkerState>();
    const rebootJobs = this.#config.jobs.filter((job) => job.schedule.kind === 'reboot');
    try {
      await forEachLimited(rebootJobs, async (job) => {
        const records = await this.#read(
          this.#deps.store.list(rebootStream(job.name), { limit: 20 }),
          `read the @reboot markers of ${job.name}`,
        );
        const mine = records
          .map((record) => parseRebootMarker(record.data))
          .filter((marker): marker is RebootMarker => marker?.host === this.#deps.host);
        markers.set(job.name, { markers: mine });
      });
    } catch (error) {
      this.#rejectMarkers(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
    this.#resolveMarkers(markers);
  }

  async #rehydrate(): Promise<void> {
    const { store, process } = this.#deps;
    const rehydrateHistory = !process.historyRehydrated;
    process.historyRehydrated = true;
    await forEachLimited(this.#config.jobs, async (job) => {
      const records = await this.#read(
        store.list(runsStream(job.name), { limit: REHYDRATE_RUNS }),
        `read the run ledger of ${job.name}`,
      );
      const runs = parseRuns(records.map((record) => record.data));
      this.#setOutcome(job.name, newestRealOutcome(runs));
      // Runs of this very process are in memory already (they ran before the store opened).
      const older = parseRuns(
        records.map((record) => record.data).filter((data) => data['token'] !== process.token),
      );
      if (rehydrateHistory && older.length > 0) this.#historyRows.set(job.name, older);
    });
    this.#ledgerRead = true;
  }

  /** Hand the warm-up's rows and the reconciled ones to the in-memory history, oldest first. */
  #fillHistory(): Promise<void> {
    let restored = 0;
    for (const [name, runs] of this.#historyRows) {
      runs.sort((a, b) => ledgerInstantMs(a) - ledgerInstantMs(b));
      if (this.#deps.scheduler.rehydrateHistory(name, runs.map(runRecordOf))) {
        restored += runs.length;
      }
    }
    this.#historyRows.clear();
    if (restored > 0) {
      this.#deps.logger.info(
        `State store: rehydrated ${restored} run(s) of history from the ledger`,
      );
    }
    return Promise.resolve();
  }

  async #reconcile(): Promise<void> {
    const { store, scheduler, host, process, logger, pidAlive } = this.#deps;
    await forEachLimited(this.#config.jobs, async (job) => {
      const stream = inflightStream(job.name);
      const records = await this.#read(
        store.list(stream, { limit: INFLIGHT_SCAN }),
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
        const closed = await this.#writeAndWait('inflight', stream, {
          kind: 'closed',
          host,
          token: process.token,
          reason: 'reconciled-crash',
          closes: record.token,
        });
        if (!closed) continue;
        const row = reconciledRow(job, record, host);
        if (await this.#writeAndWait('run-record', runsStream(job.name), row)) {
          const rows = this.#historyRows.get(job.name) ?? [];
          rows.push(row);
          this.#historyRows.set(job.name, rows);
        }
        logger.warn(
          `Job ${job.name}: the run started at ${new Date(record.startedAtMs).toISOString()} never finished (daemon crash); recorded as outcome unknown`,
        );
      }
    });
  }

  async #resumeRetries(): Promise<void> {
    const { store, scheduler, host, clock, logger } = this.#deps;
    const jobs = new Map(this.#config.jobs.map((job) => [job.name, job]));
    const names = new Set(jobs.keys());
    const streams = await this.#read(store.listStreams('retries/'), 'list the retry streams');
    for (const stream of streams) names.add(stream.slice('retries/'.length));
    const boot = await this.#boot;
    const markers = await this.#markers.catch(() => new Map<string, BootMarkerState>());
    await forEachLimited([...names], async (name) => {
      const records = await this.#read(
        store.list(retriesStream(name), { limit: 1 }),
        `read the retry records of ${name}`,
      );
      const newest = records[0] === undefined ? undefined : parseRetry(records[0].data);
      if (newest?.kind !== 'pending' || newest.host !== host) return;
      // This process's own live ladder (armed before the boot sequence reached this step).
      if (records[0]?.data['token'] === this.#deps.process.token) return;
      const job = jobs.get(name);
      const settle = (reason: RetrySettleReason): void => {
        logger.info(`Cron job ${name}: settling its durable retry #${newest.attempt} (${reason})`);
        this.#submit('retry', retriesStream(name), {
          kind: 'settled',
          host,
          attempt: newest.attempt,
          reason,
        });
      };
      if (job === undefined) return settle('job-removed');
      if (!job.enabled) return settle('job-disabled');
      if (job.digest !== newest.digest) return settle('digest-changed');
      const { maximumRetries } = job.retry;
      if (maximumRetries === 0 || (maximumRetries !== -1 && newest.attempt > maximumRetries)) {
        return settle('exhausted');
      }
      if (
        job.startingDeadlineMs !== null &&
        clock.now() - newest.notBeforeMs > job.startingDeadlineMs
      ) {
        return settle('stale');
      }
      if (job.schedule.kind === 'reboot' && boot !== null) {
        // The fresh boot run supersedes a ladder from an earlier OS boot; within the same boot
        // the keep-alive ladder continues across daemon restarts.
        const mine = markers.get(name)?.markers ?? [];
        const sameBoot = mine.some((marker) => this.#deps.sameBoot(marker, boot));
        if (!sameBoot) return settle('rebooted');
      }
      if (!scheduler.resumeRetry(name, newest.attempt, newest.notBeforeMs)) settle('superseded');
    });
  }

  async #seedCounters(): Promise<void> {
    const { counters, store, host, process } = this.#deps;
    if (counters === undefined) return;
    if (process.countersSeeded) {
      this.#countersReady = true;
      return;
    }
    const records = await this.#read(
      store.list(countersStream(host), { limit: 1 }),
      'read the counter snapshot',
    );
    process.countersSeeded = true;
    const snapshot = records[0]?.data['snapshot'];
    if (snapshot !== undefined) {
      counters.seed(snapshot, new Set(this.#config.jobs.map((job) => job.name)));
      this.#deps.logger.info('State store: Prometheus counters continue from the last snapshot');
    }
    this.#countersReady = true;
  }
}

function parseRuns(datas: readonly object[]): LedgerRun[] {
  const runs: LedgerRun[] = [];
  for (const data of datas) {
    const run = parseLedgerRun(data as Record<string, unknown>);
    if (run !== undefined) runs.push(run);
  }
  // Oldest first by when they ended (records from several nodes interleave by write time).
  return runs.sort((a, b) => ledgerInstantMs(a) - ledgerInstantMs(b));
}

function newestRealOutcome(runs: readonly LedgerRun[]): DurableOutcome | null {
  for (let index = runs.length - 1; index >= 0; index--) {
    const run = runs[index] as LedgerRun;
    if (
      (run.outcome === 'success' || run.outcome === 'failure') &&
      run.finishedAtMs !== undefined
    ) {
      return { outcome: run.outcome, finishedAtMs: run.finishedAtMs };
    }
  }
  return null;
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
