// Mutexes and semaphores held for runs (docs/job-state.md "Locks"): permit i of a lock is
// the TTL lease `lock/<scope>/<name>#<i>`; the daemon holds it under a holder unique to the hold
// (`<host>#<process token>#<32 hex>`, the reference's shape),
// renews it every max(1 s, ttl/3) and releases it on release, at run end, or at close. A lease
// lost to a takeover keeps the hold "believed" (at-least-once): the job still has its fence.
import { randomBytes } from 'node:crypto';
import { describeError, type Clock, type TaskSet, type TimerHandle } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import { lockLeaseName } from './names.js';
import type { LiveRun } from './run-registry.js';
import type { StoreGate } from './store-gate.js';

export interface LockRequest {
  readonly scope: string;
  readonly name: string;
  readonly permits: number;
  readonly ttlMs: number;
  readonly wait: boolean;
  /** How long `wait` may block; null = until the run ends. */
  readonly blockMs: number | null;
  /** Sleep between passes while waiting. */
  readonly retryMs: number;
}

export type LockReply =
  | {
      readonly acquired: true;
      readonly token: string;
      /** The index of the permit taken (its name on the wire). */
      readonly slot: number;
      readonly fence: number;
      /** Seconds. */
      readonly ttl: number;
    }
  | { readonly acquired: false }
  | { readonly acquired: false; readonly runEnded: true };

interface Hold {
  readonly token: string;
  readonly runId: string;
  readonly leaseName: string;
  readonly holder: string;
  readonly fence: number;
  readonly ttlMs: number;
  timer: TimerHandle | null;
}

export interface LockHoldsDeps {
  readonly gate: StoreGate;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Renewals and releases run here; close() awaits it. */
  readonly tasks: TaskSet;
  /** Part of each holder string, so `state` inspection shows which node holds a permit. */
  readonly host: string;
  /** The daemon's per-process token (12 lower-case hex), the holder's middle part. */
  readonly processToken: string;
}

/** The renew cadence: a third of the TTL, at least a second. */
export function renewEveryMs(ttlMs: number): number {
  return Math.max(1000, ttlMs / 3);
}

export class LockHolds {
  readonly #deps: LockHoldsDeps;
  readonly #holds = new Map<string, Hold>();
  readonly #byRun = new Map<string, Set<string>>();
  /** Releases still reaching the store, by lease name: an acquire of that permit waits for them. */
  readonly #releasing = new Map<string, Promise<void>>();

  constructor(deps: LockHoldsDeps) {
    this.#deps = deps;
  }

  /** Holds currently believed (all runs). */
  get size(): number {
    return this.#holds.size;
  }

  /**
   * One pass over the permits, or (wait) passes until one is won, the block time is up, the run
   * ends (`runEnded: true`) or the client goes away. A permit won for a caller that is gone is
   * released at once: nobody could ever release it.
   */
  async acquire(run: LiveRun, request: LockRequest, clientGone: AbortSignal): Promise<LockReply> {
    const { clock } = this.#deps;
    const holder = `${this.#deps.host}#${this.#deps.processToken}#${randomBytes(16).toString('hex')}`;
    const deadline = request.blockMs === null ? Infinity : clock.monotonic() + request.blockMs;
    const stop = new AbortController();
    const onStop = (): void => stop.abort();
    run.ended.addEventListener('abort', onStop, { once: true });
    clientGone.addEventListener('abort', onStop, { once: true });
    try {
      for (;;) {
        if (run.ended.aborted) return { acquired: false, runEnded: true };
        if (clientGone.aborted) return { acquired: false };
        const reply = await this.#pass(run, request, holder);
        if (reply?.acquired === true && clientGone.aborted) {
          const hold = this.#holds.get(reply.token);
          if (hold !== undefined) void this.#drop(hold);
          return { acquired: false };
        }
        if (reply !== null) return reply;
        const remainingMs = deadline - clock.monotonic();
        if (!request.wait || remainingMs <= 0) return { acquired: false };
        await clock
          .sleep(Math.min(request.retryMs, remainingMs), stop.signal)
          .catch(() => undefined);
      }
    } finally {
      run.ended.removeEventListener('abort', onStop);
      clientGone.removeEventListener('abort', onStop);
    }
  }

