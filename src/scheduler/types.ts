// The scheduler's public contract: deps, the Scheduler surface (control, view, durable host), its
// typed events and the snapshots of its read-only view, all in domain values (epoch ms,
// milliseconds): http/ and durable/ render the wire shapes. Types only; no behaviour here.
import type { Clock, TypedEmitter } from '../common/index.js';
import type { Logger } from '../logging/index.js';
import type { ResolvedConfig, ResolvedJob } from '../config/index.js';
import type { OutputStream, RunOutcome, Runner } from '../runner/index.js';
import type { RunSummary } from './history.js';
import type {
  ClusterPort,
  DurablePort,
  LeadershipGate,
  RunEnvironmentSource,
  RunMonitor,
} from './ports.js';

/**
 * What asked for a run. `catchup` = a missed-run backfill (durable state, onMissed); `dag` = a
 * DAG task's attempt or sensor poke (docs/dags.md "Attempts and the job surfaces"), which starts
 * through the same run start but never through admission or the launcher.
 */
export type RunTrigger = 'schedule' | 'reboot' | 'retry' | 'manual' | 'catchup' | 'dag';

/**
 * The triggers that ask admission for a launch, and so the only ones a launch ticket, a running
 * instance and the run events carry: every one but a DAG attempt's.
 */
export type JobTrigger = Exclude<RunTrigger, 'dag'>;

/** Why a requested launch did not start. */
export type SkipReason =
  | 'disabled'
  | 'cluster'
  | 'only-if-last-succeeded'
  | 'forbid'
  | 'shutting-down'
  /** @reboot with a store: the boot marker says this OS boot already ran it. */
  | 'ran-this-boot'
  /** A durable-truth gate could not consult the store and onStoreUnavailable is fail-closed. */
  | 'state-unavailable';

/** The concurrency gate may also ask to replace the running instances first. */
export type ConcurrencyDecision =
  | { readonly kind: 'run' }
  | { readonly kind: 'replace' }
  | { readonly kind: 'skip'; readonly reason: 'forbid' };

export interface SchedulerDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly runner: Runner;
  /**
   * Leadership seam (gate 2, docs/architecture.md "Admission"): the verdict for scheduled, @reboot
   * and retry
   * launches, never asked for manual starts. Absent = always allowed (a single node).
   */
  readonly gate?: LeadershipGate;
  /** The cluster's pass hook, retry decision and held @reboot one-shots (absent = no cluster). */
  readonly cluster?: ClusterPort;
  /** The durable backend serving now (absent or empty = stateless). */
  readonly durable?: DurablePort;
  /** The per-run environment hook serving now (the job API), absent or empty = none. */
  readonly runEnvironment?: RunEnvironmentSource;
  /** Samples monitored runs' resources (absent = no run is sampled; summaries carry null). */
  readonly runMonitor?: RunMonitor;
  /** Most spawns per slice of a burst before yielding to the event loop (default 64). */
  readonly launchSliceSize?: number;
  /** Milliseconds of launching per slice of a burst before yielding (default 8). */
  readonly launchSliceBudgetMs?: number;
  /**
   * Resolves on a later turn of the event loop, between launch slices. Default: setImmediate
   * (timers and I/O due meanwhile run first, no 1 ms timer floor). FakeClock tests pass a yield
   * on the fake clock so bursts stay deterministic.
   */
  readonly yieldToLoop?: () => Promise<void>;
  /**
   * Arm the loop's timer this many ms before the next slot and yield (yieldToLoop) until it
   * begins: timers fire whole milliseconds late. Default 2 with systemClock, 0 otherwise.
   */
  readonly wakeLeadMs?: number;
}

// ---- Snapshots (the read-only view; http/ renders them) --------------------------------------

/** A job's retry ladder while it is armed with at least one retry scheduled. */
export interface RetryState {
  /** The latest retry's attempt number (1 for the first retry). */
  readonly attempt: number;
  /** null = unlimited (maximumRetries -1). */
  readonly maxAttempts: number | null;
  /** Epoch ms the pending retry is due, null when none is pending. */
  readonly nextRetryAtMs: number | null;
  /** The delay of the latest scheduled retry. */
  readonly delayMs: number;
}

/** One configured job's scheduler state at one instant, in domain values. */
export interface JobState {
  readonly job: ResolvedJob;
  /** Started instances' pids (instances without a pid are running but not listed). */
  readonly pids: readonly number[];
  readonly runningInstances: number;
  /** The next cron fire (epoch ms), null when none. */
  readonly nextFireAtMs: number | null;
  /** The newest runs, oldest first, at most HISTORY_SUMMARY_LIMIT. */
  readonly recentRuns: readonly RunSummary[];
  /** Present while a ladder is armed with count > 0 and not cancelled. */
  readonly retry: RetryState | null;
  /** An @reboot one-shot held until the cluster resolves its owner. */
  readonly rebootPending: boolean;
}

