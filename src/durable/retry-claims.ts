// Cross-node retry resume, the runner (docs/durable-state.md "Retry resume across nodes"): the
// owner's claim scan and the consume-time re-check, both serialised on the job's
// `retry-claim/<job>` lease (and, within this process, on a per-job mutex: the lease's holder is
// `<host>#<proc>`, the same for every part of this process). retry-claim-plan.ts decides; this
// reads, holds the lease, writes and re-arms the scheduler's ladder.
// Must not: claim while resume is inactive (single-node store, no running cluster), write a
// claim's pending before the re-read under the lease, or release the lease before it landed.
import { describeError, type Clock } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { ResolvedJob } from '../config/index.js';
import type { RetryDueVerdict } from '../scheduler/index.js';
import { KeyedMutex, SCHEDULING_READ_TIMEOUT_MS, withLease, withTimeout } from '../state/index.js';
import type { LeaseOutcome, StateStore } from '../state/index.js';
import { memoryLastFinishMs, REHYDRATE_RUNS } from './boot-steps.js';
import { newestFinishMs, parseRuns } from './ledger-rows.js';
import { retriesStream, runsStream } from './records.js';
import {
  confirmRetryClaim,
  ladderStillOurs,
  planRetryClaim,
  resumableJob,
  retryClaimLease,
  RETRY_CLAIM_TTL_MS,
  type ClaimableLadder,
} from './retry-claim-plan.js';
import { parseRetry, pendingData, settledData } from './retry-records.js';
import type { RetrySettledReason } from './retry-records.js';
import type { StoreAccess } from './store-access.js';
import type { DurableDeps, ResumeCluster } from './types.js';

export interface RetryClaimsDeps {
  readonly access: StoreAccess;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly host: string;
  readonly scheduler: DurableDeps['scheduler'];
  readonly process: DurableDeps['process'];
  readonly onStoreUnavailable: 'degrade' | 'fail-closed';
  /** Whether the store is shared by several hosts (topology shared); undefined = unknown. */
  readonly sharedStore: () => boolean | undefined;
  /** The cluster, when the daemon runs one; absent: resume never applies. */
  readonly cluster?: ResumeCluster;
  /** The configuration serving now. */
  readonly jobs: () => readonly ResolvedJob[];
}

/** What a claim under the lease did. */
type ClaimOutcome =
  | { readonly kind: 'changed' | 'unwritten' }
  | { readonly kind: 'settled'; readonly reason: RetrySettledReason }
  | { readonly kind: 'claimed'; readonly ladder: ClaimableLadder };

export class RetryClaims {
  readonly #deps: RetryClaimsDeps;
  readonly #mutex = new KeyedMutex();
  readonly #holder: string;

  constructor(deps: RetryClaimsDeps) {
    this.#deps = deps;
    this.#holder = `${deps.host}#${deps.process.token}`;
  }

  /** Resume is active for this job's ladder: shared store, running cluster, resumable ladder. */
  active(job: ResolvedJob): boolean {
    const { sharedStore, cluster } = this.#deps;
    return sharedStore() === true && cluster?.running() === true && resumableJob(job);
  }

