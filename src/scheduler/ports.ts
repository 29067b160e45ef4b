// The seams the scheduler is built with (SchedulerDeps) besides clock, logger and runner: the
// leadership verdict, the durable-state port with its retry journal, and the run-environment
// source. Each is handed over at construction; the ones the daemon rebuilds on reload (the
// durable backend, the job API) are Providers whose current value the daemon swaps
// (docs/architecture.md "Seams"). Types only.
import type { Provider } from '../common/index.js';
import type { ResolvedJob } from '../config/index.js';
import type { RunResources } from './history.js';
import type { RunTrigger, SkipReason } from './types.js';

// ---- leadership (gate 2, docs/architecture.md "Admission") --------------------------------

/** A gate's verdict: a value, logged and emitted, never an exception. */
export type GateResult =
  | { readonly kind: 'run' }
  | { readonly kind: 'skip'; readonly reason: SkipReason; readonly detail?: string };

export interface GateRequest {
  readonly job: ResolvedJob;
  readonly trigger: Exclude<RunTrigger, 'manual'>;
  readonly scheduledAtMs: number | null;
}

/**
 * Where the leadership verdict of a scheduled, @reboot or retry launch comes from (never asked
 * for manual starts). Synchronous and cheap: it runs in the decision pass of a burst.
 */
export type LeadershipGate = (request: GateRequest) => GateResult;

// ---- the cluster's part in the loop (docs/clustering.md "The scheduler's interface") -------

/** What a due retry does when the cluster is asked first (a value; the timers are the ladder's). */
export type RetryGateResult =
  | { readonly kind: 'launch' }
  /** A transient denial: re-check after max(the retry delay, 1 s). */
  | { readonly kind: 'defer'; readonly detail: string }
  /** Ownership positively moved to another node: end the ladder with a cancelled record. */
  | { readonly kind: 'abandon'; readonly detail: string };

/**
 * The cluster's part besides gate 2: a hook at the start of every pass, the due-retry decision,
 * and the @reboot one-shots held until the cluster resolves an owner. Cheap and synchronous but
 * for releaseReboots (it tells the peers before a launch).
 */
export interface ClusterPort {
  /** The start of every scheduler pass (the transition logs). */
  onPass(): void;
  retryDecision(job: ResolvedJob): RetryGateResult;
  /** The start-up pass: hold the deferrable @reboot jobs; returns the names held. */
  holdReboots(jobs: readonly ResolvedJob[]): ReadonlySet<string>;
  /** Whether some @reboot one-shot is still held. */
  hasHeldReboots(): boolean;
  rebootHeld(name: string): boolean;
  /** One pass over the held one-shots: `launch` each this node now owns (current definition). */
  releaseReboots(
    lookup: (name: string) => ResolvedJob | undefined,
    launch: (job: ResolvedJob) => void,
  ): Promise<void>;
}

// ---- the run environment (the job API's per-run variables) ----------------------------------

/** The run about to spawn, as handed to the run-environment hook (the job API's variables). */
export interface RunContext {
  readonly job: ResolvedJob;
  /** 32 lower-case hex characters, unique per run. */
  readonly runId: string;
  readonly trigger: RunTrigger;
  /** Retry count at launch; 0 for a first run. */
  readonly attempt: number;
  /** The cron slot this run serves; null for @reboot, retry and manual runs. */
  readonly scheduledAtMs: number | null;
  /**
   * The scope its state calls use when they name none; absent = the job name. A DAG task's is
   * its run's XCom scope (docs/dags.md "XCom").
   */
  readonly defaultScope?: string;
}

/**
 * One run's extra environment and the values its output must not show in any sink (docs/security.md
 * "Secrets"): the launcher scrubs them from the live lines, the daemon's echo, the retained texts
 * and so from the failure log, the reports and the archive.
 */
export interface RunEnvironment {
  /** Variables injected over the job's own (they win). */
  readonly variables: Readonly<Record<string, string>>;
  /** Known at launch: the run's job-API token. */
  readonly secretValues: readonly string[];
  /** The run's staged secrets once resolved (never rejects); null when it stages none. */
  readonly stagedSecretValues: Promise<readonly string[]> | null;
}

