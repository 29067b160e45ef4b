// One retry ladder (docs/configuration.md "Retries: onFailure.retry", docs/architecture.md "A
// retry"): the retry count, the next backoff delay and at most one pending retry timer. Its policy
// is copied at creation, so a reload never changes a live ladder.
// Must not: be cancelled or given a journal by anyone but retries.ts, which owns the protocol
// that settles the ladder's durable pending record.
import type { Clock, TimerHandle } from '../common/index.js';
import type { RetryPolicy } from '../config/index.js';
import type { RetryJournal } from './ports.js';

export type LadderStep =
  | { readonly kind: 'retry'; readonly delayMs: number; readonly attempt: number }
  | { readonly kind: 'exhausted' };

export class RetryLadder {
  readonly jobName: string;
  readonly policy: RetryPolicy;
  /** Retries scheduled so far (the attempt number of the latest retry). */
  count = 0;
  /** The delay the next retry will wait. */
  nextDelayMs: number;
  /** The delay of the latest scheduled retry (0 before any). */
  lastDelayMs = 0;
  /** Epoch ms the pending retry is due, null when none is pending. */
  nextRetryAtMs: number | null = null;
  /** The attempt the cluster last deferred (its first deferral is logged at INFO, later at DEBUG). */
  clusterDeferredAttempt = 0;
  #cancelled = false;
  #timer: TimerHandle | null = null;
  /**
   * The journal holding a pending record for the armed retry (null: none). Ending the ladder any
   * way but a launch (or a shutdown, which deliberately leaves the record for the next boot)
   * settles that record; retries.ts does it.
   */
  journal: RetryJournal | null = null;

  constructor(jobName: string, policy: RetryPolicy) {
    this.jobName = jobName;
    this.policy = policy;
    this.nextDelayMs = policy.initialDelayMs;
  }

  get cancelled(): boolean {
    return this.#cancelled;
  }

  get pending(): boolean {
    return this.#timer !== null;
  }

  /**
   * docs/architecture.md "A retry" for a failed run holding this ladder: exhausted when the retry
   * budget is spent, else the delay to wait. The first delay is used as-is; later ones are capped.
   */
  step(): LadderStep {
    const { maximumRetries, backoffMultiplier, maximumDelayMs } = this.policy;
    if (maximumRetries !== -1 && this.count >= maximumRetries) return { kind: 'exhausted' };
    const delayMs = this.nextDelayMs;
    this.nextDelayMs = Math.min(this.nextDelayMs * backoffMultiplier, maximumDelayMs);
    this.count += 1;
    this.lastDelayMs = delayMs;
    return { kind: 'retry', delayMs, attempt: this.count };
  }

  /** Arm the one pending retry timer (replacing any). */
  arm(clock: Clock, delayMs: number, onDue: () => void): void {
    this.abortTimer();
    this.nextRetryAtMs = clock.now() + delayMs;
    this.#timer = clock.setTimer(() => {
      this.#timer = null;
      this.nextRetryAtMs = null;
      onDue();
    }, delayMs);
  }

  abortTimer(): void {
    this.#timer?.cancel();
    this.#timer = null;
    this.nextRetryAtMs = null;
  }

  /** Abort the pending retry and mark the ladder dead; a failing holder then fails permanently. */
  cancel(): void {
    this.#cancelled = true;
    this.abortTimer();
  }
}
