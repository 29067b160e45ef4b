// The per-job runtime record the scheduler keeps between a launch decision and the reaping of
// the run, and the launch ticket that links the two. The planned/running counts hold by
// construction: a launch is counted as planned only through JobRuntime.plan(), which hands out
// the one ticket that can uncount it, and a ticket is consumed exactly once (started or dropped);
// a running instance is counted by its presence in `running`.
// Must not: decide, launch or reap (admit.ts, launcher.ts, run-settlement.ts do).
import { createDeferred, type Deferred } from '../common/index.js';
import type { ResolvedJob } from '../config/index.js';
import type { RunHandle } from '../runner/index.js';
import { RunHistory } from './history.js';
import type { ConcurrencyHold } from './ports.js';
import type { RetryLadder } from './retry-ladder.js';
import type { JobTrigger, ManualStartResult } from './types.js';

export interface RunningInstance {
  readonly runId: string;
  /** The config the run was launched under; reloads never touch it. */
  readonly job: ResolvedJob;
  readonly trigger: JobTrigger;
  readonly attempt: number;
  readonly scheduledAtMs: number | null;
  /** The retry ladder attached at launch (docs/architecture.md "Admission"), if any. */
  readonly ladder: RetryLadder | null;
  readonly handle: RunHandle;
  /** The cluster concurrency slot reference it holds (concurrencyScope cluster), if any. */
  readonly concurrencyHold: ConcurrencyHold | null;
  pid: number | null;
  /** Set by Replace before cancelling: not recorded, reported or retried. */
  replaced: boolean;
  /** Set by a manual cancel: recorded as cancelled, no reports, ladder cancelled. */
  cancelled: boolean;
  /** Settles once the run is reaped (recorded, events emitted). */
  readonly reaped: Deferred<void>;
}

/** What an admitted launch carries to the launcher. */
export interface LaunchFields {
  readonly job: ResolvedJob;
  readonly trigger: JobTrigger;
  readonly scheduledAtMs: number | null;
  readonly ladder: RetryLadder | null;
  /** Cancel the running instances (Replace) before starting. */
  readonly replace: boolean;
  readonly decidedAtMs: number;
}

/**
 * An admitted launch waiting for its turn in the launcher. It counts as one planned instance of
 * its job from plan() until consume(): the launcher consumes it when it starts the run or drops
 * it (shutdown, a failed Replace), and a second consume is a bug that throws.
 */
export class LaunchTicket implements LaunchFields {
  /** Discriminates an admitted launch from a refusal in Admitter.admit()'s result. */
  readonly kind = 'launch';
  readonly job: ResolvedJob;
  readonly trigger: JobTrigger;
  readonly scheduledAtMs: number | null;
  readonly ladder: RetryLadder | null;
  readonly attempt: number;
  readonly replace: boolean;
  readonly decidedAtMs: number;
  /** Settled when a manual start launches or is dropped (null: nobody waits). */
  result: Deferred<ManualStartResult> | null = null;
  #release: (() => void) | null;

  constructor(fields: LaunchFields, release: () => void) {
    this.job = fields.job;
    this.trigger = fields.trigger;
    this.scheduledAtMs = fields.scheduledAtMs;
    this.ladder = fields.ladder;
    this.attempt = fields.ladder?.count ?? 0;
    this.replace = fields.replace;
    this.decidedAtMs = fields.decidedAtMs;
    this.#release = release;
  }

  /** A promise of how the launch went, for a caller that waits (manual starts, backfills). */
  awaitStart(): Promise<ManualStartResult> {
    this.result ??= createDeferred<ManualStartResult>();
    return this.result.promise;
  }

  /** Stop counting this launch as planned; exactly once per ticket. */
  consume(): void {
    const release = this.#release;
    if (release === null)
      throw new Error(
        `Cannot consume the launch ticket of ${this.job.name}: it was consumed already`,
      );
    this.#release = null;
    release();
  }
}

/** Per-name runtime state; survives reloads (ladders survive, running instances finish). */
export class JobRuntime {
  readonly running = new Set<RunningInstance>();
  readonly history = new RunHistory();
  /** Newest finished success/failure (cancelled runs ignored), for onlyIfLastSucceeded. */
  lastRealOutcome: 'success' | 'failure' | null = null;
  /** When that run finished (epoch ms; NaN without one), to compare with the durable ledger. */
  lastRealAtMs = Number.NaN;
  /**
   * This job's tickets waiting in the launch queue, oldest first (null when none). The queue
   * serves batches round-robin, so its items are turns: a job's turn launches its oldest ticket,
   * and its launches keep their decision order even when two batches hold tickets of the job.
   */
  queued: LaunchTicket[] | null = null;
  /** Serialises Replace sequences (and launches behind them) of this job. */
  lane: Promise<void> | null = null;
  #planned = 0;
  /** One closure per job, shared by its tickets (a burst allocates only the tickets). */
  readonly #release = (): void => {
    this.#planned -= 1;
  };

  /** Launches decided but not started yet (queued in a burst or waiting on a Replace). */
  get planned(): number {
    return this.#planned;
  }

  /** Running plus planned instances: what the concurrency policy counts. */
  get active(): number {
    return this.running.size + this.#planned;
  }

  /** Count an admitted launch as planned; its ticket uncounts it once consumed. */
  plan(fields: LaunchFields): LaunchTicket {
    this.#planned += 1;
    return new LaunchTicket(fields, this.#release);
  }

  /** Nothing refers to this runtime but its history (it may be forgotten once unconfigured). */
  get idle(): boolean {
    return this.running.size === 0 && this.#planned === 0 && this.lane === null;
  }
}
