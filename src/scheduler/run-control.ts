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
  GateRequest,
  GateResult,
  ManualStartResult,
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
}

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
        lastRealOutcome: runtime.lastRealOutcome,
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
      runtime.ladder?.cancel();
      runtime.ladder = job.retry.maximumRetries !== 0 ? new RetryLadder(job.name, job.retry) : null;
      ladder = runtime.ladder;
    } else if (trigger === 'retry') {
      ladder = retryLadder;
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
      handle = this.#context.runner.start({
        job,
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
            return ladder.nextRetryAtMs ?? this.#context.clock.now() + delayMs;
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

  /** jobs.md §7.3: look the job up by name in the CURRENT config and go through the gates. */
  #onRetryDue(ladder: RetryLadder): void {
    const { logger, events } = this.#context;
    if (this.#context.isStopping() || ladder.cancelled) return;
    const job = this.#context.currentJob(ladder.jobName);
    if (!job?.enabled) {
      logger.warn(
        `Cron job ${ladder.jobName} ${job ? 'is disabled' : 'is no longer configured'}; discarding its retry`,
      );
      ladder.cancel();
      const runtime = this.#runtimes.get(ladder.jobName);
      if (runtime?.ladder === ladder) runtime.ladder = null;
      this.prune(ladder.jobName);
      events.emit('retry:discarded', {
        jobName: ladder.jobName,
        reason: job ? 'job-disabled' : 'job-removed',
      });
      return;
    }
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
    runtime.ladder?.cancel();
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
