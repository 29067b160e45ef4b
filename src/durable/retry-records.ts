// The records of a retry ladder (`retries/<job>`, docs/durable-state-store.md "Record bodies"):
// pending, settled and handoff, as the reference writes them, the reference's settle reasons
// with the mapping from the scheduler's, and a defensive reader. A pending record whose attempt
// or deadline does not parse is still recognised as a pending of its host (the boot settles it
// `invalid-record`); an unknown kind is "not pending", so a newer build's record never re-arms
// (no double run).
// Must not: write a reason outside the reference's list.
import type { RetrySettleReason } from '../scheduler/index.js';
import type { JsonObject } from '../state/index.js';
import { int, isoAt, parseStoreInstant, str } from './records.js';

/** Why a ladder's pending record was settled: the reference's list, exactly. */
export type RetrySettledReason =
  | 'launched'
  | 'succeeded'
  | 'superseded'
  | 'superseded-by-run'
  | 'superseded-by-reboot'
  | 'cancelled'
  | 'exhausted'
  | 'config-changed'
  | 'deadline-passed'
  | 'disabled'
  | 'invalid-record'
  | 'job-removed'
  | 'owner-moved';

/** The record reason of a settle the scheduler's retry protocol asks for. */
export function settledReasonOf(reason: RetrySettleReason): RetrySettledReason {
  switch (reason) {
    case 'launched':
    case 'succeeded':
    case 'superseded':
    case 'cancelled':
    case 'exhausted':
    case 'job-removed':
    case 'owner-moved':
      return reason;
    case 'job-disabled':
      return 'disabled';
    case 'digest-changed':
      return 'config-changed';
    case 'stale':
      return 'deadline-passed';
    case 'rebooted':
      return 'superseded-by-reboot';
  }
}

/** An armed retry: attempt `attempt` is due at notBefore (absolute), armed at `at`. */
export interface RetryPending {
  readonly kind: 'pending';
  readonly host: string;
  readonly attempt: number;
  readonly notBeforeMs: number;
  readonly jobDigest: string;
  /** When the ladder was armed; null when the record's `at` does not parse. */
  readonly atMs: number | null;
  /** Set by a cross-node claim: the host the ladder was taken over from. */
  readonly claimedFrom?: string;
}

/** A pending record of `host` whose attempt or notBefore does not parse. */
export interface RetryPendingInvalid {
  readonly kind: 'pending-invalid';
  readonly host: string;
}

export interface RetrySettled {
  readonly kind: 'settled';
  readonly host: string;
  /** A reason of RetrySettledReason as we write it; any string as read. */
  readonly reason: string;
  readonly attempt: number | null;
}

/** An owner moved off-node handed its ladder over (cross-node retry resume). */
export interface RetryHandoff {
  readonly kind: 'handoff';
  readonly attempt: number;
  /** Due at once on the claimer (a now-due deadline). */
  readonly notBeforeMs: number;
  readonly jobDigest: string;
  readonly fromHost: string;
  readonly atMs: number;
  /** When the ladder was originally armed. */
  readonly armedAtMs: number;
}

export type RetryRecord = RetryPending | RetryPendingInvalid | RetrySettled | RetryHandoff;

export function pendingData(
  pending: Omit<RetryPending, 'kind' | 'atMs'>,
  atMs: number,
): JsonObject {
  return {
    kind: 'pending',
    attempt: pending.attempt,
    notBefore: isoAt(pending.notBeforeMs),
    jobDigest: pending.jobDigest,
    host: pending.host,
    at: isoAt(atMs),
    ...(pending.claimedFrom === undefined ? {} : { claimedFrom: pending.claimedFrom }),
  };
}

export function settledData(
  host: string,
  reason: RetrySettledReason,
  attempt: number | null,
  atMs: number,
): JsonObject {
  return {
    kind: 'settled',
    reason,
    host,
    at: isoAt(atMs),
    ...(attempt === null ? {} : { attempt }),
  };
}

export function handoffData(handoff: Omit<RetryHandoff, 'kind'>): JsonObject {
  return {
    kind: 'handoff',
    attempt: handoff.attempt,
    notBefore: isoAt(handoff.notBeforeMs),
    jobDigest: handoff.jobDigest,
    fromHost: handoff.fromHost,
    at: isoAt(handoff.atMs),
    armedAt: isoAt(handoff.armedAtMs),
  };
}

/** A retry record, or undefined for an unknown kind or one this reader cannot use. */
export function parseRetry(data: JsonObject): RetryRecord | undefined {
  const kind = str(data, 'kind') ?? ''; // a missing kind is an unknown one
  const attempt = int(data, 'attempt');
  switch (kind) {
    case 'pending': {
      const host = str(data, 'host');
      if (host === undefined) return undefined;
      const notBeforeMs = parseStoreInstant(data['notBefore']);
      if (attempt === undefined || attempt < 1 || notBeforeMs === undefined) {
        return { kind: 'pending-invalid', host };
      }
      const claimedFrom = str(data, 'claimedFrom');
      return {
        kind,
        host,
        attempt,
        notBeforeMs,
        jobDigest: str(data, 'jobDigest') ?? '',
        atMs: parseStoreInstant(data['at']) ?? null,
        ...(claimedFrom === undefined ? {} : { claimedFrom }),
      };
    }
    case 'settled': {
      const host = str(data, 'host');
      if (host === undefined) return undefined;
      return { kind, host, reason: str(data, 'reason') ?? '', attempt: attempt ?? null };
    }
    case 'handoff': {
      const fromHost = str(data, 'fromHost');
      const notBeforeMs = parseStoreInstant(data['notBefore']);
      const atMs = parseStoreInstant(data['at']);
      const armedAtMs = parseStoreInstant(data['armedAt']);
      if (fromHost === undefined || attempt === undefined || attempt < 1) return undefined;
      if (notBeforeMs === undefined || atMs === undefined || armedAtMs === undefined) {
        return undefined;
      }
      return {
        kind,
        attempt,
        notBeforeMs,
        jobDigest: str(data, 'jobDigest') ?? '',
        fromHost,
        atMs,
        armedAtMs,
      };
    }
    default:
      return undefined;
  }
}
