// "Acquire a lease, do one piece of work, release it" over any StateStore (docs/durable-state.md
// "Retry resume across nodes" uses it for the `retry-claim/<job>` lease): the work runs only while
// this holder has the lease, and the lease is released however the work ends. A lease another
// holder has is an answer (`held`), not an error; a store failure of the acquire rejects.
// Must not: renew the lease (the work must fit in the TTL), or swallow the work's own error.
import type { LeaseState, StateStore } from './types.js';

/** What withLease did: ran the work (its result), or found the lease held by someone else. */
export type LeaseOutcome<T> =
  | { readonly kind: 'done'; readonly result: T; readonly fence: number }
  | { readonly kind: 'held'; readonly holder: string | null; readonly expiresAtMs: number };

export interface LeaseRequest {
  readonly name: string;
  readonly holder: string;
  readonly ttlMs: number;
}

/**
 * Run `work` holding lease `request.name` (acquired for `ttlMs`), then release it. The release is
 * best-effort: a failed release leaves the lease to lapse at its TTL, never fails the work.
 */
export async function withLease<T>(
  store: Pick<StateStore, 'acquireLease' | 'releaseLease'>,
  request: LeaseRequest,
  work: (lease: Pick<LeaseState, 'fence' | 'expiresAtMs'>) => Promise<T>,
): Promise<LeaseOutcome<T>> {
  const acquired = await store.acquireLease(request.name, request.holder, request.ttlMs);
  if (!acquired.acquired) {
    return { kind: 'held', holder: acquired.holder, expiresAtMs: acquired.expiresAtMs };
  }
  const { fence, expiresAtMs } = acquired;
  try {
    return { kind: 'done', result: await work({ fence, expiresAtMs }), fence };
  } finally {
    await store.releaseLease(request.name, request.holder, fence).catch(() => false);
  }
}