  /**
   * The consume-time re-check of a due retry: on the claim lease, the ladder's newest record must
   * still be this host's, then `settle` (the `launched` record) runs under the lease. A store
   * that cannot answer follows onStoreUnavailable: degrade settles unserialised, fail-closed
   * defers.
   */
  async due(jobName: string, settle: () => Promise<RetryDueVerdict>): Promise<RetryDueVerdict> {
    const { access, host } = this.#deps;
    let outcome: LeaseOutcome<RetryDueVerdict>;
    try {
      outcome = await this.#underLease(jobName, async () => {
        const newest = await access.read(
          access.store.list(retriesStream(jobName), { limit: 1 }),
          `read the retry records of ${jobName}`,
        );
        return ladderStillOurs(newest[0]?.data, host) ? settle() : 'foreign';
      });
    } catch (error) {
      const degrade = this.#deps.onStoreUnavailable === 'degrade';
      this.#deps.logger.warn(
        `Cron job ${jobName}: cannot serialise its due retry with cross-node claims (${describeError(error)}); ${degrade ? 'proceeding unserialised (degrade)' : 'deferring it (fail-closed)'}`,
      );
      return degrade ? settle() : 'defer';
    }
    return outcome.kind === 'held' ? 'contended' : outcome.result;
  }

  /** The owner's claim scan: each job this node owns whose ladder another node left. */
  async scan(): Promise<void> {
    const { cluster, logger } = this.#deps;
    for (const job of this.#deps.jobs()) {
      if (!this.active(job) || job.retry.maximumRetries === 0 || cluster?.owns(job) !== true) {
        continue;
      }
      try {
        await this.#scanJob(job);
      } catch (error) {
        logger.warn(
          `Cron job ${job.name}: cannot check for a retry to resume: ${describeError(error)}`,
        );
      }
    }
  }

  async #scanJob(job: ResolvedJob): Promise<void> {
    const { access, scheduler, clock, host, logger } = this.#deps;
    const name = job.name;
    // A live ladder or run here is newer than any record another node left.
    if (scheduler.activeInstances(name) > 0 || scheduler.getJobState(name).retry !== null) return;
    const stream = retriesStream(name);
    const [newest] = await access.read(
      access.store.list(stream, { limit: 1 }),
      `read the retry records of ${name}`,
    );
    if (newest === undefined) return;
    const plan = planRetryClaim(parseRetry(newest.data), {
      job,
      host,
      nowMs: clock.now(),
      lastRunFinishedMs: memoryLastFinishMs(scheduler, name),
    });
    if (plan.kind === 'leave') return;
    const outcome = await this.#underLease(name, async (): Promise<ClaimOutcome> => {
      const [again] = await access.read(
        access.store.list(stream, { limit: 1 }),
        `read the retry records of ${name}`,
      );
      if (again?.id !== newest.id) return { kind: 'changed' };
      if (plan.kind === 'settle') return this.#settle(name, plan.ladder, plan.reason);
      const ledger = await access.read(
        access.store.list(runsStream(name), { limit: REHYDRATE_RUNS }),
        `read the run ledger of ${name}`,
      );
      const confirmation = confirmRetryClaim({
        plannedId: newest.id,
        rereadId: again.id,
        ladder: plan.ladder,
        ledgerFinishedMs: newestFinishMs(parseRuns(ledger.map((record) => record.data))),
      });
      if (confirmation.kind === 'changed') return confirmation;
      if (confirmation.kind === 'superseded-by-run') {
        return this.#settle(name, plan.ladder, 'superseded-by-run');
      }
      return this.#claim(job, plan.ladder);
    });
    if (outcome.kind === 'held') return; // another node claims it now: the next scan sees its record
    const done = outcome.result;
    if (done.kind !== 'claimed') return;
    const { attempt, notBeforeMs, fromHost, via } = done.ladder;
    logger.info(
      `Cron job ${name}: claimed retry #${attempt} from ${fromHost} (${via === 'handoff' ? 'handed off' : 'its owner did not run it'})`,
    );
    if (!scheduler.resumeRetry(name, attempt, notBeforeMs)) {
      // A ladder of this node appeared meanwhile: it is the newer one.
      access.submit('retry', stream, settledData(host, 'superseded', attempt, clock.now()));
    }
  }

  /** Append this host's pending (claimedFrom), waiting for it to land (still under the lease). */
  async #claim(job: ResolvedJob, ladder: ClaimableLadder): Promise<ClaimOutcome> {
    const { access, clock, host, process } = this.#deps;
    const data = pendingData(
      {
        host,
        attempt: ladder.attempt,
        notBeforeMs: ladder.notBeforeMs,
        jobDigest: job.digest,
        claimedFrom: ladder.fromHost,
      },
      clock.now(),
    );
    if (!(await access.writeAndWait('retry', retriesStream(job.name), data))) {
      return { kind: 'unwritten' };
    }
    // The boot re-arm of a later state-section reload leaves this process's own ladder alone.
    process.armedRetries.set(job.name, data['at'] as string);
    return { kind: 'claimed', ladder };
  }

  async #settle(
    name: string,
    ladder: ClaimableLadder,
    reason: RetrySettledReason,
  ): Promise<ClaimOutcome> {
    const { access, clock, host, logger } = this.#deps;
    logger.info(
      `Cron job ${name}: settling the retry #${ladder.attempt} left by ${ladder.fromHost} (${reason})`,
    );
    const data = settledData(host, reason, ladder.attempt, clock.now());
    return (await access.writeAndWait('retry', retriesStream(name), data))
      ? { kind: 'settled', reason }
      : { kind: 'unwritten' };
  }

  /** `work` holding the job's claim lease, one holder of this process at a time. */
  #underLease<T>(jobName: string, work: () => Promise<T>): Promise<LeaseOutcome<T>> {
    const { store } = this.#deps.access;
    return this.#mutex.run(jobName, () =>
      withLease(
        boundedLeases(store, this.#deps.clock),
        { name: retryClaimLease(jobName), holder: this.#holder, ttlMs: RETRY_CLAIM_TTL_MS },
        work,
      ),
    );
  }
}

/** The store's lease calls under the scheduling-path bound (a hung mount fails, not stalls). */
function boundedLeases(
  store: StateStore,
  clock: Clock,
): Pick<StateStore, 'acquireLease' | 'releaseLease'> {
  const bounded = <T>(work: Promise<T>, what: string): Promise<T> =>
    withTimeout(work, SCHEDULING_READ_TIMEOUT_MS, clock, what);
  return {
    acquireLease: (name, holder, ttlMs) =>
      bounded(store.acquireLease(name, holder, ttlMs), `acquire the lease ${name}`),
    releaseLease: (name, holder, fence) =>
      bounded(store.releaseLease(name, holder, fence), `release the lease ${name}`),
  };
}
