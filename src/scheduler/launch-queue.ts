// The burst launcher: launches decided on a wake run in slices, yielding to the event loop between
// slices, because child_process.spawn forks synchronously (~1-3 ms each) and a burst of hundreds
// issued in one turn would starve the scheduler timer and every other callback.
//
// - Each enqueue() is a batch (one wake's launches, a retry, a manual start); batches are served
//   round-robin, one launch each per turn, so a job that comes due while an older burst is still
//   launching starts in the next slice instead of behind the whole burst.
// - A slice ends after `sliceBudgetMs` of launching (or `sliceSize` spawns, whichever is first):
//   spawn cost varies with the machine and the process size, a time budget bounds what everything
//   else on the loop waits for.
// - Between slices it yields with `yieldToLoop` (setImmediate in the daemon: a yield, not a 1 ms
//   timer), so timers and I/O that came due during the slice run before the next one.
import type { TaskSet } from '../common/index.js';

/** Spawns per slice at most; the time budget normally ends a slice well before. */
export const DEFAULT_LAUNCH_SLICE_SIZE = 64;
/** Milliseconds of synchronous launching per slice. */
export const DEFAULT_LAUNCH_SLICE_BUDGET_MS = 8;

export interface LaunchQueueOptions<T> {
  readonly sliceSize: number;
  readonly sliceBudgetMs: number;
  /** Monotonic milliseconds, for the slice budget. */
  readonly now: () => number;
  /** Launch one item; true when it spent a synchronous spawn (counts towards the slice). */
  readonly launch: (item: T) => boolean;
  /** Resolve on a later turn of the event loop. */
  readonly yieldToLoop: () => Promise<void>;
  readonly tasks: TaskSet;
}

interface Batch<T> {
  readonly items: readonly T[];
  head: number;
}

export class LaunchQueue<T> {
  readonly #options: LaunchQueueOptions<T>;
  #batches: Batch<T>[] = [];
  /** The batch that launches next. */
  #turn = 0;
  #pending = 0;
  #draining = false;

  constructor(options: LaunchQueueOptions<T>) {
    this.#options = options;
  }

  get pending(): number {
    return this.#pending;
  }

  /** Queue a batch beside any burst in progress; when idle, the first slice runs synchronously. */
  enqueue(items: readonly T[]): void {
    if (items.length === 0) return;
    this.#batches.push({ items, head: 0 });
    this.#pending += items.length;
    if (this.#draining) return;
    this.#draining = true;
    this.#options.tasks.run(() => this.#drain());
  }

  /** Remove and return everything not launched yet (batch by batch, oldest first). */
  clear(): T[] {
    const rest: T[] = [];
    for (const batch of this.#batches) {
      for (let index = batch.head; index < batch.items.length; index++) {
        rest.push(batch.items[index] as T);
      }
    }
    this.#batches = [];
    this.#turn = 0;
    this.#pending = 0;
    return rest;
  }

  /** The next item in round-robin order; the caller checked that one is pending. */
  #take(): T {
    const batches = this.#batches;
    if (this.#turn >= batches.length) this.#turn = 0;
    const batch = batches[this.#turn] as Batch<T>;
    const item = batch.items[batch.head] as T;
    batch.head += 1;
    this.#pending -= 1;
    if (batch.head === batch.items.length) batches.splice(this.#turn, 1);
    else this.#turn += 1;
    return item;
  }

  async #drain(): Promise<void> {
    const { sliceSize, sliceBudgetMs, now, launch, yieldToLoop } = this.#options;
    try {
      while (this.#pending > 0) {
        const started = now();
        let spawned = 0;
        do {
          if (launch(this.#take())) spawned += 1;
        } while (this.#pending > 0 && spawned < sliceSize && now() - started < sliceBudgetMs);
        if (this.#pending > 0) await yieldToLoop();
      }
    } finally {
      this.#draining = false;
    }
  }
}
