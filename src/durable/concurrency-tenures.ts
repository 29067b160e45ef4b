// The holding half of the cluster concurrency slots (docs/durable-state.md "Cluster concurrency
// slots"): the tenures this node holds, one per job, shared by the job's local instances
// (reference counted), renewed every max(1 s, ttl/3) while referenced — each renew first reads
// the newest record of the job's `slots/<job>` stream and, when it is a cancel aimed at this
// tenure's fence, asks the referencing instances to stop (once) — and released when the last
// reference ends, once the run's in-flight `closed` record landed (bounded). concurrency-leases.ts
// decides when a tenure begins.
// Must not: hold a lease no local instance references, or renew a tenure another node took.
import { describeError, type Clock, type TaskSet, type TimerHandle } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { ConcurrencyHold } from '../scheduler/index.js';
import { SCHEDULING_READ_TIMEOUT_MS, withTimeout, type StateStore } from '../state/index.js';
import { inflightStream, concurrencyStream } from './records.js';
import { cancelsTenure, holderNode, type ConcurrencyTiming } from './concurrency-plan.js';
import type { StoreAccess } from './store-access.js';

export interface ConcurrencyTenuresDeps {
  readonly store: StateStore;
  readonly access: StoreAccess;
  readonly clock: Clock;
  readonly logger: Logger;
  /** This daemon process's `<host>#<proc>`. */
  readonly holder: string;
  readonly timing: ConcurrencyTiming;
  /** Renewals and releases run here; the owner's close() awaits it. */
  readonly tasks: TaskSet;
}

/** What this node holds of one job's slot (GET /state `node.slots`). */
export interface ConcurrencyTenureView {
  readonly slot: string;
  readonly holder: string;
  readonly fence: number;
  readonly expiresAtMs: number;
  readonly refs: number;
}

export interface Tenure {
  readonly job: string;
  readonly fence: number;
  expiresAtMs: number;
  refs: number;
  timer: TimerHandle | null;
  /** A cancel aimed at this fence was seen: the listeners were called. */
  cancelRequested: boolean;
  /** A renew found another tenure: nothing is renewed or released any more. */
  lost: boolean;
  readonly listeners: Set<() => void>;
}

export class ConcurrencyTenures {
  readonly #deps: ConcurrencyTenuresDeps;
  readonly #tenures = new Map<string, Tenure>();
  /** Releases still reaching the store, per job: the next claim waits for them. */
  readonly #releasing = new Map<string, Promise<void>>();
  #closed = false;

  constructor(deps: ConcurrencyTenuresDeps) {
    this.#deps = deps;
  }

