// How the durable features touch the store: fire-and-forget writes through the write queue,
// writes waited for with the scheduling-path bound, and bounded reads that decide whether the
// store "can answer" for the durable-truth gates. A write queued before the store opened waits
// for it in the queue (bounded by the queue's length), so the records of runs that start while
// the store opens in the background land: a crash then still leaves their in-flight records.
// At close such writes still wait for an open attempt under way (the durable state's close
// bounds the drain), so a daemon stopped while its store opens keeps its runs' records; only
// when no attempt is running (the last one failed) do they give up at once.
// Must not: throw a write failure at a caller.
import { createDeferred, type Clock } from '../common/index.js';
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
  /** Resolves true once the store is open (false: closed first); absent = open already. */
  readonly #opened: Promise<boolean> | undefined;
  /** How the open attempt under way ends; absent = as `#opened` says. */
  readonly #openAttempt: (() => Promise<boolean>) | undefined;
  /** Resolved by close(): writes still waiting give up unless an open attempt is under way. */
  readonly #closed = createDeferred<void>();
  #isOpen = false;
  #readable = true;

  constructor(
    store: StateStore,
    writes: StateWriteQueue,
    clock: Clock,
    opened?: Promise<boolean>,
    openAttempt?: () => Promise<boolean>,
  ) {
    this.#store = store;
    this.#writes = writes;
    this.#clock = clock;
    this.#opened = opened;
    this.#openAttempt = openAttempt;
    this.#isOpen = opened === undefined;
    void opened?.then((open) => {
      this.#isOpen = open;
    });
  }

  /**
   * The durable state closes: writes still waiting for the store to open wait for the attempt
   * under way and fail if it fails; with none under way they fail at once.
   */
  close(): void {
    this.#closed.resolve();
  }

  /**
   * Resolves true once the store is open; false when it closed first, or when this access was
   * closed and no open attempt under way succeeded. Never rejects.
   */
  async untilOpen(): Promise<boolean> {
    if (this.#isOpen || this.#opened === undefined) return true;
    return Promise.race([
      this.#opened,
      this.#closed.promise.then(() => this.#openAttempt?.() ?? false),
    ]);
  }

  /** `work` once the store is open; a store closed before it opened fails the write. */
  #whenOpen<T>(work: () => Promise<T>): () => Promise<T> {
    return async () => {
      if (!(await this.untilOpen())) throw new Error('the state store closed before it opened');
      return work();
    };
  }

  /** The store has opened (reads may be served); false while it is still opening. */
  get isOpen(): boolean {
    return this.#isOpen;
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
    this.#writes.submit(
      kind,
      stream,
      this.#whenOpen(() => this.#store.append(stream, data)),
    );
  }

  /**
   * Append in the background on another stream's lane (serialised with that lane's writes);
   * resolves to whether it landed. Never rejects.
   */
  appendInLane(
    kind: DroppedWriteKind,
    lane: string,
    stream: string,
    data: object,
  ): Promise<boolean> {
    return this.#writes.write(
      kind,
      lane,
      this.#whenOpen(() => this.#store.append(stream, data)),
    );
  }

  /** Queue any background write on a stream's lane (e.g. one that prepares its record first). */
  submitWork(kind: DroppedWriteKind, stream: string, work: () => Promise<unknown>): void {
    this.#writes.submit(kind, stream, this.#whenOpen(work));
  }

  submitPrune(kind: DroppedWriteKind, stream: string, keep: number): void {
    this.#writes.submit(
      kind,
      stream,
      this.#whenOpen(() => this.#store.prune(stream, keep)),
    );
  }

  /** Resolves once every write queued so far on `stream`'s lane landed or was dropped. */
  settled(stream: string): Promise<void> {
    return this.#writes.settled(stream);
  }

  /** Queue an append and wait (bounded) until it landed; false when dropped or too slow. */
  async writeAndWait(kind: DroppedWriteKind, stream: string, data: object): Promise<boolean> {
    const landed = this.#writes.write(
      kind,
      stream,
      this.#whenOpen(() => this.#store.append(stream, data)),
    );
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