export type ManualStartResult =
  | { readonly kind: 'started'; readonly runId: string; readonly pid: number | null }
  | { readonly kind: 'skipped'; readonly reason: SkipReason };

// ---- Events ---------------------------------------------------------------------------------

/** How a finished run was handled (docs/configuration.md "How a run works"). */
export type RunDisposition = 'replaced' | 'cancelled' | 'shutdown-failure' | 'failure' | 'success';

export interface RunStartedEvent {
  readonly job: ResolvedJob;
  readonly runId: string;
  readonly pid: number | null;
  readonly trigger: JobTrigger;
  /** Retry count at launch; 0 for a first run. */
  readonly attempt: number;
  /** The cron slot this run serves; null for @reboot, retry and manual runs. */
  readonly scheduledAtMs: number | null;
  readonly startedAtMs: number;
  /** Decision instant minus scheduled slot (wall ms); null without a slot. */
  readonly decisionLatenessMs: number | null;
  /** Start instant minus decision instant (wall ms): the time spent queued in a burst. */
  readonly launchDelayMs: number;
}

export interface RunOutputEvent {
  readonly jobName: string;
  readonly runId: string;
  readonly stream: OutputStream;
  readonly line: string;
}

export interface RunFinishedEvent {
  readonly job: ResolvedJob;
  readonly runId: string;
  readonly trigger: JobTrigger;
  readonly attempt: number;
  readonly scheduledAtMs: number | null;
  readonly outcome: RunOutcome;
  readonly summary: RunSummary;
  /** False only for runs killed by Replace. */
  readonly recorded: boolean;
  readonly disposition: RunDisposition;
}

export interface FireSkippedEvent {
  readonly jobName: string;
  readonly reason: SkipReason;
  readonly trigger: JobTrigger;
  readonly scheduledAtMs: number | null;
  readonly decisionLatenessMs: number | null;
}

export interface ScheduleLateEvent {
  readonly jobName: string;
  readonly scheduledAtMs: number;
  readonly latenessMs: number;
  /** ≥ 10 s late: whether the current slot matched and fired once. */
  readonly firedOnce: boolean;
  readonly nextFireAtMs: number | null;
}

export interface RetryScheduledEvent {
  readonly jobName: string;
  /** The retry's attempt number (1 for the first retry). */
  readonly attempt: number;
  readonly delayMs: number;
  readonly retryAtMs: number;
}

export interface RetryDiscardedEvent {
  readonly jobName: string;
  /**
   * `handed-off`: ownership moved and the ladder went to the new owner; `claimed-elsewhere`: at
   * its due time another node's record was the ladder's newest (docs/durable-state.md "Retry
   * resume across nodes").
   */
  readonly reason: 'job-removed' | 'job-disabled' | 'handed-off' | 'claimed-elsewhere';
}

/** A due retry the cluster abandoned: its ladder ended with a cancelled run record. */
export interface RetryAbandonedEvent {
  readonly jobName: string;
  readonly attempt: number;
  readonly summary: RunSummary;
}

export interface ReportEvent {
  /** The config the run was launched under (reports use it, not a reloaded one). */
  readonly job: ResolvedJob;
  readonly runId: string;
  readonly outcome: RunOutcome;
  readonly summary: RunSummary;
}

export interface ConfigAppliedEvent {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly string[];
  readonly jobSetId: string;
}

export interface ClockJumpedEvent {
  readonly direction: 'forward' | 'backward';
  /** Wall-clock step beyond monotonic progress (positive = forward). */
  readonly deltaMs: number;
}

export interface LoopWokeEvent {
  readonly nowMs: number;
  /** The instant the timer was armed for (null = the 30 s cap). */
  readonly armedForMs: number | null;
  /** Jobs whose next fire was due on this wake. */
  readonly dueJobs: number;
  /** Launches decided on this wake. */
  readonly launches: number;
}

export interface ShutdownStartedEvent {
  readonly graceMs: number;
  readonly running: number;
}

export interface ShutdownFinishedEvent {
  /** Runs still alive at the end of the grace period and cancelled. */
  readonly cancelledRuns: number;
}

/** Event names are `noun:past-verb`. */
export type SchedulerEvents = {
  'run:started': RunStartedEvent;
  'run:output': RunOutputEvent;
  'run:finished': RunFinishedEvent;
  'fire:skipped': FireSkippedEvent;
  'schedule:late': ScheduleLateEvent;
  'retry:scheduled': RetryScheduledEvent;
  'retry:discarded': RetryDiscardedEvent;
  'retry:abandoned': RetryAbandonedEvent;
  /** onFailure hook: every failed run outside shutdown. */
  'report:failed': ReportEvent;
  /** onSuccess hook. */
  'report:succeeded': ReportEvent;
  /** onPermanentFailure hook: a failing sequence ended. */
  'report:permanently-failed': ReportEvent;
  'config:applied': ConfigAppliedEvent;
  'clock:jumped': ClockJumpedEvent;
  'loop:woke': LoopWokeEvent;
  'shutdown:started': ShutdownStartedEvent;
  'shutdown:finished': ShutdownFinishedEvent;
};

