// The lease and compare-and-set rules as pure functions, so every backend decides exactly alike
// (the backend only supplies the locking): given the current state and the clock, what the
// next state and the caller's answer are. Must not: do I/O or read a clock.
import { YacronError } from '../common/errors.js';
import type { DocEntry, LeaseResult, LeaseState } from './types.js';

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

export function isHeld(state: LeaseState | undefined, nowMs: number): boolean {
  return state !== undefined && state.holder !== null && nowMs < state.expiresAtMs;
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

export function decideAcquire(
  name: string,
  current: LeaseState | undefined,
  holder: string,
  ttlMs: number,
  nowMs: number,
): LeaseDecision {
  const expiresAtMs = nowMs + ttlMs;
  if (current && isHeld(current, nowMs)) {
    if (current.holder !== holder)
      return { next: undefined, result: answer(current, false, false) };
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
  const previous = current?.holder;
  const result: LeaseResult =
    previous !== undefined && previous !== null && previous !== holder
      ? { ...answer(next, true, true), previousHolder: previous }
      : answer(next, true, true);
  return { next, result };
}

/**
 * Renew succeeds while the tenure is ours (holder and fence match). An expired lease nobody took
 * over is still ours: the unchanged fence proves no one else held it in between.
 */
export function decideRenew(
  current: LeaseState | undefined,
  holder: string,
  fence: number,
  ttlMs: number,
  nowMs: number,
): LeaseDecision {
  if (!current || current.holder !== holder || current.fence !== fence) {
    return { next: undefined, result: answer(current, false, false) };
  }
  const next = { ...current, expiresAtMs: nowMs + ttlMs, updatedAtMs: nowMs };
  return { next, result: answer(next, true, false) };
}

export function decideRelease(
  current: LeaseState | undefined,
  holder: string,
  fence: number,
  nowMs: number,
): { next: LeaseState | undefined; released: boolean } {
  if (!current || current.holder !== holder || current.fence !== fence) {
    return { next: undefined, released: false };
  }
  return {
    next: { ...current, holder: null, expiresAtMs: nowMs, updatedAtMs: nowMs },
    released: true,
  };
}

/** Whether a compare-and-set condition holds for the current document. */
export function casHolds(
  current: DocEntry | undefined,
  expectedVersion: string | null | undefined,
): boolean {
  if (expectedVersion === undefined) return true;
  if (expectedVersion === null) return current === undefined;
  return current?.version === expectedVersion;
}
