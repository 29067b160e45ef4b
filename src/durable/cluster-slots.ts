// The cluster concurrency slots of `concurrencyScope: cluster` jobs (docs/durable-state.md
// "Cluster concurrency slots"): before such a launch the node takes the job's `slots/<job>` lease
// in the shared store (holder `<host>#<proc>`, TTL slotTtlSeconds), shares it among its own
// instances, renews it every ttl/3 while they run (each renew first reads the job's `slots/<job>`
// stream: a Replace elsewhere asks this tenure to cancel there) and releases it when the last one
// ends. A Replace launch meeting a live foreign holder appends the cancel aimed at the holder's
// fence and polls for the slot, bounded. A fresh win over a lapsed foreign tenure closes that
// holder's orphaned in-flight record (`reconciled-takeover`). Decisions are slot-plan.ts's.
// Lease calls go to the store directly (never through the write queue or its rate bucket: a
// renew queued behind bulk writes could overshoot its TTL).
// Must not: throw into the launcher, or hold a lease with no instance referencing it.
import {
  describeError,
  type Clock,
  type Logger,
  type TaskSet,
  type TimerHandle,
} from '../common/index.js';
import type { ResolvedJob } from '../config/index.js';
import type { ClusterSlotPort, SlotClaim, SlotClaimRequest, SlotHold } from '../scheduler/index.js';
import { SCHEDULING_READ_TIMEOUT_MS, withTimeout, type StateStore } from '../state/index.js';
import { reconciledRowOf } from './ledger-rows.js';
import {
  inflightClosedData,
  inflightStream,
  isoAt,
  parseInflight,
  runsStream,
  slotCancelData,
  slotsStream,
  SLOTS_KEEP,
} from './records.js';
import {
  cancelsTenure,
  holderNode,
  planClaim,
  slotHolder,
  slotTiming,
  unavailableVerdict,
  type SlotAttempt,
  type SlotStep,
  type SlotTiming,
} from './slot-plan.js';
import type { StoreAccess } from './store-access.js';

export interface ClusterSlotsDeps {
  readonly store: StateStore;
  /** Resolves true once the store is open (false: it closed first); claims wait for it. */
  readonly storeOpened: Promise<boolean>;
  /** The lock-fidelity probe (rejects when flock does not exclude); absent = trusted. */
  readonly lockFidelity?: () => Promise<void>;
  readonly access: StoreAccess;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly host: string;
  /** The daemon's per-process token: the holder's second part. */
  readonly processToken: string;
  readonly ttlMs: number;
  readonly onStoreUnavailable: 'degrade' | 'fail-closed';
  /** Renewals, releases and takeover writes run here; the owner's close() awaits it. */
  readonly tasks: TaskSet;
}

/** What this node holds of one job's slot. */
export interface SlotTenureView {
  readonly slot: string;
  readonly holder: string;
  readonly fence: number;
  readonly expiresAtMs: number;
  readonly refs: number;
}

interface Tenure {
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

/** Where a pursuit ended when it did not win the slot. */
type PursuitEnd = SlotStep | { readonly kind: 'gave-up'; readonly holder: string };

export class ClusterSlots implements ClusterSlotPort {
  readonly #deps: ClusterSlotsDeps;
  readonly #holder: string;
  readonly #timing: SlotTiming;
  readonly #tenures = new Map<string, Tenure>();
  /** Releases still reaching the store, per job: the next claim waits for them. */
  readonly #releasing = new Map<string, Promise<void>>();
  /** The probe's verdict once asked: null = trusted, else why the locks are not. */
  #untrusted: Promise<string | null> | undefined;
  #closed = false;

  constructor(deps: ClusterSlotsDeps) {
    this.#deps = deps;
    this.#holder = slotHolder(deps.host, deps.processToken);
    this.#timing = slotTiming(deps.ttlMs);
  }

