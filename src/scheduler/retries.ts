// The retry ladders (docs/configuration.md "Retries: onFailure.retry") and their durable protocol, in one place: which ladder a job
// holds, the ladder timers, and every call into the RetryJournal (docs/architecture.md "A
// retry"). Arming persists a pending record; a due retry settles it `launched` before the
// relaunch (record-before-run; degrade proceeds unrecorded, fail-closed defers); every other end
// of the ladder settles it with its reason; a shutdown aborts the timers and leaves the records
// for the next boot, which re-arms them through resume(). With a cluster, a due retry asks it
// first (docs/clustering.md "Retries under election"): a transient denial re-arms the timer, an
// observed ownership move ends the ladder with a cancelled run record, or, where the journal can
// hand it off to the new owner (docs/durable-state.md "Retry resume across nodes"), with a
// handoff record and no run record; a due retry whose ladder another node claimed meanwhile ends
// silently.
// Must not: launch anything itself (it asks `relaunch`, which goes through admission), or
// settle a record twice.
import { formatSeconds, type Clock, type TaskSet, type TypedEmitter } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { ResolvedJob } from '../config/index.js';
import type { RunSummary } from './history.js';
import type { RetryGateResult, RetryJournal, RetrySettleReason } from './ports.js';
import { RetryLadder } from './retry-ladder.js';
import type { SchedulerEvents } from './types.js';

/** A retry deferred (by the durable store or the cluster) re-checks after at least this long. */
const DEFERRED_RETRY_MIN_MS = 1000;
/** The fail reason of the cancelled record an abandoned retry leaves. */
export const OWNER_MOVED_FAIL_REASON = 'retry abandoned: cluster ownership moved to another node';

export interface RetriesContext {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly events: TypedEmitter<SchedulerEvents>;
  readonly tasks: TaskSet;
  /** True once shutdown began: due retries do nothing. */
  readonly isStopping: () => boolean;
  /** A job's CURRENT config by name (a retry runs the current definition). */
  readonly currentJob: (name: string) => ResolvedJob | undefined;
  /** The journal of the durable backend serving now, null when stateless. */
  readonly journal: () => RetryJournal | null;
  /** The cluster's decision for a due retry (launch when there is no cluster). */
  readonly clusterDecision: (job: ResolvedJob) => RetryGateResult;
  /** Record the cancelled run an abandoned retry leaves (history and event). */
  readonly abandoned: (job: ResolvedJob, attempt: number, summary: RunSummary) => void;
  /** Admit and queue a retry launch holding `ladder` (through the admission decision). */
  readonly relaunch: (job: ResolvedJob, ladder: RetryLadder) => void;
  /** A job's ladder went away: its runtime may be forgotten if unconfigured. */
  readonly released: (name: string) => void;
}

/** What a failed run's ladder did. */
export type FailureStep = 'retrying' | 'permanent';

export class Retries {
  readonly #context: RetriesContext;
  /** Each job's current ladder (the one a scheduled fire replaces and a manual start attaches). */
  readonly #ladders = new Map<string, RetryLadder>();

  constructor(context: RetriesContext) {
    this.#context = context;
  }

  /** The job's current ladder, null when none. */
  current(name: string): RetryLadder | null {
    return this.#ladders.get(name) ?? null;
  }

  /** A retry timer of this job is pending. */
  hasPending(name: string): boolean {
    return this.#ladders.get(name)?.pending === true;
  }

  /**
   * Drop an unconfigured name's idle ladder with its runtime. Nothing is settled: no timer is
   * pending, and a record left open by a degraded launch stays for the next boot to judge.
   */
  forget(name: string): void {
    if (!this.hasPending(name)) this.#ladders.delete(name);
  }

  /** Gate 4: the old ladder is superseded, a fresh one created iff maximumRetries ≠ 0. */
  reset(job: ResolvedJob): RetryLadder | null {
    const previous = this.#ladders.get(job.name);
    if (previous !== undefined) this.#end(previous, 'superseded');
    if (job.retry.maximumRetries === 0) {
      this.#ladders.delete(job.name);
      return null;
    }
    const ladder = new RetryLadder(job.name, job.retry);
    this.#ladders.set(job.name, ladder);
    return ladder;
  }

  /** Any success of the job removes its ladder, even one another instance still holds. */
  succeeded(name: string): void {
    this.#drop(name, 'succeeded');
  }

  /** A manual cancel of a job's runs ends its current ladder; no reports follow. */
  cancelJob(name: string): void {
    this.#drop(name, 'cancelled');
  }

  /** A run cancelled via the API ends the ladder it held. */
  cancelledRun(ladder: RetryLadder | null): void {
    if (ladder !== null) this.#end(ladder, 'cancelled');
  }