/** Extra environment for one run; called just before the spawn. */
export type RunEnvironmentHook = (run: RunContext) => RunEnvironment | undefined;

/** The hook serving now (the daemon swaps it when the job API restarts), or null. */
export type RunEnvironmentSource = Provider<RunEnvironmentHook>;

// ---- resource monitoring (monitorResources, docs/configuration.md) --------------------------

/** A run whose process was just spawned, as handed to the run monitor. */
export interface SpawnedRun {
  readonly job: ResolvedJob;
  readonly runId: string;
  /** The root of the run's process tree (it leads its own session). */
  readonly pid: number;
  readonly startedAtMs: number;
}

/**
 * Samples the process trees of runs whose job has `monitorResources` (the daemon's sampler). The
 * monitor decides from the job whether to sample; both calls are synchronous and cheap, and a
 * throw is logged, never fails the run.
 */
export interface RunMonitor {
  started(run: SpawnedRun): void;
  /** The run was reaped: stop sampling it; its usage, null when it was not sampled. */
  finished(runId: string): RunResources | null;
}

// ---- the durable port -----------------------------------------------------------------------

/** Why a durable pending-retry record is settled (docs/durable-state.md, retries). */
export type RetrySettleReason =
  | 'launched'
  | 'succeeded'
  | 'superseded'
  | 'cancelled'
  | 'exhausted'
  | 'job-removed'
  | 'job-disabled'
  | 'digest-changed'
  | 'stale'
  | 'rebooted'
  /** The cluster moved the job's ownership to another node (docs/clustering.md, retries). */
  | 'owner-moved';

/** The newest success/failure a durable ledger knows of, for the depends-on-past gate. */
export interface DurableOutcome {
  readonly outcome: 'success' | 'failure';
  /** When the run finished (epoch ms). */
  readonly finishedAtMs: number;
}

/**
 * The persistence side of the retry protocol (scheduler/retries.ts owns the protocol: when each
 * call happens). One pending record per armed retry, settled exactly once unless a shutdown
 * leaves it for the next boot to re-arm.
 */
export interface RetryJournal {
  /** A retry was armed: persist the pending record (fire-and-forget). */
  armed(job: ResolvedJob, attempt: number, notBeforeMs: number): void;
  /**
   * A due retry is about to launch: settle it `launched` first (record-before-run), under the
   * cross-node claim lease when retry resume is active (docs/durable-state.md "Retry resume
   * across nodes").
   */
  due(job: ResolvedJob, attempt: number): Promise<RetryDueVerdict>;
  /** A pending record ended without a launch (fire-and-forget). */
  settled(jobName: string, attempt: number, reason: RetrySettleReason): void;
  /**
   * Ownership of `job` moved off this node mid-ladder: when cross-node retry resume is active for
   * it, a handoff record is written (the new owner claims it) and true is returned; false when
   * it is not (a single-node store, no running cluster, EveryNode or @reboot): the caller settles
   * `owner-moved` as before.
   */
  handOff(job: ResolvedJob, attempt: number): boolean;
}

/** What a due retry's durable step answers (RetryJournal.due). */
export type RetryDueVerdict =
  /** The pending record is settled `launched`: relaunch. */
  | 'launched'
  /**
   * The settle did not land but the policy (degrade) proceeds: the pending record is still open
   * and the ladder's later end must settle it.
   */
  | 'unrecorded'
  /** The store cannot answer and onStoreUnavailable is fail-closed: re-check later. */
  | 'defer'
  /** Another holder is claiming this ladder right now: re-check shortly. */
  | 'contended'
  /** The newest ladder record is another node's (it claimed the ladder): end this one silently. */
  | 'foreign';

/** An @reboot job's boot run: 'run' once the boot marker is recorded (or per policy). */
export type RebootVerdict = 'run' | 'ran-this-boot' | 'state-unavailable';

