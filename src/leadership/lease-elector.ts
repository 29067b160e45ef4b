// The one lease elector shared by the etcd, Kubernetes and filesystem backends (docs/clustering.md
// "Lease backends"): it runs the client's rounds (one inline at start, then one per period,
// counted from the last round's end or, when the client says so, its start; each bounded by the
// round deadline), keeps what they established, and answers the scheduler's
// LeadershipReads from it with no I/O. is_leader needs the won flag, no lease loss and the
// monotonic clock before the fence deadline (which the client set 1 s short of the store's TTL);
// is_quorate needs a positive store contact within the freshness window. For the first
// LEASE_HANDOVER_HOLD_MS after it gains the lease a holder is `handoverHeld()`: the gate holds its
// Leader jobs, so a clock behind the previous holder's cannot re-fire a slot that holder already
// ran (docs/clustering.md "Clock skew"). The @reboot ran-set is the stored set (valid only under
// the live job-set id) plus this node's own marks.
// Must not: read the wall clock for a decision, let a round outlive stop(), or answer
// rebootRan(false) as a holder that has not read the stored set since it won (it throws).
import { TaskSet, YacronError, describeError, type Clock } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import {
  EMPTY_RAN_SET,
  type LeaseClient,
  type LeaseDetails,
  type RoundOutcome,
  type StoredRanSet,
} from './lease-client.js';
import type { ClusterBackendName, LeaseLeadership } from './types.js';

/**
 * How long a new holder holds its Leader jobs after it gains the lease: the wall-clock skew
 * between holders below which a slot cannot run twice across a handover (docs/clustering.md
 * "Clock skew"). The same second the filesystem rule already allows for skew.
 */
export const LEASE_HANDOVER_HOLD_MS = 1000;

export interface LeaseElectorDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  /** The live job-set id (scopes the ran-set). */
  jobSetId(): string;
  /** Called after every round (tests wait on it instead of sleeping). */
  onRound?(elector: LeaseElector): void;
}

export interface LeaseElectorOptions {
  readonly nodeName: string;
  /** Bound on the release at stop (etcd/filesystem: connectTimeout; Kubernetes: renewDeadline). */
  readonly releaseTimeoutMs: number;
}

export class LeaseElector implements LeaseLeadership {
  readonly backend: Exclude<ClusterBackendName, 'gossip'>;
  readonly nodeName: string;
  readonly client: LeaseClient;
  readonly #deps: LeaseElectorDeps;
  readonly #options: LeaseElectorOptions;
  readonly #stop = new AbortController();
  readonly #tasks: TaskSet;
  #won = false;
  #leaseLost = false;
  #fenceUntilMs = -Infinity;
  /** Monotonic end of the hold that follows a gain of the lease. */
  #heldUntilMs = -Infinity;
  #freshUntilMs = -Infinity;
  #holder: string | null = null;
  #stored: StoredRanSet = EMPTY_RAN_SET;
  /** The stored set was read since this node last gained leadership. */
  #synced = false;
  #marks = new Set<string>();
  #marksJobSetId: string | null = null;
  /** Rounds run one at a time (the loop and markRebootRan's extra round). */
  #queue: Promise<void> = Promise.resolve();
  #stopped: Promise<void> | null = null;
  #rounds = 0;

