// A Clock for tests: time moves only when the test says so (advance, setWall); timers fire in
// due order during advance(), with microtasks drained between them so awaited code can react.
import { normaliseDelayMs, sleepWith, type Clock, type TimerHandle } from './clock.js';

interface PendingTimer {
  readonly id: number;
  readonly dueMonotonicMs: number;
  readonly callback: () => void;
}

export class FakeClock implements Clock {
  #wallMs: number;
  #monotonicMs = 0;
  #nextId = 1;
  #timers = new Map<number, PendingTimer>();
  #timerWaiters: ((delayMs: number) => void)[] = [];

  constructor(startWallMs = Date.UTC(2026, 0, 1)) {
    this.#wallMs = startWallMs;
  }

  now(): number {
    return this.#wallMs;
  }

  monotonic(): number {
    return this.#monotonicMs;
  }

  setTimer(callback: () => void, delayMs: number): TimerHandle {
    const id = this.#nextId++;
    this.#timers.set(id, {
      id,
      // The same delay rules as systemClock: NaN is 0, Infinity never comes due.
      dueMonotonicMs: this.#monotonicMs + normaliseDelayMs(delayMs),
      callback,
    });
    for (const resolve of this.#timerWaiters.splice(0)) resolve(delayMs);
    return { cancel: () => this.#timers.delete(id) };
  }

  /**
   * Resolves with the delay of the next timer set: a test waits for the code under test to arm
   * a timer (an event it cannot otherwise see) before it advances time past it.
   */
  nextTimer(): Promise<number> {
    return new Promise((resolve) => this.#timerWaiters.push(resolve));
  }

  sleep(delayMs: number, signal?: AbortSignal): Promise<void> {
    return sleepWith(this, delayMs, signal);
  }

  /** Number of timers waiting to fire. */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /** Monotonic ms until the earliest pending timer, or undefined when none is pending. */
  nextTimerDelayMs(): number | undefined {
    let earliest: number | undefined;
    for (const timer of this.#timers.values()) {
      if (earliest === undefined || timer.dueMonotonicMs < earliest)
        earliest = timer.dueMonotonicMs;
    }
    return earliest === undefined ? undefined : earliest - this.#monotonicMs;
  }

  /** Move both clocks forward by `ms`, firing every timer that comes due, in order. */
  async advance(ms: number): Promise<void> {
    const target = this.#monotonicMs + ms;
    await flushMicrotasks();
    for (;;) {
      const due = this.#earliestDue(target);
      if (!due) break;
      this.#wallMs += due.dueMonotonicMs - this.#monotonicMs;
      this.#monotonicMs = due.dueMonotonicMs;
      this.#timers.delete(due.id);
      due.callback();
      await flushMicrotasks();
    }
    this.#wallMs += target - this.#monotonicMs;
    this.#monotonicMs = target;
    await flushMicrotasks();
  }

  /** Step the wall clock only (an NTP step or a suspend); monotonic time is unchanged. */
  setWall(wallMs: number): void {
    this.#wallMs = wallMs;
  }

  #earliestDue(limit: number): PendingTimer | undefined {
    let best: PendingTimer | undefined;
    for (const timer of this.#timers.values()) {
      if (timer.dueMonotonicMs > limit) continue;
      if (
        !best ||
        timer.dueMonotonicMs < best.dueMonotonicMs ||
        (timer.dueMonotonicMs === best.dueMonotonicMs && timer.id < best.id)
      ) {
        best = timer;
      }
    }
    return best;
  }
}

/** Let pending promise continuations run (several turns, for chains of awaits). */
export async function flushMicrotasks(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await Promise.resolve();
}