  /**
   * The steps for a failed run holding `ladder` (launched as `job`): 'permanent' when the
   * failure ends the sequence (no ladder, a cancelled one, or the budget spent), else the next
   * retry is armed and persisted.
   */
  failed(job: ResolvedJob, ladder: RetryLadder | null): FailureStep {
    if (ladder === null || ladder.cancelled) return 'permanent';
    ladder.abortTimer();
    const step = ladder.step();
    if (step.kind === 'exhausted') {
      this.#end(ladder, 'exhausted');
      if (this.#ladders.get(ladder.jobName) === ladder) this.#ladders.delete(ladder.jobName);
      return 'permanent';
    }
    const { clock, logger, events } = this.#context;
    logger.info(
      `Cron job ${ladder.jobName} scheduled to be retried (#${step.attempt}) in ${formatSeconds(step.delayMs)} seconds`,
    );
    this.#arm(ladder, step.delayMs);
    const retryAtMs = ladder.nextRetryAtMs ?? clock.now() + step.delayMs;
    // With a store, the armed retry is a pending record the next boot can re-arm. The retry
    // runs the CURRENT definition; its digest is what a later boot compares.
    const journal = this.#context.journal();
    if (journal !== null) {
      ladder.journal = journal;
      journal.armed(this.#context.currentJob(ladder.jobName) ?? job, ladder.count, retryAtMs);
    }
    events.emit('retry:scheduled', {
      jobName: ladder.jobName,
      attempt: step.attempt,
      delayMs: step.delayMs,
      retryAtMs,
    });
    return 'retrying';
  }

  /**
   * The boot re-arm of a durable retry at its persisted position: the ladder replays its steps up
   * to `attempt`, then sleeps only what is left until notBeforeMs. False (the caller settles the
   * record) when the job cannot retry, or a ladder armed since this process started is newer.
   */
  resume(job: ResolvedJob, attempt: number, notBeforeMs: number): boolean {
    if (!job.enabled || job.retry.maximumRetries === 0 || attempt < 1) return false;
    const existing = this.#ladders.get(job.name);
    if (existing !== undefined && !existing.cancelled) return false;
    const ladder = new RetryLadder(job.name, job.retry);
    while (ladder.count < attempt) {
      if (ladder.step().kind === 'exhausted') return false;
    }
    const delayMs = Math.max(0, notBeforeMs - this.#context.clock.now());
    this.#arm(ladder, delayMs);
    ladder.journal = this.#context.journal();
    this.#ladders.set(job.name, ladder);
    this.#context.logger.info(
      `Cron job ${job.name}: resuming retry #${attempt} from the state store in ${(delayMs / 1000).toFixed(3)} seconds`,
    );
    return true;
  }

  /** Shutdown: abort every pending retry timer; the durable pending records stay for the next boot. */
  abortTimers(): void {
    for (const ladder of this.#ladders.values()) ladder.abortTimer();
  }

  // ---- the protocol ---------------------------------------------------------------------------

  #arm(ladder: RetryLadder, delayMs: number): void {
    ladder.arm(this.#context.clock, delayMs, () => this.#onDue(ladder));
  }

  /** End a ladder: it is dead, and its pending record (if any) is settled with `reason`. */
  #end(ladder: RetryLadder, reason: RetrySettleReason): void {
    ladder.cancel();
    const journal = ladder.journal;
    ladder.journal = null;
    journal?.settled(ladder.jobName, ladder.count, reason);
  }

  #drop(name: string, reason: RetrySettleReason): void {
    const ladder = this.#ladders.get(name);
    if (ladder === undefined) return;
    this.#ladders.delete(name);
    this.#end(ladder, reason);
  }

  /** A due retry: look the job up by name in the CURRENT config, then settle and relaunch. */
  #onDue(ladder: RetryLadder): void {
    const { logger, events } = this.#context;
    if (this.#context.isStopping() || ladder.cancelled) return;
    const job = this.#context.currentJob(ladder.jobName);
    if (!job?.enabled) {
      const reason = job ? 'job-disabled' : 'job-removed';
      logger.warn(
        `Cron job ${ladder.jobName} ${job ? 'is disabled' : 'is no longer configured'}; discarding its retry`,
      );
      this.#end(ladder, reason);
      if (this.#ladders.get(ladder.jobName) === ladder) this.#ladders.delete(ladder.jobName);
      this.#context.released(ladder.jobName);
      events.emit('retry:discarded', { jobName: ladder.jobName, reason });
      return;
    }
    const cluster = this.#context.clusterDecision(job);
    switch (cluster.kind) {
      case 'launch':
        break;
      case 'defer':
        this.#deferForCluster(ladder, cluster.detail);
        return;
      case 'abandon':
        // A ladder with a pending record may move to the new owner (the backend serving now
        // decides); otherwise it ends here.
        if (
          ladder.journal !== null &&
          this.#context.journal()?.handOff(job, ladder.count) === true
        ) {
          this.#handedOff(ladder);
        } else {
          this.#abandon(job, ladder, cluster.detail);
        }
        return;
    }
    // The backend serving now settles the launch (a state-section reload may have replaced the
    // one that armed it); without a store, or without a pending record, it just relaunches.
    const journal = this.#context.journal();
    if (journal === null || ladder.journal === null) {
      this.#context.relaunch(job, ladder);
      return;
    }
    // Record-before-run: the pending record is settled `launched` before the retry starts, so a
    // crash right after the launch does not replay it on the next boot.
    this.#context.tasks.run(async () => {
      const verdict = await journal.due(job, ladder.count);
      if (this.#context.isStopping() || ladder.cancelled) return;
      switch (verdict) {
        case 'contended':
          // Another holder claims the ladder right now: its record decides at the re-check.
          this.#arm(ladder, DEFERRED_RETRY_MIN_MS);
          return;
        case 'foreign':
          this.#claimedElsewhere(ladder);
          return;
        case 'defer': {
          const delayMs = Math.max(DEFERRED_RETRY_MIN_MS, ladder.lastDelayMs);
          logger.warn(
            `Cron job ${job.name}: the state store cannot settle retry #${ladder.count} and onStoreUnavailable is fail-closed; re-checking in ${(delayMs / 1000).toFixed(3)} seconds`,
          );
          this.#arm(ladder, delayMs);
          return;
        }
        case 'launched':
          // Settled: nothing left to settle.
          ladder.journal = null;
          break;
        case 'unrecorded':
          // Degrade: the pending record is still the newest, so the ladder keeps settling it
          // when it ends (success, cancel, ...).
          break;
      }
      this.#context.relaunch(this.#context.currentJob(job.name) ?? job, ladder);
    });
  }

  /** A transient cluster denial: re-check after max(the retry delay, 1 s); INFO once, then DEBUG. */
  #deferForCluster(ladder: RetryLadder, detail: string): void {
    const delayMs = Math.max(DEFERRED_RETRY_MIN_MS, ladder.lastDelayMs);
    const line = `Cron job ${ladder.jobName} retry (#${ladder.count}) deferred: the cluster does not currently allow this node to run it and no other node positively owns it (${detail}); re-checking in ${formatSeconds(delayMs)} seconds`;
    if (ladder.clusterDeferredAttempt === ladder.count) {
      this.#context.logger.debug(line);
    } else {
      ladder.clusterDeferredAttempt = ladder.count;
      this.#context.logger.info(line);
    }
    this.#arm(ladder, delayMs);
  }

