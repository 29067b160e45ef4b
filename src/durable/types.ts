// The durable collaborator's dependencies and the state that outlives one backend: shapes
// only, shared by DurableState, the run recorder and the boot steps.
import type { Clock } from '../common/index.js';
import type { Logger } from '../logging/index.js';
import type { ResolvedJob } from '../config/index.js';
import type { DurableHost, RunSummary } from '../scheduler/index.js';
import type { StateStore, StateWriteQueue } from '../state/index.js';

/** A boot's identity: an exact id (Linux) or a boot time compared with a tolerance. */
export interface BootInfo {
  readonly bootId: string | null;
  readonly bootTimeMs: number | null;
}

/** What survives a state-section reload: the once-per-process steps and the process token. */
export interface DurableProcessState {
  /**
   * The daemon's per-process token (12 lower-case hex, the reference's `proc`): in-flight
   * records carry it (the reconciliation's own-process guard), job-API lock holders too.
   */
  readonly token: string;
  /**
   * Per job, the `at` of the newest pending retry record this process wrote: the boot's re-arm
   * step leaves a pending record of this process's own live ladder alone.
   */
  readonly armedRetries: Map<string, string>;
  historyRehydrated: boolean;
  countersSeeded: boolean;
  catchupEvaluated: boolean;
  /**
   * Live instances per job on this node, for the in-flight 0->1 / 1->0 records: kept here so a
   * run started under one backend still gets its close under the next one.
   */
  readonly live: Map<string, number>;
  /**
   * Runs whose in-flight open record was written before their spawn (run id -> job name),
   * counted in `live` from then on, until their `run:started` (or their launch was withdrawn).
   */
  readonly prespawned: Map<string, string>;
}

/** The ledger runs a job's SLA trends are computed over (http/ computes the windows). */
export interface TrendRuns {
  readonly source: 'durable';
  readonly runs: readonly RunSummary[];
}

export interface CounterSnapshots {
  /** The counters record's body without its `at` (docs/durable-state-store.md "Record bodies"). */
  snapshot(): object;
  seed(snapshot: unknown, configuredJobNames: ReadonlySet<string>): void;
}

/**
 * The cluster as cross-node retry resume reads it (docs/durable-state.md "Retry resume across
 * nodes"): the daemon's gate and supervisor behind two synchronous questions.
 */
export interface ResumeCluster {
  /** Leader election is configured and the cluster manager is running. */
  running(): boolean;
  /** The cluster gate lets this node run a retry of `job` now: it owns the job. */
  owns(job: ResolvedJob): boolean;
}

export interface DurableDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly host: string;
  readonly store: StateStore;
  readonly writes: StateWriteQueue;
  /** Resolves true once the store is open, false when it closed first. Never rejects. */
  readonly storeOpened: Promise<boolean>;
  /** How the store's open attempt under way ends (StateService.openAttempt); absent: none. */
  readonly storeOpenAttempt?: () => Promise<boolean>;
  /** The scheduler's host port: the boot sequence and catch-up drive it. */
  readonly scheduler: DurableHost;
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
  /** The cluster, when the daemon runs one: cross-node retry resume needs it running. */
  readonly cluster?: ResumeCluster;
  /**
   * Whether flock(2) excludes across processes under the store: the cluster slots probe it once
   * and degrade every claim (per onStoreUnavailable) when it does not. Absent = trusted.
   */
  readonly lockFidelity?: () => Promise<void>;
}
