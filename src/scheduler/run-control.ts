// Everything between "a launch was requested" and "the run was reaped": the gate pipeline
// (jobs.md §2), the concurrency policy (§8), the sliced burst launcher, Replace lanes, the runner
// call, reaping and retry timers (§7). It owns the per-job runtime tables; it never owns time
// (the loop does) and never awaits an event subscriber.
import { randomUUID } from 'node:crypto';
import {
  createDeferred,
  type Clock,
  type Logger,
  type TaskSet,
  type TypedEmitter,
} from '../common/index.js';
import type { ResolvedJob } from '../config/index.js';
import type { CancelReason, RunHandle, RunOutcome, Runner } from '../runner/index.js';
import { checkEnabled, checkOnlyIfLastSucceeded, decideConcurrency } from './gates.js';
import { LaunchQueue } from './launch-queue.js';
import { spawnFailureOutcome } from './outcome.js';
import { RetryLadder } from './retry-ladder.js';
import { settleFinishedRun } from './run-settlement.js';
import {
  createJobRuntime,
  type JobRuntime,
  type LaunchPlan,
  type RunningInstance,
} from './run-state.js';
import type {
  DurableCollaborator,
  GateRequest,
  GateResult,
  ManualStartResult,
  RunEnvironmentHook,
  RunTrigger,
  SchedulerEvents,
  SkipReason,
} from './types.js';

export interface RunControlContext {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly runner: Runner;
  readonly gate: ((request: GateRequest) => GateResult) | null;
  readonly events: TypedEmitter<SchedulerEvents>;
  readonly tasks: TaskSet;
  readonly launchSliceSize: number;
  readonly launchSliceBudgetMs: number;
  /** Resolves on a later turn of the event loop (between launch slices). */
  readonly yieldToLoop: () => Promise<void>;
  /** True once shutdown began: nothing new starts, failures are not reported. */
  readonly isStopping: () => boolean;
  /** A job's CURRENT config by name (retries look it up there), undefined when not configured. */
  readonly currentJob: (name: string) => ResolvedJob | undefined;
  /** The durable collaborator, null when stateless (read at each use: attached after start). */
  readonly durable: () => DurableCollaborator | null;
  /** The per-run environment hook (the job API), null when none. */
  readonly runEnvironment: () => RunEnvironmentHook | null;
}

/** A retry deferred by the durable store (fail-closed) re-checks after at least this long. */
const DEFERRED_RETRY_MIN_MS = 1000;

export class RunControl {
  readonly #context: RunControlContext;
  readonly #queue: LaunchQueue<LaunchPlan>;
  readonly #runtimes = new Map<string, JobRuntime>();
  readonly #running = new Set<RunningInstance>();
  #idleWaiters: (() => void)[] = [];
  /** Ends the burst launcher's pending yield early (shutdown does not wait for it). */
  #resumeYield: (() => void) | null = null;

