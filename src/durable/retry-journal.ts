// The durable side of the retry protocol (docs/durable-state.md, restart-surviving retries): the
// scheduler's retries.ts decides when a pending record is armed, settled `launched` or settled
// otherwise; this journal writes those records to `retries/<job>`, and planRetryResume() judges
// a pending record found at boot. The one place retry records are rendered.
// Must not: decide the protocol's order, or throw a write failure at the scheduler.
import type { ResolvedJob } from '../config/index.js';
import type { RetryJournal, RetrySettleReason } from '../scheduler/index.js';
import { retriesStream, type RetryPending } from './records.js';
import type { StoreAccess } from './store-access.js';

export class StoreRetryJournal implements RetryJournal {
  readonly #access: StoreAccess;
  readonly #host: string;
  /** This daemon process's token: a boot skips the records its own live ladders wrote. */
  readonly #token: string;
  readonly #onStoreUnavailable: 'degrade' | 'fail-closed';

  constructor(
    access: StoreAccess,
    host: string,
    token: string,
    onStoreUnavailable: 'degrade' | 'fail-closed',
  ) {
    this.#access = access;
    this.#host = host;
    this.#token = token;
    this.#onStoreUnavailable = onStoreUnavailable;
  }

  armed(job: ResolvedJob, attempt: number, notBeforeMs: number): void {
    this.#access.submit('retry', retriesStream(job.name), {
      kind: 'pending',
      host: this.#host,
      token: this.#token,
      attempt,
      notBeforeMs,
      digest: job.digest,
    });
  }

  async due(jobName: string, attempt: number): Promise<'launched' | 'unrecorded' | 'defer'> {
    const landed = await this.#access.writeAndWait('retry', retriesStream(jobName), {
      kind: 'settled',
      host: this.#host,
      token: this.#token,
      attempt,
      reason: 'launched',
    });
    if (landed) return 'launched';
    return this.#onStoreUnavailable === 'degrade' ? 'unrecorded' : 'defer';
  }

  settled(jobName: string, attempt: number, reason: RetrySettleReason): void {
    this.#access.submit('retry', retriesStream(jobName), {
      kind: 'settled',
      host: this.#host,
      attempt,
      reason,
    });
  }
}

/** What a boot does with a pending retry record of this host. */
export type RetryResume =
  { readonly kind: 'resume' } | { readonly kind: 'settle'; readonly reason: RetrySettleReason };

const RESUME: RetryResume = { kind: 'resume' };
const settle = (reason: RetrySettleReason): RetryResume => ({ kind: 'settle', reason });

/**
 * Re-arm a pending retry at its persisted position, or settle it: the job was removed, disabled
 * or redefined, its budget is exhausted, it is staler than startingDeadlineSeconds, or (an
 * @reboot job) the machine rebooted since (`sameBootMarker` false). Pure.
 */
export function planRetryResume(
  pending: RetryPending,
  job: ResolvedJob | undefined,
  nowMs: number,
  sameBootMarker: () => boolean,
): RetryResume {
  if (job === undefined) return settle('job-removed');
  if (!job.enabled) return settle('job-disabled');
  if (job.digest !== pending.digest) return settle('digest-changed');
  const { maximumRetries } = job.retry;
  if (maximumRetries === 0 || (maximumRetries !== -1 && pending.attempt > maximumRetries)) {
    return settle('exhausted');
  }
  if (job.startingDeadlineMs !== null && nowMs - pending.notBeforeMs > job.startingDeadlineMs) {
    return settle('stale');
  }
  // The fresh boot run supersedes a ladder from an earlier OS boot; within the same boot the
  // keep-alive ladder continues across daemon restarts.
  if (job.schedule.kind === 'reboot' && !sameBootMarker()) return settle('rebooted');
  return RESUME;
}