  /** Ownership moved and the journal handed the ladder off: it ends here without a settle. */
  #handedOff(ladder: RetryLadder): void {
    this.#context.logger.warn(
      `Cron job ${ladder.jobName} retry (#${ladder.count}) handed off: the cluster moved ownership of it to another node, which resumes the ladder`,
    );
    this.#release(ladder, 'handed-off');
  }

  /** The ladder's newest durable record is another node's: end it silently (no settle). */
  #claimedElsewhere(ladder: RetryLadder): void {
    this.#context.logger.info(
      `Cron job ${ladder.jobName} retry (#${ladder.count}) not run here: another node claimed the ladder`,
    );
    this.#release(ladder, 'claimed-elsewhere');
  }

  /** End a ladder whose pending record is no longer this node's to settle. */
  #release(ladder: RetryLadder, reason: 'handed-off' | 'claimed-elsewhere'): void {
    ladder.journal = null;
    ladder.cancel();
    if (this.#ladders.get(ladder.jobName) === ladder) this.#ladders.delete(ladder.jobName);
    this.#context.released(ladder.jobName);
    this.#context.events.emit('retry:discarded', { jobName: ladder.jobName, reason });
  }

  /** Ownership moved to another node: end the ladder, settled owner-moved, with a cancelled record. */
  #abandon(job: ResolvedJob, ladder: RetryLadder, detail: string): void {
    const { logger, clock } = this.#context;
    logger.warn(
      `Cron job ${job.name} retry (#${ladder.count}) abandoned: the cluster moved ownership of it to another node; it is not retried here so it cannot run twice (${detail})`,
    );
    this.#end(ladder, 'owner-moved');
    if (this.#ladders.get(ladder.jobName) === ladder) this.#ladders.delete(ladder.jobName);
    const nowMs = clock.now();
    this.#context.abandoned(job, ladder.count, {
      outcome: 'cancelled',
      exitCode: null,
      startedAtMs: null,
      finishedAtMs: nowMs,
      durationMs: null,
      failReason: OWNER_MOVED_FAIL_REASON,
      resources: null,
    });
    this.#context.released(ladder.jobName);
  }
}
