// The cluster concurrency slot's decisions (docs/durable-state.md "Cluster concurrency slots") as
// pure functions: what one claim attempt on the `slots/<job>` lease means for the launch, what the
// store's silence means under onStoreUnavailable, whether a record of the job's `slots/<job>`
// stream asks this tenure to give the slot up, and the cadences (renew, Replace pursuit). The
// runner (concurrency-leases.ts) does the store calls and the timers.
// Must not: do I/O, read a clock or log.
import type { JsonObject } from '../state/index.js';
import { parseConcurrencyCancel } from './records.js';

/** A slot TTL's cadences (ms): renew, Replace pursuit poll and give-up bound. */
export interface ConcurrencyTiming {
  readonly ttlMs: number;
  readonly renewEveryMs: number;
  readonly pursuitPollMs: number;
  readonly pursuitLimitMs: number;
}

/** One acquire of the slot lease, as the runner saw it. */
export type ConcurrencyAttempt =
  | {
      readonly kind: 'acquired';
      readonly fence: number;
      /** The fence moved: a new tenure (not our own extension). */
      readonly fresh: boolean;
      /** Fresh only: the lapsed (expired, never released) tenure's holder, when not ours. */
      readonly previousHolder: string | null;
    }
  | {
      readonly kind: 'denied';
      readonly holder: string;
      readonly fence: number;
      readonly expiresAtMs: number;
      /** When the runner asked (its wall clock): the store decided at or after it. */
      readonly askedAtMs: number;
    }
  /** The store did not answer (an error or the 10 s bound). */
  | { readonly kind: 'unavailable'; readonly detail: string };

/** What the claim does next. */
export type ConcurrencyStep =
  /** Hold the slot at `fence`; `takeoverFrom` = reconcile that lapsed foreign holder's run. */
  | { readonly kind: 'hold'; readonly fence: number; readonly takeoverFrom: string | null }
  /** Forbid: a live foreign holder runs the job; skip like a local Forbid. */
  | { readonly kind: 'held-elsewhere'; readonly holder: string }
  /** Replace: ask the holder's tenure `fence` to cancel, then wait for the slot. */
  | { readonly kind: 'pursue'; readonly holder: string; readonly fence: number }
  /** The store cannot vouch for the slot: onStoreUnavailable decides. */
  | { readonly kind: 'unavailable'; readonly detail: string };

/**
 * One attempt's meaning. A denial by a lease that had expired before we even asked (the store
 * kept a lapsed holder: a clock disagreement) proves nothing either way, so it counts as "the
 * store did not answer". A lease that expires while the call is under way was live when the
 * store decided: that is an ordinary denial (the next attempt finds it lapsed), never a reason
 * to launch with node-local enforcement beside a holder.
 */
export function planClaim(
  attempt: ConcurrencyAttempt,
  policy: 'Forbid' | 'Replace',
): ConcurrencyStep {
  switch (attempt.kind) {
    case 'acquired':
      return {
        kind: 'hold',
        fence: attempt.fence,
        takeoverFrom: attempt.fresh ? attempt.previousHolder : null,
      };
    case 'unavailable':
      return { kind: 'unavailable', detail: attempt.detail };
    case 'denied':
      if (attempt.expiresAtMs <= attempt.askedAtMs) {
        return {
          kind: 'unavailable',
          detail: `the slot lease held by ${holderNode(attempt.holder)} expired but was not reclaimed`,
        };
      }
      return policy === 'Forbid'
        ? { kind: 'held-elsewhere', holder: attempt.holder }
        : { kind: 'pursue', holder: attempt.holder, fence: attempt.fence };
  }
}

/** The store's silence under the policy: degrade launches node-local, fail-closed skips. */
export function unavailableVerdict(
  onStoreUnavailable: 'degrade' | 'fail-closed',
): 'run-node-local' | 'skip' {
  return onStoreUnavailable === 'degrade' ? 'run-node-local' : 'skip';
}

/** The node part of a `<host>#<proc>` holder, for log lines (the whole string when no `#`). */
export function holderNode(holder: string): string {
  const cut = holder.lastIndexOf('#');
  return cut > 0 ? holder.slice(0, cut) : holder;
}

/** Whether the newest `slots/<job>` record asks the tenure `fence` to give the slot up. */
export function cancelsTenure(newest: JsonObject | undefined, fence: number): boolean {
  if (newest === undefined) return false;
  return parseConcurrencyCancel(newest)?.fence === fence;
}

/** The renew, pursuit-poll and pursuit-limit cadences for a slot TTL (all ms). */
export function concurrencyTiming(ttlMs: number): ConcurrencyTiming {
  return {
    ttlMs,
    renewEveryMs: Math.max(1000, ttlMs / 3),
    pursuitPollMs: Math.max(1000, ttlMs / 6),
    pursuitLimitMs: 2 * ttlMs,
  };
}

/** The holder string of this daemon process: `<host>#<12-hex process token>`. */
export function concurrencyHolder(host: string, processToken: string): string {
  return `${host}#${processToken}`;
}
