// A construction-time seam for a collaborator that the composition root rebuilds while its
// consumer lives on (the durable backend and the job API's run environment are replaced by a
// reload; the scheduler is not): the consumer is built with the read side and asks for the
// current value at each use, the owner keeps the write side. No setter on the consumer.
// Must not: notify anyone or queue anything (readers poll at their decision points).

/** The read side: the value serving now, or null when there is none. */
export interface Provider<T> {
  current(): T | null;
}

/** The write side, held by the composition root that owns the swaps. */
export class Swappable<T> implements Provider<T> {
  #value: T | null;

  constructor(value: T | null = null) {
    this.#value = value;
  }

  current(): T | null {
    return this.#value;
  }

  /** Serve `value` from now on (null: none). Returns the value it replaced. */
  swap(value: T | null): T | null {
    const previous = this.#value;
    this.#value = value;
    return previous;
  }
}
