// Background work that must not float: every task is tracked, its failure reported, and
// close() waits for the ones still running.

export class TaskSet {
  #tasks = new Set<Promise<void>>();
  #onError: (error: unknown) => void;

  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
  }

  get size(): number {
    return this.#tasks.size;
  }

  /** Run `work` in the background; errors go to onError, never unhandled. */
  run(work: () => Promise<unknown>): void {
    const task = (async () => {
      try {
        await work();
      } catch (error) {
        this.#onError(error);
      }
    })();
    this.#tasks.add(task);
    void task.finally(() => this.#tasks.delete(task));
  }

  /** Wait until every task started so far (and any they start) has settled. */
  async close(): Promise<void> {
    while (this.#tasks.size > 0) await Promise.allSettled([...this.#tasks]);
  }
}