  /** One try of every permit in order; null when all are taken. */
  async #pass(run: LiveRun, request: LockRequest, holder: string): Promise<LockReply | null> {
    for (let permit = 0; permit < request.permits; permit++) {
      const leaseName = lockLeaseName(request.scope, request.name, permit);
      await this.#releasing.get(leaseName);
      const result = await this.#deps.gate.call('acquire a lock lease', (store) =>
        store.acquireLease(leaseName, holder, request.ttlMs),
      );
      if (!result.acquired) continue;
      const hold: Hold = {
        token: randomBytes(16).toString('hex'),
        runId: run.context.runId,
        leaseName,
        holder,
        fence: result.fence,
        ttlMs: request.ttlMs,
        timer: null,
      };
      if (run.ended.aborted) {
        // The run ended while the store answered: the permit must not outlive it.
        void this.#startRelease(hold);
        return { acquired: false, runEnded: true };
      }
      this.#holds.set(hold.token, hold);
      let tokens = this.#byRun.get(hold.runId);
      if (tokens === undefined) this.#byRun.set(hold.runId, (tokens = new Set()));
      tokens.add(hold.token);
      this.#scheduleRenew(hold);
      return {
        acquired: true,
        token: hold.token,
        slot: permit,
        fence: hold.fence,
        ttl: hold.ttlMs / 1000,
      };
    }
    return null;
  }

  /** Release one of `runId`'s holds; false when the token is not one of them. */
  async release(runId: string, token: string): Promise<boolean> {
    const hold = this.#holds.get(token);
    if (hold === undefined || hold.runId !== runId) return false;
    await this.#drop(hold);
    return true;
  }

  /** The run ended: release everything it holds, in the background, starting now. */
  releaseRun(runId: string): void {
    for (const token of [...(this.#byRun.get(runId) ?? [])]) {
      const hold = this.#holds.get(token);
      if (hold !== undefined) void this.#drop(hold);
    }
  }

  releaseAll(): void {
    for (const hold of [...this.#holds.values()]) void this.#drop(hold);
  }

  /** Forget the hold and release its lease; resolves when the store answered (never rejects). */
  #drop(hold: Hold): Promise<void> {
    hold.timer?.cancel();
    hold.timer = null;
    this.#holds.delete(hold.token);
    const tokens = this.#byRun.get(hold.runId);
    tokens?.delete(hold.token);
    if (tokens?.size === 0) this.#byRun.delete(hold.runId);
    return this.#startRelease(hold);
  }

  #startRelease(hold: Hold): Promise<void> {
    const { gate, logger, tasks } = this.#deps;
    const released = gate
      .call('release a lock lease', (store) =>
        store.releaseLease(hold.leaseName, hold.holder, hold.fence),
      )
      .then(
        () => undefined,
        (error: unknown) => {
          logger.warn(
            { lease: hold.leaseName },
            `job API: Cannot release lock lease ${hold.leaseName}: ${describeError(error)}; it frees when its TTL runs out`,
          );
        },
      );
    this.#releasing.set(hold.leaseName, released);
    tasks.run(async () => {
      await released;
      if (this.#releasing.get(hold.leaseName) === released) this.#releasing.delete(hold.leaseName);
    });
    return released;
  }

  #scheduleRenew(hold: Hold): void {
    const { clock, tasks } = this.#deps;
    hold.timer = clock.setTimer(() => {
      hold.timer = null;
      tasks.run(() => this.#renew(hold));
    }, renewEveryMs(hold.ttlMs));
  }

  async #renew(hold: Hold): Promise<void> {
    const { gate, logger } = this.#deps;
    if (this.#holds.get(hold.token) !== hold) return;
    let lost = false;
    try {
      const result = await gate.call('renew a lock lease', (store) =>
        store.renewLease(hold.leaseName, hold.holder, hold.fence, hold.ttlMs),
      );
      lost = !result.acquired;
    } catch (error) {
      logger.warn(
        { lease: hold.leaseName },
        `job API: Cannot renew lock lease ${hold.leaseName}: ${describeError(error)}; retrying`,
      );
    }
    if (this.#holds.get(hold.token) !== hold) return;
    if (lost) {
      // At-least-once: the job keeps its believed hold (and its fence); nothing left to renew.
      logger.warn(
        { lease: hold.leaseName, fence: hold.fence },
        `job API: lock lease ${hold.leaseName} was taken over; the run keeps its hold (fence ${hold.fence})`,
      );
      return;
    }
    this.#scheduleRenew(hold);
  }
}
