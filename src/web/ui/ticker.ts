// One timer for everything that changes with time alone (the header clock, ages, countdowns,
// stale detection): it fires just after each wall-clock second so every cell ticks together.
import type { Clock, TimerHandle } from '../../common/clock.js';

export class Ticker {
  readonly #clock: Clock;
  readonly #listeners = new Set<(nowMs: number) => void>();
  #timer: TimerHandle | null = null;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  subscribe(listener: (nowMs: number) => void): () => void {
    this.#listeners.add(listener);
    if (this.#timer === null) this.#arm();
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.stop();
    };
  }

  stop(): void {
    this.#timer?.cancel();
    this.#timer = null;
  }

  #arm(): void {
    const now = this.#clock.now();
    this.#timer = this.#clock.setTimer(() => this.#tick(), 1000 - (now % 1000) + 5);
  }

  #tick(): void {
    const now = this.#clock.now();
    for (const listener of [...this.#listeners]) listener(now);
    if (this.#listeners.size > 0) this.#arm();
    else this.#timer = null;
  }
}
