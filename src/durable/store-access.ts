// How the durable features touch the store: fire-and-forget writes through the write queue,
// writes waited for with the scheduling-path bound, and bounded reads that decide whether the
// store "can answer" for the durable-truth gates. Must not: throw a write failure at a caller.
import type { Clock } from '../common/index.js';
import {
  SCHEDULING_READ_TIMEOUT_MS,
  withTimeout,
  type DroppedWriteKind,
  type StateStore,
  type StateWriteQueue,
} from '../state/index.js';

export class StoreAccess {
  readonly #store: StateStore;
  readonly #writes: StateWriteQueue;
  readonly #clock: Clock;
  #readable = true;

  constructor(store: StateStore, writes: StateWriteQueue, clock: Clock) {
    this.#store = store;
    this.#writes = writes;
    this.#clock = clock;
  }

  get store(): StateStore {
    return this.#store;
  }

  /** False after a read failed or timed out, until a read succeeds again. */
  get readable(): boolean {
    return this.#readable;
  }

  /** Append in the background; a failure is dropped and counted by the queue. */
  submit(kind: DroppedWriteKind, stream: string, data: object): void {
    this.#writes.submit(kind, stream, () => this.#store.append(stream, data));
  }

  /** Queue any background write on a stream's lane (e.g. one that prepares its record first). */
  submitWork(kind: DroppedWriteKind, stream: string, work: () => Promise<unknown>): void {
    this.#writes.submit(kind, stream, work);
  }

  submitPrune(kind: DroppedWriteKind, stream: string, keep: number): void {
    this.#writes.submit(kind, stream, () => this.#store.prune(stream, keep));
  }

  /** Resolves once every write queued so far on `stream`'s lane landed or was dropped. */
  settled(stream: string): Promise<void> {
    return this.#writes.settled(stream);
  }

  /** Queue an append and wait (bounded) until it landed; false when dropped or too slow. */
  async writeAndWait(kind: DroppedWriteKind, stream: string, data: object): Promise<boolean> {
    const landed = this.#writes.write(kind, stream, () => this.#store.append(stream, data));
    try {
      return await withTimeout(
        landed,
        SCHEDULING_READ_TIMEOUT_MS,
        this.#clock,
        `write to ${stream}`,
      );
    } catch {
      return false;
    }
  }

  /**
   * Read through the scheduling-path bound. Reads alone decide whether the store "can answer":
   * a failing write (a full disk) does not make the ledger unreadable, and must not make a
   * fail-closed gate flap.
   */
  async read<T>(work: Promise<T>, what: string): Promise<T> {
    try {
      const value = await withTimeout(work, SCHEDULING_READ_TIMEOUT_MS, this.#clock, what);
      this.#readable = true;
      return value;
    } catch (error) {
      this.#readable = false;
      throw error;
    }
  }
}
