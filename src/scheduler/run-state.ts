// The per-run and per-job runtime records the scheduler keeps between a launch decision and the
// reaping of the run. Plain data: the behaviour lives in run-control.ts and run-settlement.ts.
import type { Deferred } from '../common/index.js';
import type { ResolvedJob } from '../config/index.js';
import type { RunHandle } from '../runner/index.js';
import { RunHistory } from './history.js';
import type { RetryLadder } from './retry-ladder.js';
import type { ManualStartResult, RunTrigger } from './types.js';

export interface RunningInstance {
  readonly runId: string;
  /** The config the run was launched under; reloads never touch it. */
  readonly job: ResolvedJob;
  readonly trigger: RunTrigger;
  readonly attempt: number;
  readonly scheduledAtMs: number | null;
  /** The retry ladder attached at launch (jobs.md §7.1), if any. */
  readonly ladder: RetryLadder | null;
  readonly handle: RunHandle;
  pid: number | null;
  /** Set by Replace before cancelling: not recorded, reported or retried. */
  replaced: boolean;
  /** Set by a manual cancel: recorded as cancelled, no reports, ladder cancelled. */
  cancelled: boolean;
  /** Settles once the run is reaped (recorded, events emitted). */
  readonly reaped: Deferred<void>;
}

/** Per-name runtime state; survives reloads (ladders survive, running instances finish). */
export interface JobRuntime {
  readonly running: Set<RunningInstance>;
  readonly history: RunHistory;
  /** Newest finished success/failure (cancelled runs ignored), for onlyIfLastSucceeded. */
  lastRealOutcome: 'success' | 'failure' | null;
  /** When that run finished (epoch ms; NaN without one), to compare with the durable ledger. */
  lastRealAtMs: number;
  ladder: RetryLadder | null;
  /** Launches decided but not started yet (queued in a burst or waiting on a Replace). */
  planned: number;
  /**
   * This job's plans waiting in the launch queue, oldest first (null when none). The queue serves
   * batches round-robin, so its items are turns: a job's turn launches its oldest plan, and its
   * launches keep their decision order even when two batches hold plans of the same job.
   */
  queued: LaunchPlan[] | null;
  /** Serialises Replace sequences (and launches behind them) of this job. */
  lane: Promise<void> | null;
}

export function createJobRuntime(): JobRuntime {
  return {
    running: new Set(),
    history: new RunHistory(),
    lastRealOutcome: null,
    lastRealAtMs: Number.NaN,
    ladder: null,
    planned: 0,
    queued: null,
    lane: null,
  };
}

/** A launch that passed the gates and waits for its turn in the burst launcher. */
export interface LaunchPlan {
  readonly job: ResolvedJob;
  readonly trigger: RunTrigger;
  readonly scheduledAtMs: number | null;
  readonly ladder: RetryLadder | null;
  readonly attempt: number;
  /** Cancel the running instances (Replace) before starting. */
  readonly replace: boolean;
  readonly decidedAtMs: number;
  /** Settled when a manual start launches or is dropped. */
  readonly result: Deferred<ManualStartResult> | null;
}
