// The launch gates of jobs.md §2 and §8 as pure functions returning values. The scheduler applies
// them in order, logs and emits every skip; nothing here touches state, timers or the runner.
import type { ConcurrencyPolicy, ResolvedJob } from '../config/index.js';
import type { ConcurrencyDecision, GateResult } from './types.js';

const RUN: GateResult = { kind: 'run' };

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
  if (activeInstances === 0) return { kind: 'run' };
  switch (policy) {
    case 'Allow':
      return { kind: 'run' };
    case 'Forbid':
      return { kind: 'skip', reason: 'forbid' };
    case 'Replace':
      return { kind: 'replace' };
  }
}