/**
 * The control surface (the daemon's and the HTTP API's levers). Lifecycle and manual control
 * only: nothing here reads state.
 */
export interface SchedulerControl extends AsyncDisposable {
  /**
   * The start-up pass (docs/schedules.md "The scheduler's time rules"), then the loop. Idempotent.
   * Cron jobs are seeded strictly
   * after `startAtMs` (default: now). The daemon passes the instant its catch-up horizon ends at,
   * so a slot between that instant and this call is fired here, late, instead of falling between
   * catch-up and the loop.
   */
  start(startAtMs?: number): void;
  /** Reload as a diff (docs/configuration.md "Reloading"). */
  applyConfig(config: ResolvedConfig): void;
  /**
   * Manual start (HTTP POST /jobs/{name}/start). Throws YC_ERR_JOB_UNKNOWN / _DISABLED /
   * YC_ERR_SHUTTING_DOWN.
   */
  startJob(name: string): Promise<ManualStartResult>;
  /**
   * Manual cancel of every instance; resolves once they are recorded. Throws YC_ERR_JOB_UNKNOWN /
   * _NOT_RUNNING.
   */
  cancelJob(name: string): Promise<void>;
  /** Stop firing, let runs finish within graceMs, then cancel the rest. Idempotent. */
  shutdown(graceMs: number): Promise<void>;
}

/** The read-only view: snapshots and the typed events. Nothing here changes the scheduler. */
export interface SchedulerView {
  readonly events: TypedEmitter<SchedulerEvents>;
  /** Every configured job's state, in config order. */
  getJobStates(): JobState[];
  /** Throws YC_ERR_JOB_UNKNOWN. */
  getJobState(name: string): JobState;
  /** The in-memory history, oldest first (at most HISTORY_LIMIT). Throws YC_ERR_JOB_UNKNOWN. */
  getRuns(name: string): readonly RunSummary[];
  /** The job's current config, or undefined when not configured. */
  getJobConfig(name: string): ResolvedJob | undefined;
  /** Epoch ms of the job's next cron fire, or null. */
  getNextFireAtMs(name: string): number | null;
}

/**
 * The host port the durable layer drives (boot sequence and catch-up): what a store-backed
 * feature may ask of, or hand to, the scheduler. The durable layer sees only this (and the
 * events and runs it records), never the control surface.
 */
export interface DurableHost extends Pick<SchedulerView, 'events' | 'getRuns' | 'getJobState'> {
  /** Live plus decided-but-not-started instances of a job on this node. */
  activeInstances(name: string): number;
  /**
   * Put runs from the durable ledger (oldest first) in front of the in-memory history of a
   * configured job; the newest real outcome among them seeds the depends-on-past gate when memory
   * has none. Returns false for an unknown job.
   */
  rehydrateHistory(name: string, runs: readonly RunSummary[]): boolean;
  /**
   * Re-arm a durable retry at its persisted position: retry `attempt` is due at notBeforeMs
   * (fires at once when that has passed). False when the job is unknown, disabled or has no
   * retry policy; the caller settles the record then.
   */
  resumeRetry(name: string, attempt: number, notBeforeMs: number): boolean;
  /**
   * One missed-run backfill for `scheduledAtMs`: waits until the job is idle on this node
   * (serialised, whatever the concurrency policy), launches without the retry ladder and
   * without the depends-on-past gate, and resolves with the finished run's record, or null when
   * it did not run (job gone or disabled, a closed cluster gate, shutdown).
   */
  runBackfill(
    name: string,
    scheduledAtMs: number,
    signal?: AbortSignal,
  ): Promise<RunSummary | null>;
  /**
   * Whether this node may backfill `name` now: `allow`; `gate-closed` when the cluster gate
   * refuses a `catchup` launch (for now: catch-up re-checks); `not-runnable` when the job is
   * not configured or disabled. Catch-up asks before any store I/O, so a node the gate refuses
   * writes no checkpoint (docs/durable-state.md "Missed-run catch-up").
   */
  backfillGate(name: string): BackfillGate;
}

export type BackfillGate = 'allow' | 'gate-closed' | 'not-runnable';

/** The whole scheduler: what createScheduler returns and the daemon holds. */
export interface Scheduler extends SchedulerControl, SchedulerView, DurableHost {}