  held(): ConcurrencyTenureView[] {
    return [...this.#tenures.values()]
      .filter((tenure) => !tenure.lost)
      .map((tenure) => this.#view(tenure));
  }

  /** The job's slot if this node holds it now. */
  heldFor(name: string): ConcurrencyTenureView | undefined {
    const tenure = this.#tenures.get(name);
    return tenure === undefined || tenure.lost ? undefined : this.#view(tenure);
  }

  #view(tenure: Tenure): ConcurrencyTenureView {
    return {
      slot: concurrencyStream(tenure.job),
      holder: this.#deps.holder,
      fence: tenure.fence,
      expiresAtMs: tenure.expiresAtMs,
      refs: tenure.refs,
    };
  }

  /** The job's tenure still in force here (not lost), once its pending release (if any) landed. */
  async live(name: string): Promise<Tenure | undefined> {
    await this.#releasing.get(name);
    const tenure = this.#tenures.get(name);
    return tenure === undefined || tenure.lost ? undefined : tenure;
  }

  /** Stop renewing and release every tenure (bounded); runs still alive keep running. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([...this.#tenures.values()].map((tenure) => this.#end(tenure)));
  }

  /** A new tenure won at `fence` (no references yet: share() it). */
  begin(name: string, fence: number): Tenure {
    const tenure: Tenure = {
      job: name,
      fence,
      expiresAtMs: this.#deps.clock.now() + this.#deps.timing.ttlMs,
      refs: 0,
      timer: null,
      cancelRequested: false,
      lost: false,
      listeners: new Set(),
    };
    this.#tenures.set(name, tenure);
    this.#scheduleRenew(tenure);
    return tenure;
  }

  /** One more local instance references the tenure; its hold's release() drops it. */
  share(tenure: Tenure, onCancelRequested: () => void): ConcurrencyHold {
    tenure.refs += 1;
    const listener = (): void => onCancelRequested();
    tenure.listeners.add(listener);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        tenure.listeners.delete(listener);
        tenure.refs -= 1;
        if (tenure.refs === 0 && this.#tenures.get(tenure.job) === tenure) {
          this.#deps.tasks.run(() => this.#end(tenure));
        }
      },
    };
  }

  #scheduleRenew(tenure: Tenure): void {
    if (this.#closed || tenure.lost) return;
    tenure.timer = this.#deps.clock.setTimer(() => {
      tenure.timer = null;
      this.#deps.tasks.run(() => this.#renew(tenure));
    }, this.#deps.timing.renewEveryMs);
  }

  /** One renew: first the job's cancel stream, then the lease; then the next renew. */
  async #renew(tenure: Tenure): Promise<void> {
    const { access, clock, logger, store } = this.#deps;
    if (this.#tenures.get(tenure.job) !== tenure) return;
    const slot = concurrencyStream(tenure.job);
    try {
      const [newest] = await access.read(
        store.list(slot, { limit: 1 }),
        `read the slot requests of ${tenure.job}`,
      );
      if (!tenure.cancelRequested && cancelsTenure(newest?.data, tenure.fence)) {
        tenure.cancelRequested = true;
        for (const listener of [...tenure.listeners]) listener();
      }
    } catch (error) {
      logger.warn(
        `Job ${tenure.job}: cannot read its cluster slot's cancel requests: ${describeError(error)}`,
      );
    }
    if (this.#tenures.get(tenure.job) !== tenure) return;
    try {
      const result = await withTimeout(
        store.renewLease(slot, this.#deps.holder, tenure.fence, this.#deps.timing.ttlMs),
        SCHEDULING_READ_TIMEOUT_MS,
        clock,
        `renew the cluster concurrency slot of ${tenure.job}`,
      );
      if (!result.acquired) {
        tenure.lost = true;
        logger.warn(
          `Job ${tenure.job}: lost its cluster concurrency slot to ${holderNode(result.holder ?? 'nobody')} (fence ${result.fence}); the run here continues unfenced`,
        );
        return;
      }
      tenure.expiresAtMs = result.expiresAtMs;
    } catch (error) {
      logger.warn(
        `Job ${tenure.job}: cannot renew its cluster concurrency slot: ${describeError(error)}`,
      );
    }
    this.#scheduleRenew(tenure);
  }

  /** The last reference ended: stop renewing and release (a lost tenure has nothing to release). */
  #end(tenure: Tenure): Promise<void> {
    tenure.timer?.cancel();
    tenure.timer = null;
    if (this.#tenures.get(tenure.job) === tenure) this.#tenures.delete(tenure.job);
    if (tenure.lost) return Promise.resolve();
    const { access, clock, logger, store } = this.#deps;
    // The run's `closed` in-flight record lands before the slot frees, so the next holder's
    // `open` always follows it: the stream stays in tenure order and a takeover's "newest
    // record" is the lapsed holder's own (docs/durable-state.md "Cluster concurrency slots").
    const released = withTimeout(
      access
        .settled(inflightStream(tenure.job))
        .then(() =>
          store.releaseLease(concurrencyStream(tenure.job), this.#deps.holder, tenure.fence),
        ),
      SCHEDULING_READ_TIMEOUT_MS,
      clock,
      `release the cluster concurrency slot of ${tenure.job}`,
    ).then(
      () => undefined,
      (error: unknown) =>
        logger.warn(
          `Job ${tenure.job}: cannot release its cluster concurrency slot: ${describeError(error)}; it frees when its TTL runs out`,
        ),
    );
    this.#releasing.set(tenure.job, released);
    void released.finally(() => {
      if (this.#releasing.get(tenure.job) === released) this.#releasing.delete(tenure.job);
    });
    return released;
  }
}
