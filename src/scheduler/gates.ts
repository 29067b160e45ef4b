// The launch gates (docs/architecture.md "Admission") as pure functions returning values; admission.ts applies
// them in order. Nothing here touches state, timers or the runner.
import type { ConcurrencyPolicy, ResolvedJob } from '../config/index.js';
import type { GateResult } from './ports.js';
import type { ConcurrencyDecision } from './types.js';

const RUN: GateResult = Object.freeze({ kind: 'run' });
const CONCURRENCY_RUN: ConcurrencyDecision = Object.freeze({ kind: 'run' });
const CONCURRENCY_REPLACE: ConcurrencyDecision = Object.freeze({ kind: 'replace' });
const CONCURRENCY_FORBID: ConcurrencyDecision = Object.freeze({ kind: 'skip', reason: 'forbid' });

/** Gate 1: a disabled job never launches. */
export function checkEnabled(job: ResolvedJob): GateResult {
  return job.enabled ? RUN : { kind: 'skip', reason: 'disabled' };
}

export interface LastRunFacts {
  /** Instances running plus launches already decided but not yet started. */
  readonly activeInstances: number;
  /** Newest finished real run (success/failure; cancelled runs ignored), null without history. */
  readonly lastRealOutcome: 'success' | 'failure' | null;
}

/**
 * Gate 3 (scheduled and @reboot launches only): with onlyIfLastSucceeded, skip when the newest
 * finished real run failed, or when an instance is still running (except under Replace).
 */
export function checkOnlyIfLastSucceeded(job: ResolvedJob, facts: LastRunFacts): GateResult {
  if (!job.onlyIfLastSucceeded) return RUN;
  if (facts.activeInstances > 0 && job.concurrencyPolicy !== 'Replace') {
    return {
      kind: 'skip',
      reason: 'only-if-last-succeeded',
      detail: 'an instance is still running',
    };
  }
  if (facts.lastRealOutcome === 'failure') {
    return { kind: 'skip', reason: 'only-if-last-succeeded', detail: 'the last run failed' };
  }
  return RUN;
}

/** Gate 5: the concurrency policy against the instances already active. */
export function decideConcurrency(
  policy: ConcurrencyPolicy,
  activeInstances: number,
): ConcurrencyDecision {
  if (activeInstances === 0) return CONCURRENCY_RUN;
  switch (policy) {
    case 'Allow':
      return CONCURRENCY_RUN;
    case 'Forbid':
      return CONCURRENCY_FORBID;
    case 'Replace':
      return CONCURRENCY_REPLACE;
  }
}
