// The admission decision (docs/architecture.md "Admission") as one pure function: may this launch of this job
// start now, and how? Every input is a fact gathered beforehand (admit.ts): the instances
// already active, the leadership verdict, the newest real outcome with the durable ledger
// already folded in. It reads no clock, store or table and changes nothing; the caller applies
// the result (ladder reset, logs, the fire:skipped event, the launch ticket).
// Allocation-light: a burst decides a thousand jobs in one pass, so the common results are
// frozen constants and only a skip that carries a gate's own detail allocates.
// Must not: call out (no callbacks, no awaits), or depend on facts the trigger does not use.
import type { ResolvedJob } from '../config/index.js';
import { checkOnlyIfLastSucceeded, decideConcurrency } from './gates.js';
import type { GateResult } from './ports.js';
import type { JobTrigger, SkipReason } from './types.js';

/** What the admission decision reads. */
export interface AdmissionFacts {
  /** Running plus decided-but-not-started instances of the job on this node. */
  readonly activeInstances: number;
  /**
   * The leadership verdict (cluster gate). Read for every trigger but `manual`; a single node's
   * verdict is always RUN_VERDICT.
   */
  readonly leadership: GateResult;
  /**
   * The newest finished success/failure across memory and the durable ledger, with the store's
   * unavailability already resolved by onStoreUnavailable (fail-closed reads as 'failure').
   * Read only for scheduled and @reboot fires of an onlyIfLastSucceeded job.
   */
  readonly lastRealOutcome: 'success' | 'failure' | null;
}

/** Which retry ladder the launched run holds (docs/architecture.md "Admission"). */
export type LadderUse =
  /** Gate 4: the job's ladder is replaced by a fresh one (or none when maximumRetries is 0). */
  | 'fresh'
  /** A manual start: whatever ladder the job has now; never creates one. */
  | 'current'
  /** A retry: the ladder that armed it. */
  | 'carried'
  /** A backfill: no ladder (a failing one must not burn the retry budget). */
  | 'none';

export interface AdmissionPlan {
  /** Cancel the running instances first (Replace). */
  readonly replace: boolean;
  readonly ladder: LadderUse;
  /** Instances were active, so the concurrency policy was consulted (and is logged). */
  readonly contended: boolean;
}

/** The gate that refused a launch, for the caller's log line. */
export type RefusingGate = 'enabled' | 'leadership' | 'only-if-last-succeeded' | 'concurrency';

export type Admission =
  | { readonly kind: 'launch'; readonly plan: AdmissionPlan }
  | {
      readonly kind: 'skip';
      readonly reason: SkipReason;
      readonly detail?: string;
      readonly gate: RefusingGate;
      /** Gate 4 was reached before the refusal: the job's ladder is still replaced. */
      readonly ladderReset: boolean;
    };

/** The verdict of a node that runs everything (no leadership gate). */
export const RUN_VERDICT: GateResult = Object.freeze({ kind: 'run' });

const launch = (replace: boolean, ladder: LadderUse, contended: boolean): Admission =>
  Object.freeze({ kind: 'launch', plan: Object.freeze({ replace, ladder, contended }) });
const skip = (reason: SkipReason, gate: RefusingGate, ladderReset: boolean): Admission =>
  Object.freeze({ kind: 'skip', reason, gate, ladderReset });

type LaunchTable = readonly [
  readonly [noContention: Admission, contended: Admission],
  readonly [unused: Admission, replaceContended: Admission],
];

/** Every launch result, indexed [ladder][replace][contended]: a decision allocates nothing. */
const LAUNCHES: Readonly<Record<LadderUse, LaunchTable>> = Object.freeze({
  fresh: launchTable('fresh'),
  current: launchTable('current'),
  carried: launchTable('carried'),
  none: launchTable('none'),
});

function launchTable(ladder: LadderUse): LaunchTable {
  return [
    [launch(false, ladder, false), launch(false, ladder, true)],
    [launch(true, ladder, false), launch(true, ladder, true)],
  ];
}

const SKIP_DISABLED = skip('disabled', 'enabled', false);
const SKIP_FORBID = skip('forbid', 'concurrency', false);
const SKIP_FORBID_AFTER_RESET = skip('forbid', 'concurrency', true);

function ladderUseOf(trigger: JobTrigger): LadderUse {
  switch (trigger) {
    case 'schedule':
    case 'reboot':
      return 'fresh';
    case 'manual':
      return 'current';
    case 'retry':
      return 'carried';
    case 'catchup':
      return 'none';
  }
}

/**
 * The gate pipeline (docs/architecture.md "Admission"), first refusal wins: enabled,
 * leadership (not for manual starts), onlyIfLastSucceeded (scheduled and @reboot only; the
 * ladder untouched), the ladder reset (gate 4, scheduled and @reboot: it happens even when the
 * concurrency policy then refuses), the concurrency policy.
 */
export function decide(job: ResolvedJob, trigger: JobTrigger, facts: AdmissionFacts): Admission {
  if (!job.enabled) return SKIP_DISABLED;
  if (trigger !== 'manual') {
    const { leadership } = facts;
    if (leadership.kind === 'skip') {
      return leadership.detail === undefined
        ? { kind: 'skip', reason: leadership.reason, gate: 'leadership', ladderReset: false }
        : {
            kind: 'skip',
            reason: leadership.reason,
            detail: leadership.detail,
            gate: 'leadership',
            ladderReset: false,
          };
    }
  }
  const ladder = ladderUseOf(trigger);
  const active = facts.activeInstances;
  if (ladder === 'fresh' && job.onlyIfLastSucceeded) {
    const verdict = checkOnlyIfLastSucceeded(job, {
      activeInstances: active,
      lastRealOutcome: facts.lastRealOutcome,
    });
    if (verdict.kind === 'skip') {
      return {
        kind: 'skip',
        reason: verdict.reason,
        detail: verdict.detail ?? 'the last run failed',
        gate: 'only-if-last-succeeded',
        ladderReset: false,
      };
    }
  }
  if (active === 0) return LAUNCHES[ladder][0][0];
  const concurrency = decideConcurrency(job.concurrencyPolicy, active);
  switch (concurrency.kind) {
    case 'skip':
      return ladder === 'fresh' ? SKIP_FORBID_AFTER_RESET : SKIP_FORBID;
    case 'replace':
      return LAUNCHES[ladder][1][1];
    case 'run':
      return LAUNCHES[ladder][0][1];
  }
}
