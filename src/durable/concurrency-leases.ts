// The cluster concurrency slots of `concurrencyScope: cluster` jobs (docs/durable-state.md
// "Cluster concurrency slots"), the claiming half: before such a launch the node takes the job's
// `slots/<job>` lease in the shared store (holder `<host>#<proc>`, TTL slotTtlSeconds); the
// tenure is then held, shared, renewed and released by concurrency-tenures.ts. A Replace launch meeting a live foreign holder appends the cancel aimed at the holder's
// fence and polls for the slot, bounded. A fresh win over a lapsed foreign tenure closes that
// holder's orphaned in-flight record (`reconciled-takeover`). Decisions are concurrency-plan.ts's.
// Lease calls go to the store directly (never through the write queue or its rate bucket: a
// renew queued behind bulk writes could overshoot its TTL).
// Must not: throw into the launcher, or hold a lease with no instance referencing it.
import { describeError, isYacronError, type Clock, type TaskSet } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { ResolvedJob } from '../config/index.js';
import type {
  ConcurrencyLeasePort,
  ConcurrencyClaim,
  ConcurrencyClaimRequest,
} from '../scheduler/index.js';
import { SCHEDULING_READ_TIMEOUT_MS, withTimeout, type StateStore } from '../state/index.js';
import { reconciledRowOf } from './ledger-rows.js';
import {
  inflightClosedData,
  inflightStream,
  isoAt,
  parseInflight,
  runsStream,
  concurrencyCancelData,
  concurrencyStream,
  CONCURRENCY_RECORDS_KEEP,
} from './records.js';
import {
  holderNode,
  planClaim,
  concurrencyHolder,
  concurrencyTiming,
  unavailableVerdict,
  type ConcurrencyAttempt,
  type ConcurrencyStep,
  type ConcurrencyTiming,
} from './concurrency-plan.js';
import { ConcurrencyTenures, type ConcurrencyTenureView } from './concurrency-tenures.js';
import type { StoreAccess } from './store-access.js';

export interface ConcurrencyLeasesDeps {
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

/** Where a pursuit ended when it did not win the slot. */
type PursuitEnd = ConcurrencyStep | { readonly kind: 'gave-up'; readonly holder: string };

export class ConcurrencyLeases implements ConcurrencyLeasePort {
  readonly #deps: ConcurrencyLeasesDeps;
  readonly #holder: string;
  readonly #timing: ConcurrencyTiming;
  readonly #tenures: ConcurrencyTenures;
  /** The probe's verdict once asked: null = trusted, else why the locks are not. */
  #untrusted: Promise<string | null> | undefined;
  #closed = false;

  constructor(deps: ConcurrencyLeasesDeps) {
    this.#deps = deps;
    this.#holder = concurrencyHolder(deps.host, deps.processToken);
    this.#timing = concurrencyTiming(deps.ttlMs);
    this.#tenures = new ConcurrencyTenures({
      store: deps.store,
      access: deps.access,
      clock: deps.clock,
      logger: deps.logger,
      holder: this.#holder,
      timing: this.#timing,
      tasks: deps.tasks,
    });
  }

  /** The slots this node holds now (the state overview's `node.slots`). */
  held(): ConcurrencyTenureView[] {
    return this.#tenures.held();
  }

  /** The job's slot if this node holds it now (GET /jobs's `slot`). */
  heldFor(name: string): ConcurrencyTenureView | undefined {
    return this.#tenures.heldFor(name);
  }

  async claim(job: ResolvedJob, request: ConcurrencyClaimRequest): Promise<ConcurrencyClaim> {
    const name = job.name;
    if (this.#closed) return this.#storeSilent(name, 'the state backend is closing');
    const untrusted = await this.#lockVerdict();
    if (untrusted !== null) return this.#storeSilent(name, untrusted);
    const current = await this.#tenures.live(name);
    if (current?.cancelRequested === true) {
      // Another node's Replace asked for this tenure first: it wins, nothing new starts here.
      this.#deps.logger.warn(
        `Job ${name} skipped: another node is replacing its run here (concurrencyScope cluster)`,
      );
      return { kind: 'skip', reason: 'forbid' };
    }
    if (current !== undefined) {
      return { kind: 'run', hold: this.#tenures.share(current, request.onCancelRequested) };
    }
    const policy = job.concurrencyPolicy === 'Replace' ? 'Replace' : 'Forbid';
    let step: ConcurrencyStep | PursuitEnd = planClaim(await this.#acquire(name), policy);
    if (step.kind === 'pursue') step = await this.#pursue(name, step);
    switch (step.kind) {
      case 'hold': {
        if (step.takeoverFrom !== null && step.takeoverFrom !== this.#holder) {
          await this.#reconcileTakeover(job, step.takeoverFrom);
        }
        const tenure = this.#tenures.begin(name, step.fence);
        return { kind: 'run', hold: this.#tenures.share(tenure, request.onCancelRequested) };
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
    await this.#tenures.close();
  }

  // ---- claiming --------------------------------------------------------------------------------

  /** Probe the store's locks once (after it opened); an ERROR the one time they fail it. */
  #lockVerdict(): Promise<string | null> {
    const { lockFidelity, logger, storeOpened } = this.#deps;
    if (lockFidelity === undefined) return Promise.resolve(null);
    const verdict = (this.#untrusted ??= storeOpened.then(async (open) => {
      // A store that never opened is judged per claim (the acquire reports it), not here.
      if (!open) return null;
      try {
        await lockFidelity();
        return null;
      } catch (error) {
        if (!isYacronError(error, 'YC_ERR_STATE_UNSAFE')) {
          // The probe could not tell (a timeout on a loaded host): this claim follows the
          // policy, the next one probes again.
          this.#untrusted = undefined;
          return `its locks could not be checked: ${describeError(error)}`;
        }
        const reason = `its locks cannot be trusted: ${describeError(error)}`;
        logger.error(
          `State store: ${reason}; every concurrencyScope cluster claim follows onStoreUnavailable`,
        );
        return reason;
      }
    }));
    return verdict;
  }

  async #acquire(name: string): Promise<ConcurrencyAttempt> {
    const { store, storeOpened, clock } = this.#deps;
    let askedAtMs = clock.now();
    // A launch right at start-up waits (bounded) for the store to open rather than degrade.
    const acquired = storeOpened.then((open) => {
      if (!open) throw new Error('the state store is closed');
      askedAtMs = clock.now();
      return store.acquireLease(concurrencyStream(name), this.#holder, this.#timing.ttlMs);
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
        askedAtMs,
      };
    } catch (error) {
      return { kind: 'unavailable', detail: describeError(error) };
    }
  }

  /**
   * Replace against a live foreign holder: append the cancel aimed at its fence, then poll the
   * lease every ttl/6 for up to 2 x ttl. A new tenure taking the slot meanwhile is asked too.
   */
  async #pursue(
    name: string,
    first: Extract<ConcurrencyStep, { kind: 'pursue' }>,
  ): Promise<PursuitEnd> {
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
      const step = planClaim(await this.#acquire(name), 'Replace');
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
    const stream = concurrencyStream(name);
    const landed = await access.writeAndWait(
      'other',
      stream,
      concurrencyCancelData({ kind: 'cancel', fence: target.fence, by: host, atMs: clock.now() }),
    );
    if (landed) access.submitPrune('other', stream, CONCURRENCY_RECORDS_KEEP);
    return landed;
  }

  #storeSilent(name: string, detail: string): ConcurrencyClaim {
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
      if (concurrencyHolder(open.host, open.proc) !== previousHolder) return;
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
}
