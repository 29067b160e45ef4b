// The durable side of the retry protocol (docs/durable-state.md "Restart-surviving retries"): the
// scheduler's retries.ts decides when a pending record is armed, settled `launched` or settled
// otherwise, or handed off to a job's new owner; this journal writes those records to
// `retries/<job>` (retry-records.ts renders them), through the cross-node claim lease while
// retry resume is active (retry-claims.ts), and planRetryResume() judges a pending record found
// at boot.
// Must not: decide the protocol's order, or throw a write failure at the scheduler.
import type { Clock } from '../common/index.js';
import type { ResolvedJob } from '../config/index.js';
import type { RetryDueVerdict, RetryJournal, RetrySettleReason } from '../scheduler/index.js';
import { parseStoreInstant, retriesStream, RETRIES_KEEP } from './records.js';
import type { RetryClaims } from './retry-claims.js';
import {
  handoffData,
  pendingData,
  settledData,
  settledReasonOf,
  type RetryPending,
  type RetryPendingInvalid,
  type RetrySettledReason,
} from './retry-records.js';
import type { StoreAccess } from './store-access.js';
import type { DurableProcessState } from './types.js';

export interface RetryJournalDeps {
  readonly access: StoreAccess;
  readonly clock: Clock;
  readonly host: string;
  readonly process: DurableProcessState;
  readonly onStoreUnavailable: 'degrade' | 'fail-closed';
  /** Cross-node retry resume: whether it is active for a job, and its claim lease. */
  readonly claims: Pick<RetryClaims, 'active' | 'due'>;
}

export class StoreRetryJournal implements RetryJournal {
  readonly #deps: RetryJournalDeps;

  constructor(deps: RetryJournalDeps) {
    this.#deps = deps;
  }

  armed(job: ResolvedJob, attempt: number, notBeforeMs: number): void {
    const { access, clock, host, process } = this.#deps;
    const stream = retriesStream(job.name);
    const data = pendingData({ host, attempt, notBeforeMs, jobDigest: job.digest }, clock.now());
    process.armedRetries.set(job.name, data['at'] as string);
    access.submit('retry', stream, data);
    access.submitPrune('retry', stream, RETRIES_KEEP);
  }

  due(job: ResolvedJob, attempt: number): Promise<RetryDueVerdict> {
    const settle = (): Promise<RetryDueVerdict> => this.#settleLaunched(job.name, attempt);
    // While resume is active, the launch serialises with the other nodes' claims.
    return this.#deps.claims.active(job) ? this.#deps.claims.due(job.name, settle) : settle();
  }

  handOff(job: ResolvedJob, attempt: number): boolean {
    if (!this.#deps.claims.active(job)) return false;
    const { access, clock, host, process } = this.#deps;
    const nowMs = clock.now();
    const armedAtMs = parseStoreInstant(process.armedRetries.get(job.name)) ?? nowMs;
    access.submit(
      'retry',
      retriesStream(job.name),
      handoffData({
        attempt,
        notBeforeMs: nowMs,
        jobDigest: job.digest,
        fromHost: host,
        atMs: nowMs,
        armedAtMs,
      }),
    );
    return true;
  }

  /** Record-before-run: the `launched` settle, waited for. */
  async #settleLaunched(jobName: string, attempt: number): Promise<RetryDueVerdict> {
    const { access, clock, host } = this.#deps;
    const landed = await access.writeAndWait(
      'retry',
      retriesStream(jobName),
      settledData(host, 'launched', attempt, clock.now()),
    );
    if (landed) return 'launched';
    return this.#deps.onStoreUnavailable === 'degrade' ? 'unrecorded' : 'defer';
  }

  settled(jobName: string, attempt: number, reason: RetrySettleReason): void {
    this.settledAs(jobName, attempt, settledReasonOf(reason));
  }

  /** Settle with a reason of the record's own list (the boot's judgements). */
  settledAs(jobName: string, attempt: number | null, reason: RetrySettledReason): void {
    const { access, clock, host } = this.#deps;
    access.submit('retry', retriesStream(jobName), settledData(host, reason, attempt, clock.now()));
  }
}

/** What a boot does with a pending retry record of this host. */
export type RetryResume =
  | { readonly kind: 'resume'; readonly pending: RetryPending }
  | { readonly kind: 'settle'; readonly reason: RetrySettledReason };

const settle = (reason: RetrySettledReason): RetryResume => ({ kind: 'settle', reason });

export interface RetryResumeFacts {
  /** The job's current definition; undefined when it was removed. */
  readonly job: ResolvedJob | undefined;
  readonly nowMs: number;
  /** Whether this host's newest @reboot marker of the job is of this OS boot. */
  readonly sameBootMarker: () => boolean;
  /** When the job's newest known run finished (ledger and memory), or null. */
  readonly lastRunFinishedMs: number | null;
}

/**
 * Re-arm a pending retry at its persisted position, or settle it: the record does not parse, the
 * job was removed, disabled or redefined, its budget is exhausted, a newer run ended the ladder,
 * it is staler than startingDeadlineSeconds, or (an @reboot job) the machine rebooted since.
 * Pure.
 */
export function planRetryResume(
  pending: RetryPending | RetryPendingInvalid,
  facts: RetryResumeFacts,
): RetryResume {
  const { job } = facts;
  if (pending.kind === 'pending-invalid') return settle('invalid-record');
  if (job === undefined) return settle('job-removed');
  if (!job.enabled) return settle('disabled');
  if (job.digest !== pending.jobDigest) return settle('config-changed');
  const { maximumRetries } = job.retry;
  if (maximumRetries === 0 || (maximumRetries !== -1 && pending.attempt > maximumRetries)) {
    return settle('exhausted');
  }
  if (
    facts.lastRunFinishedMs !== null &&
    pending.atMs !== null &&
    facts.lastRunFinishedMs > pending.atMs
  ) {
    return settle('superseded-by-run');
  }
  if (
    job.startingDeadlineMs !== null &&
    facts.nowMs - pending.notBeforeMs > job.startingDeadlineMs
  ) {
    return settle('deadline-passed');
  }
  // The fresh boot run supersedes a ladder from an earlier OS boot; within the same boot the
  // keep-alive ladder continues across daemon restarts.
  if (job.schedule.kind === 'reboot' && !facts.sameBootMarker()) {
    return settle('superseded-by-reboot');
  }
  return { kind: 'resume', pending };
}