  /** The slots this node holds now (the state overview's `node.slots`). */
  held(): SlotTenureView[] {
    return [...this.#tenures.values()]
      .filter((tenure) => !tenure.lost)
      .map((tenure) => ({
        slot: slotsStream(tenure.job),
        holder: this.#holder,
        fence: tenure.fence,
        expiresAtMs: tenure.expiresAtMs,
        refs: tenure.refs,
      }));
  }

  async claim(job: ResolvedJob, request: SlotClaimRequest): Promise<SlotClaim> {
    const name = job.name;
    if (this.#closed) return this.#storeSilent(name, 'the state backend is closing');
    const untrusted = await this.#lockVerdict();
    if (untrusted !== null) return this.#storeSilent(name, untrusted);
    await this.#releasing.get(name);
    const current = this.#tenures.get(name);
    if (current !== undefined && !current.lost)
      return { kind: 'run', hold: this.#share(current, request) };
    const policy = job.concurrencyPolicy === 'Replace' ? 'Replace' : 'Forbid';
    let step: SlotStep | PursuitEnd = planClaim(
      await this.#acquire(name),
      policy,
      this.#deps.clock.now(),
    );
    if (step.kind === 'pursue') step = await this.#pursue(name, step);
    switch (step.kind) {
      case 'hold': {
        if (step.takeoverFrom !== null && step.takeoverFrom !== this.#holder) {
          await this.#reconcileTakeover(job, step.takeoverFrom);
        }
        const tenure = this.#begin(name, step.fence);
        return { kind: 'run', hold: this.#share(tenure, request) };
      }
      case 'held-elsewhere':
        this.#deps.logger.warn(
          `Job ${name} skipped: its cluster concurrency slot is held by ${holderNode(step.holder)} (concurrencyPolicy Forbid)`,
        );
        return { kind: 'skip', reason: 'forbid' };
      case 'gave-up':
        this.#deps.logger.warn(
          `Job ${name} skipped: its cluster concurrency slot is still held by ${holderNode(step.holder)} ${this.#timing.pursuitLimitMs / 1000} s after asking it to cancel (concurrencyPolicy Replace; no-run over double-run)`,
        );
        return { kind: 'skip', reason: 'forbid' };
      case 'unavailable':
        return this.#storeSilent(name, step.detail);
      case 'pursue':
        // #pursue never ends on a pursuit; unreachable, but decide safely.
        return { kind: 'skip', reason: 'forbid' };
    }
  }

  /** Stop renewing and release every held slot (bounded); runs still alive keep running. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const releases = [...this.#tenures.values()].map((tenure) => this.#end(tenure));
    await Promise.all(releases);
  }

  // ---- claiming --------------------------------------------------------------------------------

  /** Probe the store's locks once (after it opened); an ERROR the one time they fail it. */
  #lockVerdict(): Promise<string | null> {
    const { lockFidelity, logger, storeOpened } = this.#deps;
    if (lockFidelity === undefined) return Promise.resolve(null);
    this.#untrusted ??= storeOpened.then(async (open) => {
      // A store that never opened is judged per claim (the acquire reports it), not here.
      if (!open) return null;
      try {
        await lockFidelity();
        return null;
      } catch (error) {
        const reason = `its locks cannot be trusted: ${describeError(error)}`;
        logger.error(
          `State store: ${reason}; every concurrencyScope cluster claim follows onStoreUnavailable`,
        );
        return reason;
      }
    });
    return this.#untrusted;
  }

  async #acquire(name: string): Promise<SlotAttempt> {
    const { store, storeOpened, clock } = this.#deps;
    // A launch right at start-up waits (bounded) for the store to open rather than degrade.
    const acquired = storeOpened.then((open) => {
      if (!open) throw new Error('the state store is closed');
      return store.acquireLease(slotsStream(name), this.#holder, this.#timing.ttlMs);
    });
    try {
      const result = await withTimeout(
        acquired,
        SCHEDULING_READ_TIMEOUT_MS,
        clock,
        `claim the cluster concurrency slot of ${name}`,
      );
      if (result.acquired) {
        return {
          kind: 'acquired',
          fence: result.fence,
          fresh: result.fresh,
          previousHolder: result.previousHolder ?? null,
        };
      }
      return {
        kind: 'denied',
        holder: result.holder ?? '',
        fence: result.fence,
        expiresAtMs: result.expiresAtMs,
      };
    } catch (error) {
      return { kind: 'unavailable', detail: describeError(error) };
    }
  }