  private constructor(client: LeaseClient, options: LeaseElectorOptions, deps: LeaseElectorDeps) {
    this.client = client;
    this.backend = client.backend;
    this.nodeName = options.nodeName;
    this.#options = options;
    this.#deps = deps;
    this.#tasks = new TaskSet((error) =>
      deps.logger.error(`cluster: ${client.backend} election loop failed: ${describeError(error)}`),
    );
  }

  /** Start the client (a rejection fails the start), run one round inline, then the loop. */
  static async start(
    client: LeaseClient,
    options: LeaseElectorOptions,
    deps: LeaseElectorDeps,
  ): Promise<LeaseElector> {
    const elector = new LeaseElector(client, options, deps);
    try {
      await client.start();
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    deps.logger.info(client.startupLine());
    await elector.#serially(() => elector.#round(true));
    elector.#tasks.run(() => elector.#loop());
    return elector;
  }

  /** Rounds completed (or failed) so far; tests wait on it. */
  get rounds(): number {
    return this.#rounds;
  }

  isQuorate(): boolean {
    return this.#deps.clock.monotonic() < this.#freshUntilMs;
  }

  isLeader(): boolean {
    return this.#won && !this.#leaseLost && this.#deps.clock.monotonic() < this.#fenceUntilMs;
  }

  handoverHeld(): boolean {
    return this.isLeader() && this.#deps.clock.monotonic() < this.#heldUntilMs;
  }

  leaderName(): string | null {
    return this.isQuorate() ? this.#holder : null;
  }

  /** Never compares display names: identities may collide. */
  isAvailableLeader(): boolean {
    if (!this.isQuorate() || this.isLeader()) return true;
    if (this.#won) return true; // a self-demoted holder: nobody else is known to lead
    return this.leaderName() === null;
  }

  availableLeaderName(): string {
    if (!this.isQuorate() || this.isLeader()) return this.nodeName;
    return this.#holder ?? this.nodeName;
  }

  rebootRan(job: string): boolean {
    const live = this.#liveMarks();
    if (live.has(job)) return true;
    if (this.#stored.jobSetId === this.#deps.jobSetId() && this.#stored.jobs.has(job)) return true;
    if (this.#won && !this.#synced) {
      throw new YacronError(
        'YC_ERR_CLUSTER_LEASE',
        `Cannot tell whether @reboot job ${job} already ran: this holder has not read the stored record since it won the lease`,
      );
    }
    return false;
  }

  /** Record the mark and persist it with an immediate extra round. */
  async markRebootRan(job: string): Promise<void> {
    this.#liveMarks().add(job);
    await this.#serially(() => this.#round(false));
  }

  /** The `lease` block of GET /cluster. */
  leaseDetails(): LeaseDetails {
    return this.client.details(this.isLeader(), this.leaderName());
  }

  /** Stop the loop, give the lease up (bounded, errors ignored), close the client. */
  stop(): Promise<void> {
    this.#stopped ??= (async () => {
      this.#stop.abort(new Error('cluster manager stopped'));
      await this.#tasks.close();
      await this.#queue;
      const bound = new AbortController();
      const timer = this.#deps.clock.setTimer(
        () => bound.abort(new Error('release timed out')),
        this.#options.releaseTimeoutMs,
      );
      try {
        if (this.#won) await raceAbort(this.client.release(bound.signal), bound.signal);
      } catch (error) {
        this.#deps.logger.debug(`cluster: lease release failed: ${describeError(error)}`);
      } finally {
        timer.cancel();
      }
      this.#won = false;
      await this.client.close();
    })();
    return this.#stopped;
  }

  #liveMarks(): Set<string> {
    const live = this.#deps.jobSetId();
    if (this.#marksJobSetId !== live) {
      this.#marks = new Set();
      this.#marksJobSetId = live;
    }
    return this.#marks;
  }

  async #loop(): Promise<void> {
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      try {
        await this.#deps.clock.sleep(this.#untilNextRoundMs(), signal);
      } catch {
        return; // stopped while waiting
      }
      await this.#serially(() => this.#round(false));
    }
  }

  /** The period, counted from where the client says (the last round's end by default). */
  #untilNextRoundMs(): number {
    const { periodMs, periodFromMs } = this.client.timing(this.isQuorate());
    if (periodFromMs === undefined) return periodMs;
    return Math.max(0, periodFromMs + periodMs - this.#deps.clock.monotonic());
  }

  #serially(work: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(work);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #round(initial: boolean): Promise<void> {
    if (this.#stop.signal.aborted) return;
    const { roundDeadlineMs } = this.client.timing(this.isQuorate());
    const bound = new AbortController();
    const onStop = (): void => bound.abort(this.#stop.signal.reason);
    this.#stop.signal.addEventListener('abort', onStop);
    const timer = this.#deps.clock.setTimer(
      () =>
        bound.abort(
          new YacronError(
            'YC_ERR_CLUSTER_LEASE',
            `Cannot finish the ${this.backend} election round: no answer within ${roundDeadlineMs / 1000} s`,
          ),
        ),
      roundDeadlineMs,
    );
    let outcome: RoundOutcome;
    try {
      const marks = { jobSetId: this.#deps.jobSetId(), jobs: this.#liveMarks() };
      outcome = await raceAbort(this.client.round(marks, bound.signal), bound.signal);
    } catch (error) {
      if (!this.#stop.signal.aborted) {
        const label = initial ? this.client.initialLabel : this.client.roundLabel;
        this.#deps.logger.warn(`cluster: ${label} failed: ${describeError(error)}`);
      }
      outcome = { kind: 'no-answer', leaseLost: false };
    } finally {
      timer.cancel();
      this.#stop.signal.removeEventListener('abort', onStop);
    }
    this.#apply(outcome);
    this.#rounds += 1;
    this.#deps.onRound?.(this);
  }

  #apply(outcome: RoundOutcome): void {
    switch (outcome.kind) {
      case 'leader': {
        const gained = !this.#won;
        if (gained) this.#heldUntilMs = this.#deps.clock.monotonic() + LEASE_HANDOVER_HOLD_MS;
        this.#won = true;
        this.#leaseLost = false;
        this.#fenceUntilMs = outcome.fenceUntilMs;
        this.#freshUntilMs = outcome.freshUntilMs;
        this.#holder = outcome.holder;
        if (outcome.ranSet !== undefined) {
          this.#stored = outcome.ranSet;
          this.#synced = true;
        } else if (gained) {
          this.#synced = false;
        }
        return;
      }
      case 'follower':
        this.#won = false;
        this.#leaseLost = outcome.leaseLost;
        this.#freshUntilMs = outcome.freshUntilMs;
        this.#holder = outcome.holder;
        if (outcome.ranSet !== undefined) {
          this.#stored = outcome.ranSet;
          this.#synced = true;
        }
        return;
      case 'no-answer':
        if (outcome.leaseLost) this.#leaseLost = true;
        return;
    }
  }
}

/** `work`, or the signal's reason as soon as it aborts (a client that ignores it cannot hang). */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(asError(signal.reason));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(asError(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(asError(error));
      },
    );
  });
}

function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}