  constructor(context: RunControlContext) {
    this.#context = context;
    this.#queue = new LaunchQueue<LaunchPlan>({
      sliceSize: context.launchSliceSize,
      sliceBudgetMs: context.launchSliceBudgetMs,
      now: () => context.clock.monotonic(),
      launch: (turn) => this.#launch(this.#oldestQueued(turn)),
      yieldToLoop: () => this.#yieldToLoop(),
      tasks: context.tasks,
    });
  }

  // ---- tables ---------------------------------------------------------------------------------

  runtime(name: string): JobRuntime {
    let runtime = this.#runtimes.get(name);
    if (!runtime) {
      runtime = createJobRuntime();
      this.#runtimes.set(name, runtime);
    }
    return runtime;
  }

  find(name: string): JobRuntime | undefined {
    return this.#runtimes.get(name);
  }

  /** Forget an unconfigured name's runtime once nothing refers to it any more. */
  prune(name: string): void {
    const runtime = this.#runtimes.get(name);
    if (!runtime || this.#context.currentJob(name)) return;
    if (runtime.running.size > 0 || runtime.planned > 0 || runtime.lane) return;
    if (runtime.ladder?.pending) return;
    this.#runtimes.delete(name);
  }

  get runningCount(): number {
    return this.#running.size;
  }

  runningInstances(): RunningInstance[] {
    return [...this.#running];
  }

  /** Call back once nothing runs (at once when nothing does). */
  onIdle(callback: () => void): void {
    if (this.#running.size === 0) callback();
    else this.#idleWaiters.push(callback);
  }

  // ---- gates ----------------------------------------------------------------------------------

  /**
   * The gate pipeline of jobs.md §2 for one requested launch. Returns the launch plan, or the
   * skip reason after logging and emitting it. Resets the ladder (gate 4) for scheduled and
   * @reboot fires; a retry passes its own ladder, a manual start attaches the current one.
   * Each decision reads the clock itself: decidedAtMs (and the decision lateness reported from
   * it) is when this job was decided, not when the wake that decided a burst of them began.
   */
  decide(
    job: ResolvedJob,
    trigger: RunTrigger,
    scheduledAtMs: number | null,
    retryLadder: RetryLadder | null = null,
  ): LaunchPlan | SkipReason {
    // A burst decides a thousand jobs in one pass, so this path allocates only the plan (and a
    // job's runtime record the first time): no closures, no fact objects, constant gate results.
    const context = this.#context;
    const nowMs = context.clock.now();
    const runtime = this.runtime(job.name);
    const scheduled = trigger === 'schedule' || trigger === 'reboot';

    const enabled = checkEnabled(job);
    if (enabled.kind === 'skip') {
      return this.#skip(job, enabled.reason, trigger, scheduledAtMs, nowMs);
    }

    const { gate } = context;
    if (gate !== null && trigger !== 'manual') {
      const verdict = gate({ job, trigger, scheduledAtMs });
      if (verdict.kind === 'skip') {
        context.logger.info(
          `Job ${job.name} skipped on this node${verdict.detail ? `: ${verdict.detail}` : ''}`,
        );
        return this.#skip(job, verdict.reason, trigger, scheduledAtMs, nowMs);
      }
    }

    const active = runtime.running.size + runtime.planned;
    if (scheduled && job.onlyIfLastSucceeded) {
      const verdict = checkOnlyIfLastSucceeded(job, {
        activeInstances: active,
        lastRealOutcome: this.#lastRealOutcome(job.name, runtime),
      });
      if (verdict.kind === 'skip') {
        // Gate 3 leaves the retry ladder untouched.
        context.logger.info(
          `Job ${job.name} skipped: onlyIfLastSucceeded and ${verdict.detail ?? 'the last run failed'}`,
        );
        return this.#skip(job, verdict.reason, trigger, scheduledAtMs, nowMs);
      }
    }

    let ladder: RetryLadder | null;
    if (scheduled) {
      // Gate 4: always reached here, even when the concurrency policy then skips (§7.4 quirk).
      runtime.ladder?.cancel('superseded');
      runtime.ladder = job.retry.maximumRetries !== 0 ? new RetryLadder(job.name, job.retry) : null;
      ladder = runtime.ladder;
    } else if (trigger === 'retry') {
      ladder = retryLadder;
    } else if (trigger === 'catchup') {
      // Backfills launch without the ladder: a failing one must not burn the retry budget.
      ladder = null;
    } else {
      ladder = runtime.ladder;
    }

    let replace = false;
    if (active > 0) {
      context.logger.warn(
        `Job ${job.name}: still running and concurrencyPolicy is ${job.concurrencyPolicy}`,
      );
      const concurrency = decideConcurrency(job.concurrencyPolicy, active);
      if (concurrency.kind === 'skip') {
        return this.#skip(job, concurrency.reason, trigger, scheduledAtMs, nowMs);
      }
      replace = concurrency.kind === 'replace';
    }

    runtime.planned += 1;
    return {
      job,
      trigger,
      scheduledAtMs,
      ladder,
      attempt: ladder?.count ?? 0,
      replace,
      decidedAtMs: nowMs,
      result: null,
    };
  }

  /**
   * The depends-on-past verdict's input: the newest real outcome across memory and the durable
   * ledger. A store that cannot answer reads as the in-memory view under `degrade` and as a
   * failure (block) under `fail-closed`.
   */
  #lastRealOutcome(name: string, runtime: JobRuntime): 'success' | 'failure' | null {
    const durable = this.#context.durable();
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

  /** A skipped launch: emit it and return the reason. */
  #skip(
    job: ResolvedJob,
    reason: SkipReason,
    trigger: RunTrigger,
    scheduledAtMs: number | null,
    nowMs: number,
  ): SkipReason {
    this.#context.events.emit('fire:skipped', {
      jobName: job.name,
      reason,
      trigger,
      scheduledAtMs,
      decisionLatenessMs: scheduledAtMs === null ? null : nowMs - scheduledAtMs,
    });
    return reason;
  }

  // ---- launching ------------------------------------------------------------------------------

  /**
   * Queue one batch of decided launches beside any burst in progress (batches take turns); when
   * nothing is launching, the first slice runs right away.
   */
  enqueue(plans: readonly LaunchPlan[]): void {
    for (let index = 0; index < plans.length; index++) {
      const plan = plans[index] as LaunchPlan;
      const runtime = this.runtime(plan.job.name);
      if (runtime.queued === null) runtime.queued = [plan];
      else runtime.queued.push(plan);
    }
    this.#queue.enqueue(plans);
  }

  /** Queue a manual launch; resolves when it started (or was dropped by shutdown). */
  enqueueManual(plan: LaunchPlan): Promise<ManualStartResult> {
    const result = createDeferred<ManualStartResult>();
    this.enqueue([{ ...plan, result }]);
    return result.promise;
  }

  /** Shutdown: drop every queued launch and stop waiting between slices. */
  dropQueued(): void {
    for (const turn of this.#queue.clear()) this.#dropPlan(this.#oldestQueued(turn));
    this.#resumeYield?.();
  }

  #yieldToLoop(): Promise<void> {
    // Once shutdown began nothing waits between slices: the rest is dropped at once.
    if (this.#context.isStopping()) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const resume = (): void => {
        if (this.#resumeYield === resume) this.#resumeYield = null;
        resolve();
      };
      this.#resumeYield = resume;
      void this.#context.yieldToLoop().then(resume, resume);
    });
  }

  /** The plan a job's turn in the queue launches: its oldest queued one. */
  #oldestQueued(turn: LaunchPlan): LaunchPlan {
    const runtime = this.runtime(turn.job.name);
    const plan = runtime.queued?.shift() ?? turn;
    if (runtime.queued?.length === 0) runtime.queued = null;
    return plan;
  }

  /** Launch one plan from the queue; true when it spawned synchronously. */
  #launch(plan: LaunchPlan): boolean {
    if (this.#context.isStopping()) {
      this.#dropPlan(plan);
      return false;
    }
    const runtime = this.runtime(plan.job.name);
    if (plan.replace || runtime.lane) {
      this.#chainLane(runtime, plan);
      return false;
    }
    this.#startRun(plan);
    return true;
  }

  #dropPlan(plan: LaunchPlan): void {
    const runtime = this.runtime(plan.job.name);
    runtime.planned = Math.max(0, runtime.planned - 1);
    plan.result?.resolve({ kind: 'skipped', reason: 'shutting-down' });
    this.#context.events.emit('fire:skipped', {
      jobName: plan.job.name,
      reason: 'shutting-down',
      trigger: plan.trigger,
      scheduledAtMs: plan.scheduledAtMs,
      decisionLatenessMs:
        plan.scheduledAtMs === null ? null : plan.decidedAtMs - plan.scheduledAtMs,
    });
  }

  /** Run the plan after the job's earlier Replace sequences, one after another. */
  #chainLane(runtime: JobRuntime, plan: LaunchPlan): void {
    const lane = (runtime.lane ?? Promise.resolve()).then(() =>
      this.#replaceThenStart(runtime, plan),
    );
    runtime.lane = lane;
    this.#context.tasks.run(async () => {
      await lane;
      if (runtime.lane === lane) runtime.lane = null;
    });
  }

  async #replaceThenStart(runtime: JobRuntime, plan: LaunchPlan): Promise<void> {
    try {
      if (plan.replace) {
        const victims = [...runtime.running];
        for (const victim of victims) victim.replaced = true;
        // One after another, each awaited through its whole cancel sequence (jobs.md §8).
        for (const victim of victims) await this.cancelInstance(victim, 'replaced');
      }
      if (this.#context.isStopping()) {
        this.#dropPlan(plan);
        return;
      }
      this.#startRun(plan);
    } catch (error) {
      this.#context.logger.error(
        { err: error },
        `Job ${plan.job.name}: replacing the running instance failed`,
      );
      this.#dropPlan(plan);
    }
  }

  #startRun(plan: LaunchPlan): void {
    const { clock, logger, events } = this.#context;
    const { job } = plan;
    const runtime = this.runtime(job.name);
    runtime.planned = Math.max(0, runtime.planned - 1);
    const runId = randomUUID().replaceAll('-', '');
    logger.info(`Starting job ${job.name}`);
    const startedAtMs = clock.now();
    // onSpawn may fire during runner.start(), before the instance exists.
    const spawned: { instance: RunningInstance | null; pid: number | null } = {
      instance: null,
      pid: null,
    };
    let handle: RunHandle;
    try {
      const extraEnv = this.#runEnvironment(plan, runId);
      handle = this.#context.runner.start({
        job,
        ...(extraEnv === undefined ? {} : { extraEnv }),
        onOutput: (line) =>
          events.emit('run:output', {
            jobName: job.name,
            runId,
            stream: line.stream,
            line: line.line,
          }),
        onSpawn: (pid) => {
          spawned.pid = pid;
          if (spawned.instance) spawned.instance.pid = pid;
        },
      });
    } catch (error) {
      // The runner reports launch failures as outcomes; a throw is a bug, handled the same way.
      logger.error({ err: error }, `Job ${job.name}: the runner failed to launch it`);
      handle = settledHandle(spawnFailureOutcome(job, error, startedAtMs));
    }
    const instance: RunningInstance = {
      runId,
      job,
      trigger: plan.trigger,
      attempt: plan.attempt,
      scheduledAtMs: plan.scheduledAtMs,
      ladder: plan.ladder,
      handle,
      pid: handle.pid ?? spawned.pid,
      replaced: false,
      cancelled: false,
      reaped: createDeferred<void>(),
    };
    spawned.instance = instance;
    runtime.running.add(instance);
    this.#running.add(instance);
    if (instance.pid !== null) logger.info(`Job ${job.name} spawned`);
    events.emit('run:started', {
      job,
      runId,
      pid: instance.pid,
      trigger: plan.trigger,
      attempt: plan.attempt,
      scheduledAtMs: plan.scheduledAtMs,
      startedAtMs,
      decisionLatenessMs:
        plan.scheduledAtMs === null ? null : plan.decidedAtMs - plan.scheduledAtMs,
      launchDelayMs: startedAtMs - plan.decidedAtMs,
    });
    plan.result?.resolve({ kind: 'started', runId, pid: instance.pid });
    this.#context.tasks.run(async () => {
      const outcome = await handle.done;
      try {
        this.#reap(instance, outcome);
      } finally {
        instance.reaped.resolve();
      }
    });
  }

  /** The run's extra variables from the hook; a failing hook never stops the launch. */
  #runEnvironment(plan: LaunchPlan, runId: string): Readonly<Record<string, string>> | undefined {
    const hook = this.#context.runEnvironment();
    if (hook === null) return undefined;
    try {
      return hook({
        job: plan.job,
        runId,
        trigger: plan.trigger,
        attempt: plan.attempt,
        scheduledAtMs: plan.scheduledAtMs,
      });
    } catch (error) {
      this.#context.logger.error(
        { err: error },
        `Job ${plan.job.name}: cannot prepare the run's job API environment`,
      );
      return undefined;
    }
  }

  // ---- reaping and retries --------------------------------------------------------------------

  #reap(instance: RunningInstance, outcome: RunOutcome): void {
    const runtime = this.runtime(instance.job.name);
    runtime.running.delete(instance);
    this.#running.delete(instance);
    try {
      settleFinishedRun(
        {
          events: this.#context.events,
          logger: this.#context.logger,
          stopping: this.#context.isStopping(),
          armRetry: (ladder, delayMs) => {
            ladder.arm(this.#context.clock, delayMs, () => this.#onRetryDue(ladder));
            const retryAtMs = ladder.nextRetryAtMs ?? this.#context.clock.now() + delayMs;
            this.#persistArmedRetry(ladder, instance.job, retryAtMs);
            return retryAtMs;
          },
        },
        instance,
        outcome,
        runtime,
      );
    } finally {
      this.prune(instance.job.name);
      if (this.#running.size === 0) {
        const waiters = this.#idleWaiters;
        this.#idleWaiters = [];
        for (const waiter of waiters) waiter();
      }
    }
  }

  /** With a store, an armed retry is a pending record the next boot can re-arm. */
  #persistArmedRetry(ladder: RetryLadder, launchedAs: ResolvedJob, retryAtMs: number): void {
    const durable = this.#context.durable();
    if (durable === null) return;
    // The retry runs the CURRENT definition; its digest is what a later boot compares.
    const job = this.#context.currentJob(ladder.jobName) ?? launchedAs;
    ladder.markDurable((attempt, reason) => durable.retrySettled(job, attempt, reason));
    durable.retryArmed(job, ladder.count, retryAtMs);
  }

  /**
   * Re-arm a durable retry at its persisted position (the boot-time resume): the ladder replays
   * its steps up to `attempt`, then sleeps only what is left until notBeforeMs.
   */
  resumeRetry(job: ResolvedJob, attempt: number, notBeforeMs: number): boolean {
    const durable = this.#context.durable();
    if (!job.enabled || job.retry.maximumRetries === 0 || attempt < 1) return false;
    const runtime = this.runtime(job.name);
    // A ladder armed since this process started is newer than the stored one.
    if (runtime.ladder !== null && !runtime.ladder.cancelled) return false;
    const ladder = new RetryLadder(job.name, job.retry);
    while (ladder.count < attempt) {
      if (ladder.step().kind === 'exhausted') return false;
    }
    const clock = this.#context.clock;
    const delayMs = Math.max(0, notBeforeMs - clock.now());
    ladder.arm(clock, delayMs, () => this.#onRetryDue(ladder));
    if (durable !== null) {
      ladder.markDurable((count, reason) => durable.retrySettled(job, count, reason));
    }
    runtime.ladder = ladder;
    this.#context.logger.info(
      `Cron job ${job.name}: resuming retry #${attempt} from the state store in ${(delayMs / 1000).toFixed(3)} seconds`,
    );
    return true;
  }

  /** jobs.md §7.3: look the job up by name in the CURRENT config and go through the gates. */
  #onRetryDue(ladder: RetryLadder): void {
    const { logger, events } = this.#context;
    if (this.#context.isStopping() || ladder.cancelled) return;
    const job = this.#context.currentJob(ladder.jobName);
    if (!job?.enabled) {
      logger.warn(
        `Cron job ${ladder.jobName} ${job ? 'is disabled' : 'is no longer configured'}; discarding its retry`,
      );
      ladder.cancel(job ? 'job-disabled' : 'job-removed');
      const runtime = this.#runtimes.get(ladder.jobName);
      if (runtime?.ladder === ladder) runtime.ladder = null;
      this.prune(ladder.jobName);
      events.emit('retry:discarded', {
        jobName: ladder.jobName,
        reason: job ? 'job-disabled' : 'job-removed',
      });
      return;
    }
    const durable = this.#context.durable();
    if (durable === null || !ladder.durablePending) {
      this.#launchRetry(job, ladder);
      return;
    }
    // Record-before-run: the pending record is settled `launched` before the retry starts, so a
    // crash right after the launch does not replay it on the next boot.
    this.#context.tasks.run(async () => {
      const verdict = await durable.retryDue(job, ladder.count);
      if (this.#context.isStopping() || ladder.cancelled) return;
      if (verdict === 'defer') {
        const delayMs = Math.max(DEFERRED_RETRY_MIN_MS, ladder.lastDelayMs);
        logger.warn(
          `Cron job ${job.name}: the state store cannot settle retry #${ladder.count} and onStoreUnavailable is fail-closed; re-checking in ${(delayMs / 1000).toFixed(3)} seconds`,
        );
        ladder.arm(this.#context.clock, delayMs, () => this.#onRetryDue(ladder));
        return;
      }
      // Settled: nothing left to settle. Unrecorded (degrade): the pending record is still the
      // newest, so the ladder keeps settling it when it ends (success, cancel, ...).
      if (verdict === 'launched') ladder.clearDurable();
      this.#launchRetry(this.#context.currentJob(job.name) ?? job, ladder);
    });
  }

  #launchRetry(job: ResolvedJob, ladder: RetryLadder): void {
    const plan = this.decide(job, 'retry', null, ladder);
    if (typeof plan !== 'string') this.enqueue([plan]);
  }

  /** Shutdown: abort every pending retry timer. */
  abortRetries(): void {
    for (const runtime of this.#runtimes.values()) runtime.ladder?.abortTimer();
  }

  // ---- cancelling -----------------------------------------------------------------------------

  async cancelInstance(instance: RunningInstance, reason: CancelReason): Promise<void> {
    try {
      await instance.handle.cancel(reason);
    } catch (error) {
      this.#context.logger.error(
        { err: error },
        `Job ${instance.job.name}: cancelling the run failed`,
      );
    }
  }

  /**
   * Manual cancel: every instance concurrently, the ladder with it (no reports follow); resolves
   * once they are recorded. Returns false when nothing runs.
   */
  async cancelJob(name: string): Promise<boolean> {
    const runtime = this.#runtimes.get(name);
    const instances = runtime ? [...runtime.running] : [];
    if (!runtime || instances.length === 0) return false;
    for (const instance of instances) instance.cancelled = true;
    runtime.ladder?.cancel('cancelled');
    runtime.ladder = null;
    await this.#cancelAndReap(instances, 'cancelled');
    return true;
  }

  /** Shutdown after the grace period: cancel what still runs; resolves when all are reaped. */
  async cancelAll(reason: CancelReason): Promise<number> {
    const instances = [...this.#running];
    await this.#cancelAndReap(instances, reason);
    return instances.length;
  }

  async #cancelAndReap(instances: readonly RunningInstance[], reason: CancelReason): Promise<void> {
    await Promise.all(
      instances.map(async (instance) => {
        await this.cancelInstance(instance, reason);
        await instance.reaped.promise;
      }),
    );
  }
}

function settledHandle(outcome: RunOutcome): RunHandle {
  return { pid: undefined, done: Promise.resolve(outcome), cancel: () => Promise.resolve() };
}
