// Admission with its effects: gathers the facts for one requested launch (instances active, the
// leadership verdict, the newest real outcome with the durable ledger folded in), asks the pure
// decide() of admission.ts, and applies the answer: the ladder reset of gate 4, the log lines,
// the fire:skipped event, or a launch ticket for the launcher.
// Must not: consult a fact the decision will not read (no gate call for a disabled job, no store
// read for a job the leadership gate already refused): facts are gathered in gate order.
import type { Clock, TypedEmitter } from '../common/index.js';
import type { Logger } from '../logging/index.js';
import type { ResolvedJob } from '../config/index.js';
import { decide, RUN_VERDICT, type Admission, type AdmissionFacts } from './admission.js';
import type { JobRuntime, LaunchTicket } from './job-runtime.js';
import type { JobTable } from './job-table.js';
import type { DurablePort, LeadershipGate } from './ports.js';
import type { Retries } from './retries.js';
import type { RetryLadder } from './retry-ladder.js';
import type { JobTrigger, SchedulerEvents, SkipReason } from './types.js';

export interface AdmitContext {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly events: TypedEmitter<SchedulerEvents>;
  readonly gate: LeadershipGate | null;
  readonly durable: DurablePort | null;
  readonly table: JobTable;
  readonly retries: Retries;
}

/** admit()'s answer: the ticket to queue, or the refusal (already logged and emitted). */
export type Admitted = LaunchTicket | Extract<Admission, { readonly kind: 'skip' }>;

/** The facts object, reused by every decision (decide() reads it and keeps nothing). */
type MutableFacts = { -readonly [K in keyof AdmissionFacts]: AdmissionFacts[K] };

export class Admitter {
  readonly #context: AdmitContext;
  readonly #facts: MutableFacts = {
    activeInstances: 0,
    leadership: RUN_VERDICT,
    lastRealOutcome: null,
  };

  constructor(context: AdmitContext) {
    this.#context = context;
  }

  /**
   * Decide one requested launch: the ticket to queue, or the refusal after logging and
   * emitting it. `carried` is the ladder a retry holds. Each decision reads the clock itself:
   * decidedAtMs (and the decision lateness reported from it) is when this job was decided, not
   * when the wake that decided a burst of them began.
   */
  admit(
    job: ResolvedJob,
    trigger: JobTrigger,
    scheduledAtMs: number | null,
    carried: RetryLadder | null = null,
  ): Admitted {
    const { clock, logger, retries } = this.#context;
    const nowMs = clock.now();
    const runtime = this.#context.table.runtime(job.name);
    const facts = this.#gatherFacts(job, trigger, scheduledAtMs, runtime);
    const admission = decide(job, trigger, facts);
    if (admission.kind === 'skip') {
      switch (admission.gate) {
        case 'enabled':
          break;
        case 'leadership':
          logger.info(
            `Job ${job.name} skipped on this node${admission.detail ? `: ${admission.detail}` : ''}`,
          );
          break;
        case 'only-if-last-succeeded':
          // Gate 3 leaves the retry ladder untouched.
          logger.info(`Job ${job.name} skipped: onlyIfLastSucceeded and ${admission.detail}`);
          break;
        case 'concurrency':
          if (admission.ladderReset) retries.reset(job);
          this.#warnContended(job);
          break;
      }
      this.#emitSkip(job, admission.reason, trigger, scheduledAtMs, nowMs);
      return admission;
    }
    const { plan } = admission;
    let ladder: RetryLadder | null;
    switch (plan.ladder) {
      case 'fresh':
        ladder = retries.reset(job);
        break;
      case 'current':
        ladder = retries.current(job.name);
        break;
      case 'carried':
        ladder = carried;
        break;
      case 'none':
        ladder = null;
        break;
    }
    if (plan.contended) this.#warnContended(job);
    return runtime.plan({
      job,
      trigger,
      scheduledAtMs,
      ladder,
      replace: plan.replace,
      decidedAtMs: nowMs,
    });
  }

  /** The facts in gate order: a later fact is only gathered when the earlier gates let it matter. */
  #gatherFacts(
    job: ResolvedJob,
    trigger: JobTrigger,
    scheduledAtMs: number | null,
    runtime: JobRuntime,
  ): AdmissionFacts {
    const facts = this.#facts;
    facts.activeInstances = runtime.active;
    facts.leadership = RUN_VERDICT;
    facts.lastRealOutcome = null;
    if (!job.enabled) return facts;
    const { gate } = this.#context;
    if (gate !== null && trigger !== 'manual') {
      facts.leadership = gate({ job, trigger, scheduledAtMs });
      if (facts.leadership.kind === 'skip') return facts;
    }
    if ((trigger === 'schedule' || trigger === 'reboot') && job.onlyIfLastSucceeded) {
      facts.lastRealOutcome = this.#lastRealOutcome(job.name, runtime);
    }
    return facts;
  }

  /**
   * The depends-on-past verdict's input: the newest real outcome across memory and the durable
   * ledger. A store that cannot answer reads as the in-memory view under `degrade` and as a
   * failure (block) under `fail-closed`.
   */
  #lastRealOutcome(name: string, runtime: JobRuntime): 'success' | 'failure' | null {
    const durable = this.#context.durable?.current() ?? null;
    if (durable === null) return runtime.lastRealOutcome;
    const stored = durable.lastDurableOutcome(name);
    if (stored === 'unavailable') {
      if (durable.onStoreUnavailable === 'degrade') return runtime.lastRealOutcome;
      this.#context.logger.warn(
        `Job ${name}: the state store cannot answer and onStoreUnavailable is fail-closed; blocking the onlyIfLastSucceeded gate`,
      );
      return 'failure';
    }
    if (stored === null) return runtime.lastRealOutcome;
    if (runtime.lastRealOutcome === null) return stored.outcome;
    // Newest wins; on a tie the in-memory view (updated synchronously) is the fresher one.
    return stored.finishedAtMs > runtime.lastRealAtMs ? stored.outcome : runtime.lastRealOutcome;
  }

  #warnContended(job: ResolvedJob): void {
    this.#context.logger.warn(
      `Job ${job.name}: still running and concurrencyPolicy is ${job.concurrencyPolicy}`,
    );
  }

  #emitSkip(
    job: ResolvedJob,
    reason: SkipReason,
    trigger: JobTrigger,
    scheduledAtMs: number | null,
    nowMs: number,
  ): void {
    this.#context.events.emit('fire:skipped', {
      jobName: job.name,
      reason,
      trigger,
      scheduledAtMs,
      decisionLatenessMs: scheduledAtMs === null ? null : nowMs - scheduledAtMs,
    });
  }
}