  /**
   * Replace against a live foreign holder: append the cancel aimed at its fence, then poll the
   * lease every ttl/6 for up to 2 x ttl. A new tenure taking the slot meanwhile is asked too.
   */
  async #pursue(name: string, first: Extract<SlotStep, { kind: 'pursue' }>): Promise<PursuitEnd> {
    const { clock, logger } = this.#deps;
    const deadline = clock.monotonic() + this.#timing.pursuitLimitMs;
    let target = first;
    if (!(await this.#askToCancel(name, target)))
      return { kind: 'unavailable', detail: 'the replace-cancel could not be written' };
    logger.warn(
      `Job ${name}: its cluster concurrency slot is held by ${holderNode(target.holder)}; asked it to cancel its run (concurrencyPolicy Replace)`,
    );
    while (clock.monotonic() < deadline && !this.#closed) {
      await clock.sleep(Math.min(this.#timing.pursuitPollMs, deadline - clock.monotonic()));
      const step = planClaim(await this.#acquire(name), 'Replace', clock.now());
      if (step.kind === 'hold') return step;
      if (
        step.kind !== 'pursue' ||
        (step.holder === target.holder && step.fence === target.fence)
      ) {
        continue;
      }
      target = step;
      await this.#askToCancel(name, target);
    }
    return { kind: 'gave-up', holder: target.holder };
  }

  async #askToCancel(name: string, target: { readonly fence: number }): Promise<boolean> {
    const { access, clock, host } = this.#deps;
    const stream = slotsStream(name);
    const landed = await access.writeAndWait(
      'other',
      stream,
      slotCancelData({ kind: 'cancel', fence: target.fence, by: host, atMs: clock.now() }),
    );
    if (landed) access.submitPrune('other', stream, SLOTS_KEEP);
    return landed;
  }

  #storeSilent(name: string, detail: string): SlotClaim {
    const { logger, onStoreUnavailable } = this.#deps;
    switch (unavailableVerdict(onStoreUnavailable)) {
      case 'run-node-local':
        logger.warn(
          `Job ${name}: cannot claim its cluster concurrency slot (${detail}); running with node-local enforcement only (onStoreUnavailable degrade)`,
        );
        return { kind: 'run', hold: null };
      case 'skip':
        logger.warn(
          `Job ${name} skipped: cannot claim its cluster concurrency slot (${detail}) and onStoreUnavailable is fail-closed`,
        );
        return { kind: 'skip', reason: 'state-unavailable' };
    }
  }

  /**
   * A fresh win over a lapsed foreign tenure: when the job's newest in-flight record is that
   * holder's open one, close it `reconciled-takeover` and append the non-verdict ledger row.
   */
  async #reconcileTakeover(job: ResolvedJob, previousHolder: string): Promise<void> {
    const { access, clock, host, logger, processToken, store } = this.#deps;
    const stream = inflightStream(job.name);
    try {
      const [newest] = await access.read(
        store.list(stream, { limit: 1 }),
        `read the in-flight records of ${job.name}`,
      );
      const open = newest === undefined ? undefined : parseInflight(newest.data);
      if (open?.kind !== 'open' || open.proc === processToken) return;
      if (slotHolder(open.host, open.proc) !== previousHolder) return;
      const closed = await access.writeAndWait(
        'inflight',
        stream,
        inflightClosedData(host, processToken, 'reconciled-takeover', clock.now()),
      );
      if (!closed) return;
      await access.writeAndWait(
        'run-record',
        runsStream(job.name),
        reconciledRowOf(job.onMissed, open.startedAtMs, open.host),
      );
      logger.warn(
        `Job ${job.name}: took over its cluster concurrency slot from ${open.host}, whose run started at ${isoAt(open.startedAtMs)} never finished (daemon crash, or the node lost access to the state store mid-run); recorded as outcome unknown`,
      );
    } catch (error) {
      logger.warn(
        `Job ${job.name}: cannot reconcile the run of the previous slot holder ${holderNode(previousHolder)}: ${describeError(error)}`,
      );
    }
  }

  // ---- holding ---------------------------------------------------------------------------------

  #begin(name: string, fence: number): Tenure {
    const tenure: Tenure = {
      job: name,
      fence,
      expiresAtMs: this.#deps.clock.now() + this.#timing.ttlMs,
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

  #share(tenure: Tenure, request: SlotClaimRequest): SlotHold {
    tenure.refs += 1;
    const listener = (): void => request.onCancelRequested();
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
    }, this.#timing.renewEveryMs);
  }

  /** One renew: first the job's cancel stream, then the lease; then the next renew. */
  async #renew(tenure: Tenure): Promise<void> {
    const { access, clock, logger, store } = this.#deps;
    if (this.#tenures.get(tenure.job) !== tenure) return;
    const slot = slotsStream(tenure.job);
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
        store.renewLease(slot, this.#holder, tenure.fence, this.#timing.ttlMs),
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
    const { clock, logger, store } = this.#deps;
    const released = withTimeout(
      store.releaseLease(slotsStream(tenure.job), this.#holder, tenure.fence),
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
