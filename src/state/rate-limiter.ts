// `state.maxOpsPerSecond`: a token bucket (burst = one second's tokens) that queues operations
// past the rate, first come first served, rather than failing them. Time comes from the Clock.
import type { Clock, TimerHandle } from '../common/index.js';

interface Waiter {
  readonly resolve: (waitedMs: number) => void;
  readonly enqueuedAtMs: number;
}

export class TokenBucket {
  readonly #clock: Clock;
  readonly #ratePerSecond: number;
  readonly #capacity: number;
  #tokens: number;
  #refilledAtMs: number;
  #queue: Waiter[] = [];
  #timer: TimerHandle | undefined;
  #closed = false;

  constructor(ratePerSecond: number, clock: Clock) {
    if (!(ratePerSecond > 0)) throw new RangeError('TokenBucket needs a positive rate');
    this.#clock = clock;
    this.#ratePerSecond = ratePerSecond;
    this.#capacity = Math.max(1, ratePerSecond);
    this.#tokens = this.#capacity;
    this.#refilledAtMs = clock.monotonic();
  }

  /** Operations waiting for a token. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Resolves with the milliseconds waited (0 when a token was free). Never rejects. */
  take(): Promise<number> {
    this.#refill();
    if (this.#closed || (this.#queue.length === 0 && this.#tokens >= 1)) {
      if (!this.#closed) this.#tokens -= 1;
      return Promise.resolve(0);
    }
    return new Promise<number>((resolve) => {
      this.#queue.push({ resolve, enqueuedAtMs: this.#clock.monotonic() });
      this.#schedule();
    });
  }

  /** Let every queued operation through (they then meet a closed store). */
  close(): void {
    this.#closed = true;
    this.#timer?.cancel();
    this.#timer = undefined;
    const now = this.#clock.monotonic();
    for (const waiter of this.#queue.splice(0)) waiter.resolve(now - waiter.enqueuedAtMs);
  }

  #refill(): void {
    const now = this.#clock.monotonic();
    const elapsedMs = now - this.#refilledAtMs;
    if (elapsedMs > 0) {
      this.#tokens = Math.min(
        this.#capacity,
        this.#tokens + (elapsedMs * this.#ratePerSecond) / 1000,
      );
      this.#refilledAtMs = now;
    }
  }

  #schedule(): void {
    if (this.#timer || this.#queue.length === 0) return;
    const missing = Math.max(0, 1 - this.#tokens);
    const delayMs = Math.ceil((missing * 1000) / this.#ratePerSecond);
    this.#timer = this.#clock.setTimer(() => {
      this.#timer = undefined;
      this.#drain();
    }, delayMs);
  }

  #drain(): void {
    this.#refill();
    const now = this.#clock.monotonic();
    while (this.#queue.length > 0 && this.#tokens >= 1) {
      this.#tokens -= 1;
      const waiter = this.#queue.shift()!;
      waiter.resolve(now - waiter.enqueuedAtMs);
    }
    this.#schedule();
  }
}
