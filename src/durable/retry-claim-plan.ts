// The decisions of cross-node retry resume (docs/durable-state.md "Retry resume across nodes"),
// pure: which ladders resume applies to, what the owner's claim scan does with a job's newest
// `retries/<job>` record (claim a handoff at once, a foreign pending only once it is stale past
// the grace, settle what may not resume, leave everything else), what the re-read under the
// claim lease confirms, and whose record a due retry finds on top. retry-claims.ts and
// retry-journal.ts run them.
// Must not: treat an unknown record kind as pending (a newer build's record never resumes here).
import type { ResolvedJob } from '../config/index.js';
import type { JsonObject } from '../state/index.js';
import { str } from './records.js';
import { parseRetry, type RetryPending, type RetryRecord } from './retry-records.js';
import { planRetryResume, type RetryResume } from './retry-journal.js';
import type { RetrySettledReason } from './retry-records.js';

/** The lease a claim and a due retry serialise on, per job. */
export const retryClaimLease = (job: string): string => `retry-claim/${job}`;
/** The claim lease's TTL: a claim (two bounded reads, one bounded write) fits well inside. */
export const RETRY_CLAIM_TTL_MS = 30_000;
/** A foreign pending record is claimed only this long past its due time (a live owner is late). */
export const RETRY_CLAIM_GRACE_MS = 30_000;

/**
 * Whether resume can apply to the job's ladder: Leader and PreferLeader ladders only (an
 * EveryNode ladder is every node's own), and never an @reboot one (anchored to a host's boot).
 */
export function resumableJob(job: Pick<ResolvedJob, 'clusterPolicy' | 'schedule'>): boolean {
  return job.clusterPolicy !== 'EveryNode' && job.schedule.kind !== 'reboot';
}

/** A ladder another node left that this node may take over. */
export interface ClaimableLadder {
  readonly via: 'handoff' | 'stale-pending';
  readonly attempt: number;
  readonly notBeforeMs: number;
  readonly jobDigest: string;
  /** The host the ladder is taken from (the claimer's `claimedFrom`). */
  readonly fromHost: string;
  /** When the ladder was armed (a run finished after it resolved the ladder); null unknown. */
  readonly armedAtMs: number | null;
}

export type ClaimPlan =
  /** Nothing to claim: no pending ladder on top, this host's own, or not stale yet. */
  | { readonly kind: 'leave'; readonly why: 'not-pending' | 'own' | 'not-stale' }
  /** The ladder may not resume here: settle it (under the claim lease) with this reason. */
  | {
      readonly kind: 'settle';
      readonly reason: RetrySettledReason;
      readonly ladder: ClaimableLadder;
    }
  | { readonly kind: 'claim'; readonly ladder: ClaimableLadder };

export interface ClaimFacts {
  /** The job's current definition on this node (its owner). */
  readonly job: ResolvedJob;
  readonly host: string;
  readonly nowMs: number;
  /** When the job's newest run known on this node finished, or null. */
  readonly lastRunFinishedMs: number | null;
}

/** The owner's claim scan, for one job's newest retries record (undefined: none, or unknown). */
export function planRetryClaim(newest: RetryRecord | undefined, facts: ClaimFacts): ClaimPlan {
  const ladder = claimableLadder(newest, facts);
  if (ladder === 'not-pending' || ladder === 'own' || ladder === 'not-stale') {
    return { kind: 'leave', why: ladder };
  }
  // The boot re-arm's judgement, as a pending of the ladder's origin host.
  const pending: RetryPending = {
    kind: 'pending',
    host: ladder.fromHost,
    attempt: ladder.attempt,
    notBeforeMs: ladder.notBeforeMs,
    jobDigest: ladder.jobDigest,
    atMs: ladder.armedAtMs,
  };
  const judged: RetryResume = planRetryResume(pending, {
    job: facts.job,
    nowMs: facts.nowMs,
    sameBootMarker: () => true, // @reboot ladders never resume across nodes
    lastRunFinishedMs: facts.lastRunFinishedMs,
  });
  return judged.kind === 'settle'
    ? { kind: 'settle', reason: judged.reason, ladder }
    : { kind: 'claim', ladder };
}

function claimableLadder(
  newest: RetryRecord | undefined,
  facts: ClaimFacts,
): ClaimableLadder | 'not-pending' | 'own' | 'not-stale' {
  switch (newest?.kind) {
    case undefined:
    case 'settled':
    case 'pending-invalid': // its due time is unknown: only its own host's boot can settle it
      return 'not-pending';
    case 'handoff':
      // The owner positively relinquished it: claimable at once (even a ladder this host gave).
      return {
        via: 'handoff',
        attempt: newest.attempt,
        notBeforeMs: newest.notBeforeMs,
        jobDigest: newest.jobDigest,
        fromHost: newest.fromHost,
        armedAtMs: newest.armedAtMs,
      };
    case 'pending':
      if (newest.host === facts.host) return 'own';
      if (facts.nowMs < newest.notBeforeMs + RETRY_CLAIM_GRACE_MS) return 'not-stale';
      return {
        via: 'stale-pending',
        attempt: newest.attempt,
        notBeforeMs: newest.notBeforeMs,
        jobDigest: newest.jobDigest,
        fromHost: newest.host,
        armedAtMs: newest.atMs,
      };
  }
}

/** What the claim does once it holds the lease and re-read the stream and the ledger. */
export type ClaimConfirmation =
  /** The newest record is no longer the one planned on: leave it to the next scan. */
  | { readonly kind: 'changed' }
  /** The durable ledger has a run newer than the ladder's arming: it resolved the ladder. */
  | { readonly kind: 'superseded-by-run' }
  | { readonly kind: 'proceed' };

export function confirmRetryClaim(facts: {
  readonly plannedId: string;
  /** The id of the newest record re-read under the lease, undefined when the stream is empty. */
  readonly rereadId: string | undefined;
  readonly ladder: ClaimableLadder;
  /** When the newest run of the durable ledger finished, or null. */
  readonly ledgerFinishedMs: number | null;
}): ClaimConfirmation {
  if (facts.rereadId !== facts.plannedId) return { kind: 'changed' };
  const { armedAtMs } = facts.ladder;
  if (facts.ledgerFinishedMs !== null && armedAtMs !== null && facts.ledgerFinishedMs > armedAtMs) {
    return { kind: 'superseded-by-run' };
  }
  return { kind: 'proceed' };
}

/**
 * The consume-time re-check: is the ladder's newest record (undefined: none) still this host's?
 * A pending or settled record names its host; a handoff is relinquished (never the holder's to
 * run); a record of a kind this build does not know is someone else's unless it names this host.
 */
export function ladderStillOurs(newest: JsonObject | undefined, host: string): boolean {
  if (newest === undefined) return true;
  const record = parseRetry(newest);
  switch (record?.kind) {
    case 'pending':
    case 'pending-invalid':
    case 'settled':
      return record.host === host;
    case 'handoff':
      return false;
    case undefined:
      return str(newest, 'host') === host;
  }
}
