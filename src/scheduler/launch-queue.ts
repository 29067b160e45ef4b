// The burst launcher: launches decided on a wake run in slices, yielding to the event loop between
// slices, because child_process.spawn forks synchronously (~1.3 ms each) and a burst of hundreds
// issued in one turn would starve the scheduler timer and every other callback.
import type { TaskSet } from '../common/index.js';

export const DEFAULT_LAUNCH_SLICE_SIZE = 16;

export interface LaunchQueueOptions<T> {
  readonly sliceSize: number;
  /** Launch one item; true when it spent a synchronous spawn (counts towards the slice). */
  readonly launch: (item: T) => boolean;
  /** Resolve on a later turn of the event loop. */
  readonly yieldToLoop: () => Promise<void>;
  readonly tasks: TaskSet;
}

export class LaunchQueue<T> {
  readonly #options: LaunchQueueOptions<T>;
  #items: T[] = [];
  #head = 0;
  #draining = false;

  constructor(options: LaunchQueueOptions<T>) {
    this.#options = options;
  }

  get pending(): number {
    return this.#items.length - this.#head;
  }

  /** Queue items behind any burst in progress; the first slice runs synchronously. */
  enqueue(items: readonly T[]): void {
    for (const item of items) this.#items.push(item);
    if (this.#draining || this.pending === 0) return;
    this.#draining = true;
    this.#options.tasks.run(() => this.#drain());
  }

  /** Remove and return everything not launched yet. */
  clear(): T[] {
    const rest = this.#items.slice(this.#head);
    this.#items = [];
    this.#head = 0;
    return rest;
  }

  async #drain(): Promise<void> {
    try {
      let spawned = 0;
      while (this.#head < this.#items.length) {
        if (spawned >= this.#options.sliceSize) {
          spawned = 0;
          await this.#options.yieldToLoop();
          continue;
        }
        const item = this.#items[this.#head] as T;
        this.#head += 1;
        if (this.#options.launch(item)) spawned += 1;
      }
    } finally {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
      this.#draining = false;
    }
  }
}
