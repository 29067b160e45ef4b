// Durable writes as fire-and-forget background work (spec "Writes never stall scheduling"):
// serialised per lane (usually the stream name, so one job's records land in order), at most
// `concurrency` lanes at a time, bounded in length. A failed or overflowing write is dropped with
// a warning and counted in yacron2_state_dropped_writes_total{kind}; nothing is ever thrown back
// at the scheduler. close() waits for what was already accepted.
import { createDeferred, type Deferred, describeError } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { StateMetrics } from './metrics.js';
import type { DroppedWriteKind } from './types.js';

interface QueuedWrite {
  readonly kind: DroppedWriteKind;
  readonly lane: string;
  readonly work: () => Promise<unknown>;
  readonly done: Deferred<boolean>;
}

export interface WriteQueueDeps {
  readonly logger: Logger;
  readonly metrics?: StateMetrics;
  /**
   * Monotonic ms: with it, drop warnings are rate limited to one per kind per
   * DROP_WARNING_INTERVAL_MS (a hung store at 200 runs/s would otherwise log ~800 lines a
   * second); the counter still counts every drop.
   */
  readonly monotonicMs?: () => number;
}

/** At most one drop warning per kind this often; the next one says how many it summarises. */
export const DROP_WARNING_INTERVAL_MS = 10_000;

export interface WriteQueueOptions {
  /** Lanes written at the same time (default 8). */
  readonly concurrency?: number;
  /** Writes accepted but not finished before new ones are dropped (default 10,000). */
  readonly maxPending?: number;
}

export interface WriteQueueStats {
  /** Writes accepted and not yet finished. */
  readonly pending: number;
  /** Lanes being written right now. */
  readonly runningLanes: number;
  readonly concurrency: number;
  readonly maxPending: number;
}

export class StateWriteQueue {
  readonly #logger: Logger;
  readonly #metrics: StateMetrics | undefined;
  readonly #concurrency: number;
  readonly #maxPending: number;
  readonly #lanes = new Map<string, QueuedWrite[]>();
  readonly #runningLanes = new Set<string>();
  /** Per lane with writes accepted and not finished: the newest one's promise. */
  readonly #newest = new Map<string, Promise<boolean>>();
  #ready: string[] = [];
  #pending = 0;
  #idle: Deferred<void>[] = [];
  #closed = false;
  readonly #monotonicMs: (() => number) | undefined;
  /** Per kind: when the last warning was logged and drops not logged since. */
  readonly #dropWarnings = new Map<DroppedWriteKind, { atMs: number; silenced: number }>();

  constructor(deps: WriteQueueDeps, options: WriteQueueOptions = {}) {
    this.#logger = deps.logger;
    this.#metrics = deps.metrics;
    this.#monotonicMs = deps.monotonicMs;
    this.#concurrency = Math.max(1, options.concurrency ?? 8);
    this.#maxPending = Math.max(1, options.maxPending ?? 10_000);
  }

  /** Writes accepted and not yet finished. */
  get pending(): number {
    return this.#pending;
  }

  /** The queue's load and bounds (the state inspector shows them). */
  stats(): WriteQueueStats {
    return {
      pending: this.#pending,
      runningLanes: this.#runningLanes.size,
      concurrency: this.#concurrency,
      maxPending: this.#maxPending,
    };
  }

  /** Queue a write and forget it. */
  submit(kind: DroppedWriteKind, lane: string, work: () => Promise<unknown>): void {
    void this.write(kind, lane, work);
  }

  /** Queue a write; resolves true once it landed, false when it was dropped. Never rejects. */
  write(kind: DroppedWriteKind, lane: string, work: () => Promise<unknown>): Promise<boolean> {
    if (this.#closed) return Promise.resolve(this.#drop(kind, lane, 'the write queue is closed'));
    if (this.#pending >= this.#maxPending) {
      return Promise.resolve(this.#drop(kind, lane, `${this.#maxPending} writes already queued`));
    }
    const done = createDeferred<boolean>();
    this.#pending += 1;
    let queue = this.#lanes.get(lane);
    if (!queue) {
      queue = [];
      this.#lanes.set(lane, queue);
      if (!this.#runningLanes.has(lane)) this.#ready.push(lane);
    }
    queue.push({ kind, lane, work, done });
    this.#newest.set(lane, done.promise);
    this.#pump();
    return done.promise;
  }

  /**
   * Wait until every write accepted so far on `lane` has landed or been dropped (a lane runs its
   * writes in order, so that is when its newest one finishes). Writes accepted later are not
   * waited for.
   */
  settled(lane: string): Promise<void> {
    const newest = this.#newest.get(lane);
    return newest === undefined ? Promise.resolve() : newest.then(() => undefined);
  }

  /** Wait until every write accepted so far has landed or been dropped. */
  drain(): Promise<void> {
    if (this.#pending === 0) return Promise.resolve();
    const idle = createDeferred();
    this.#idle.push(idle);
    return idle.promise;
  }

  /** Refuse new writes (they are dropped and counted) and wait for the accepted ones. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.drain();
  }

  #pump(): void {
    while (this.#runningLanes.size < this.#concurrency && this.#ready.length > 0) {
      const lane = this.#ready.shift()!;
      const queue = this.#lanes.get(lane);
      const next = queue?.shift();
      if (!next) continue;
      if (queue!.length === 0) this.#lanes.delete(lane);
      this.#runningLanes.add(lane);
      void this.#run(next);
    }
  }

  async #run(write: QueuedWrite): Promise<void> {
    let landed = false;
    try {
      await write.work();
      landed = true;
    } catch (error) {
      this.#drop(write.kind, write.lane, describeError(error));
    }
    this.#runningLanes.delete(write.lane);
    if (this.#lanes.has(write.lane)) this.#ready.push(write.lane);
    this.#pending -= 1;
    if (this.#newest.get(write.lane) === write.done.promise) this.#newest.delete(write.lane);
    write.done.resolve(landed);
    if (this.#pending === 0) for (const idle of this.#idle.splice(0)) idle.resolve();
    this.#pump();
  }

  #drop(kind: DroppedWriteKind, lane: string, reason: string): false {
    this.#metrics?.droppedWrite(kind);
    let silenced = 0;
    if (this.#monotonicMs !== undefined) {
      const nowMs = this.#monotonicMs();
      const last = this.#dropWarnings.get(kind);
      if (last !== undefined && nowMs - last.atMs < DROP_WARNING_INTERVAL_MS) {
        last.silenced += 1;
        return false;
      }
      silenced = last?.silenced ?? 0;
      this.#dropWarnings.set(kind, { atMs: nowMs, silenced: 0 });
    }
    const more =
      silenced > 0 ? ` (${silenced} more ${kind} writes were dropped since the last warning)` : '';
    this.#logger.warn(
      { kind, stream: lane, reason },
      `Cannot write the durable ${kind} record of ${lane}: ${reason}; the write was dropped${more}`,
    );
    return false;
  }
}
