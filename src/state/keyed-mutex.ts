// In-process mutual exclusion per key (a lock file path): callers of one store queue here in
// order, so only one of them at a time asks the kernel for the flock. Keys are dropped when idle.
import { createDeferred } from '../common/index.js';
export class KeyedMutex {
  readonly #tails = new Map<string, Promise<void>>();

  /** Run `work` once every earlier holder of `key` has finished. */
  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const mine = createDeferred();
    const tail = previous.then(() => mine.promise);
    this.#tails.set(key, tail);
    await previous;
    try {
      return await work();
    } finally {
      mine.resolve();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }

  /** Keys with a holder or waiters. */
  get size(): number {
    return this.#tails.size;
  }
}