// ---- the cluster concurrency slot (gate 6, docs/durable-state.md "Cluster concurrency slots") ---

/** A slot tenure shared by this node's instances of one job; released by the last of them. */
export interface ConcurrencyHold {
  /** The instance holding a reference ended: drop the reference (idempotent). */
  release(): void;
}

/** What a launch of a `concurrencyScope: cluster` job may do after the slot claim. */
export type ConcurrencyClaim =
  /** Launch; `hold` null = node-local enforcement only (the store could not answer, degrade). */
  | { readonly kind: 'run'; readonly hold: ConcurrencyHold | null }
  | { readonly kind: 'skip'; readonly reason: SkipReason };

export interface ConcurrencyClaimRequest {
  /** Replace: ask a foreign holder to cancel its run, then take the slot (bounded wait). */
  readonly replace: boolean;
  /**
   * A Replace elsewhere asked this node to give the slot up: cancel the job's running
   * instances (as replaced). Called at most once per tenure.
   */
  readonly onCancelRequested: () => void;
}

/** The cluster-wide concurrency slots of `concurrencyScope: cluster` jobs. Never rejects. */
export interface ConcurrencyLeasePort {
  claim(job: ResolvedJob, request: ConcurrencyClaimRequest): Promise<ConcurrencyClaim>;
}

// ---- the in-flight record before the spawn (docs/durable-state.md "Missed-run catch-up") ------

/** A launch of a job whose in-flight open record must land before its process is spawned. */
export interface RunStartRecordRequest {
  readonly job: ResolvedJob;
  /** The run's id (newRunId()), the one its `run:started` event will carry. */
  readonly runId: string;
  /** The run's start instant: the record's `startedAt` and the ledger row's `started_at`. */
  readonly startedAtMs: number;
}

/** What the launch may do once the record was written (or could not be). */
export type RunStartRecord =
  /**
   * Spawn. `withdraw()` when the launch does not happen after all (shutdown began meanwhile):
   * the record is settled so that no reader takes it for a run. Idempotent.
   */
  | { readonly kind: 'run'; readonly withdraw: () => void }
  /** The record could not land and onStoreUnavailable is fail-closed: do not spawn. */
  | { readonly kind: 'skip'; readonly reason: SkipReason };

/**
 * Record-before-run for the jobs catch-up judges (onMissed run-once / run-all): another node's
 * catch-up then sees a run that started here even if this node stops before the run's ledger row
 * lands. The launcher asks `covers` synchronously; only covered launches wait on `record`.
 */
export interface RunStartRecordPort {
  covers(job: ResolvedJob): boolean;
  /** Bounded by the store's scheduling-path timeout; never rejects. */
  record(request: RunStartRecordRequest): Promise<RunStartRecord>;
}

/**
 * The durable-state backend serving now (src/durable): present only when a `state` section is
 * configured. The scheduler asks it at the few decision points the store takes part in; it
 * observes everything else (ledger, in-flight records, archival) through the typed events.
 * Every method is cheap and never throws; the async ones are bounded by the store timeout.
 */
export interface DurableCollaborator {
  /**
   * onlyIfLastSucceeded: the newest real outcome in the durable ledger (cached, synchronous),
   * null when the ledger has none, 'unavailable' when the store cannot answer.
   */
  lastDurableOutcome(jobName: string): DurableOutcome | null | 'unavailable';
  /** How the durable-truth gates err when the store cannot answer. */
  readonly onStoreUnavailable: 'degrade' | 'fail-closed';
  checkRebootRun(job: ResolvedJob): Promise<RebootVerdict>;
  readonly retries: RetryJournal;
  /** Gate 6 for `concurrencyScope: cluster` jobs; absent = node-local enforcement. */
  readonly concurrency?: ConcurrencyLeasePort;
  /** The in-flight record before the spawn of onMissed jobs; absent = after the spawn only. */
  readonly runStarts?: RunStartRecordPort;
}

/** The durable backend serving now (the daemon swaps it on a state-section reload), or null. */
export type DurablePort = Provider<DurableCollaborator>;
