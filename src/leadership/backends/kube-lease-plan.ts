// The client-go leader-election decision for one Kubernetes round, pure (docs/clustering.md
// "Kubernetes"): from the Lease as observed and what this node remembers, wait, create, renew or
// acquire. The takeover clock is the challenger's own: the observation anchor resets whenever the
// (holderIdentity, renewTime) pair changes, so a holder's clock skew cannot make a fresh lease
// look stale (a fast challenger clock cannot steal it).
// Must not: do I/O or read a clock.
import { parseMicroTime } from '../lease-client.js';

/** The fields of a Lease a round reads. */
export interface ObservedLease {
  readonly holderIdentity: string | null;
  readonly renewTime: string | null;
  readonly acquireTime: string | null;
  readonly leaseDurationSeconds: number | null;
  readonly leaseTransitions: number;
  readonly resourceVersion: string | null;
  readonly annotations: Readonly<Record<string, string>>;
}

/** What a challenger remembers between rounds (client-go's observedRecord/observedTime). */
export interface Observation {
  readonly holderIdentity: string | null;
  readonly renewTime: string | null;
  /** Monotonic ms when this pair was first seen. */
  readonly anchorMs: number;
}

export type LeaseAction =
  | { readonly kind: 'wait' }
  | { readonly kind: 'create' }
  | { readonly kind: 'renew'; readonly acquireTime: string | null; readonly transitions: number }
  | { readonly kind: 'acquire'; readonly transitions: number };

export interface PlanInput {
  /** null = 404. */
  readonly observed: ObservedLease | null;
  readonly remembered: Observation | null;
  readonly me: string;
  readonly durationSeconds: number;
  /** Monotonic ms, taken after the GET. */
  readonly nowMs: number;
}

/** The new observation: reset on a changed pair; a 404 keeps the old one. */
export function observe(input: PlanInput): Observation | null {
  const { observed, remembered, nowMs } = input;
  if (observed === null) return remembered;
  if (
    remembered === null ||
    remembered.holderIdentity !== observed.holderIdentity ||
    remembered.renewTime !== observed.renewTime
  ) {
    return {
      holderIdentity: observed.holderIdentity,
      renewTime: observed.renewTime,
      anchorMs: nowMs,
    };
  }
  return remembered;
}

export function planLeaseRound(input: PlanInput, observation: Observation | null): LeaseAction {
  const { observed, me, durationSeconds, nowMs } = input;
  if (observed === null) {
    const other = observation?.holderIdentity;
    if (
      observation !== null &&
      other !== null &&
      other !== undefined &&
      other !== me &&
      nowMs < observation.anchorMs + durationSeconds * 1000
    ) {
      return { kind: 'wait' };
    }
    return { kind: 'create' };
  }
  if (observed.holderIdentity === me) {
    return {
      kind: 'renew',
      acquireTime: parseMicroTime(observed.acquireTime) === null ? null : observed.acquireTime,
      transitions: observed.leaseTransitions,
    };
  }
  const duration = observed.leaseDurationSeconds ?? 0;
  const anchor = observation?.anchorMs ?? nowMs;
  if (
    observed.holderIdentity === null ||
    observed.holderIdentity === '' ||
    duration <= 0 ||
    nowMs >= anchor + duration * 1000
  ) {
    return { kind: 'acquire', transitions: observed.leaseTransitions + 1 };
  }
  return { kind: 'wait' };
}
