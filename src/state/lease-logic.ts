// The lease rules as pure functions, so every backend decides exactly alike (the backend only
// supplies the locking), and exactly as the reference does (docs/durable-state-store.md "Leases
// and fences"): given the current state and the clock, what the next state and the caller's
// answer are. A released lease keeps its holder and fence with expiry 0.
// Must not: do I/O or read a clock.
import { YacronError } from '../common/index.js';
import type { LeaseResult, LeaseState } from './types.js';

export interface LeaseDecision {
  /** The state to write, or undefined when nothing changes. */
  readonly next: LeaseState | undefined;
  readonly result: LeaseResult;
}

export function assertTtl(ttlMs: number): void {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new YacronError('YC_ERR_STATE_VALUE_INVALID', `Cannot use the lease TTL ${ttlMs} ms`);
  }
}

/** Held = unexpired (a released lease has expiry 0, so it never is). */
export function isHeld(state: LeaseState | undefined, nowMs: number): boolean {
  return state !== undefined && nowMs < state.expiresAtMs;
}

/** Released by its holder (expiry 0), as opposed to lapsed. */
export function isReleased(state: LeaseState): boolean {
  return state.expiresAtMs <= 0;
}

function answer(state: LeaseState | undefined, acquired: boolean, fresh: boolean): LeaseResult {
  return {
    acquired,
    holder: state?.holder ?? null,
    fence: state?.fence ?? 0,
    expiresAtMs: state?.expiresAtMs ?? 0,
    fresh,
  };
}

/**
 * No lease: fence 1. Another holder, unexpired: denied. Ours, unexpired: extended, same fence.
 * Otherwise (expired, released, or ours but expired): a new tenure, fence + 1.
 */
export function decideAcquire(
  name: string,
  current: LeaseState | undefined,
  holder: string,
  ttlMs: number,
  nowMs: number,
): LeaseDecision {
  const expiresAtMs = nowMs + ttlMs;
  if (current && isHeld(current, nowMs)) {
    if (current.holder !== holder) {
      return { next: undefined, result: answer(current, false, false) };
    }
    const next = { ...current, expiresAtMs, updatedAtMs: nowMs };
    return { next, result: answer(next, true, false) };
  }
  const next: LeaseState = {
    name,
    holder,
    fence: (current?.fence ?? 0) + 1,
    expiresAtMs,
    updatedAtMs: nowMs,
  };
  const lapsed = current !== undefined && !isReleased(current) && current.holder !== holder;
  const result: LeaseResult = lapsed
    ? { ...answer(next, true, true), previousHolder: current.holder }
    : answer(next, true, true);
  return { next, result };
}

/**
 * Renew succeeds while the tenure is ours (holder and fence match, not released). An expired
 * lease nobody took over is still ours: the unchanged fence proves no one else held it.
 */
export function decideRenew(
  current: LeaseState | undefined,
  holder: string,
  fence: number,
  ttlMs: number,
  nowMs: number,
): LeaseDecision {
  if (!current || current.holder !== holder || current.fence !== fence || isReleased(current)) {
    return { next: undefined, result: answer(current, false, false) };
  }
  const next = { ...current, expiresAtMs: nowMs + ttlMs, updatedAtMs: nowMs };
  return { next, result: answer(next, true, false) };
}

/** Release: our tenure (holder and fence match, not yet released) gets expiry 0. */
export function decideRelease(
  current: LeaseState | undefined,
  holder: string,
  fence: number,
  nowMs: number,
): { next: LeaseState | undefined; released: boolean } {
  if (!current || current.holder !== holder || current.fence !== fence || isReleased(current)) {
    return { next: undefined, released: false };
  }
  return { next: { ...current, expiresAtMs: 0, updatedAtMs: nowMs }, released: true };
}
