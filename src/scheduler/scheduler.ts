// The scheduler core (DESIGN §4, jobs.md §1, §2, §6–§8, §13): one timer over a min-heap of next
// fires, the gate pipeline, slice-wise launching, reaping, retry ladders, manual start/cancel,
// reload diffs and bounded shutdown. It never imports report/metrics/http: they subscribe to
// `events`, and nothing here awaits a subscriber.
import { randomUUID } from 'node:crypto';
import {
  createDeferred,
  formatSeconds,
  TaskSet,
  TypedEmitter,
  YacronError,
  type Clock,
  type Deferred,
  type Logger,
  type TimerHandle,
} from '../common/index.js';
import type { ResolvedConfig, ResolvedJob } from '../config/index.js';
import type { RunHandle, RunOutcome, Runner } from '../runner/index.js';
import { nextFireTime, schedulesEqual } from '../schedule/index.js';
import { FireHeap } from './fire-heap.js';
import { planDueFires, slotResolutionMs } from './fire-plan.js';
import { checkEnabled, checkOnlyIfLastSucceeded, decideConcurrency } from './gates.js';
import { buildRunRecord, computeRunStats, RunHistory } from './history.js';
import { DEFAULT_LAUNCH_SLICE_SIZE, LaunchQueue } from './launch-queue.js';
import { pythonBool, pythonRepr, spawnFailureOutcome } from './outcome.js';
import { RetryLadder } from './retry-ladder.js';
import type {
  GateRequest,
  GateResult,
  JobRuns,
  JobView,
  ManualStartResult,
  RunDisposition,
  RunRecord,
  RunTrigger,
  Scheduler,
  SchedulerDeps,
  SchedulerEvents,
  SkipReason,
  StatusEntry,
} from './types.js';
import { buildJobView, buildStatusEntry, type JobSnapshot } from './views.js';

/** The loop never sleeps longer than this, so clock steps and reloads are noticed. */
export const MAX_SLEEP_MS = 30_000;
/** A wall-clock step beyond monotonic progress larger than this is reported as a jump. */
const CLOCK_JUMP_TOLERANCE_MS = 1_000;

interface ConfiguredJob {
  readonly job: ResolvedJob;
  readonly order: number;
}

interface RunningInstance {
  readonly runId: string;
  /** The config the run was launched under; reloads never touch it. */
  readonly job: ResolvedJob;
  readonly trigger: RunTrigger;
  readonly attempt: number;
  readonly scheduledAtMs: number | null;
  readonly ladder: RetryLadder | null;
  readonly handle: RunHandle;
  pid: number | null;
  /** Set by Replace before cancelling: not recorded, reported or retried. */
  replaced: boolean;
  /** Set by a manual cancel: recorded as cancelled, no reports, ladder cancelled. */
  cancelled: boolean;
  /** Settles once the run is reaped (recorded, events emitted). */
  readonly reaped: Deferred<void>;
}

/** Per-name runtime state; survives reloads (ladders survive, running instances finish). */
interface JobRuntime {
  readonly running: Set<RunningInstance>;
  readonly history: RunHistory;
  lastRealOutcome: 'success' | 'failure' | null;
  ladder: RetryLadder | null;
  /** Launches decided but not started yet (queued in a burst or waiting on a Replace). */
  planned: number;
  /** Serialises Replace sequences (and launches behind them) of this job. */
  lane: Promise<void> | null;
}

interface LaunchPlan {
  readonly job: ResolvedJob;
  readonly trigger: RunTrigger;
  readonly scheduledAtMs: number | null;
  readonly ladder: RetryLadder | null;
  readonly attempt: number;
  readonly replace: boolean;
  readonly decidedAtMs: number;
  readonly result: Deferred<ManualStartResult> | null;
}

type Phase = 'idle' | 'running' | 'stopping' | 'stopped';

export function createScheduler(deps: SchedulerDeps, config: ResolvedConfig): Scheduler {
  return new CronScheduler(deps, config);
}

class CronScheduler implements Scheduler {
  readonly events: TypedEmitter<SchedulerEvents>;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #runner: Runner;
  readonly #gate: ((request: GateRequest) => GateResult) | null;
  readonly #tasks: TaskSet;
  readonly #queue: LaunchQueue<LaunchPlan>;
  #jobs = new Map<string, ConfiguredJob>();
  #runtimes = new Map<string, JobRuntime>();
  #heap = new FireHeap();
  #phase: Phase = 'idle';
  #timer: TimerHandle | null = null;
  #armedForMs: number | null = null;
  #armedWallMs = 0;
  #armedMonotonicMs = 0;
  readonly #running = new Set<RunningInstance>();
  #idleWaiters: (() => void)[] = [];
  #shutdown: Promise<void> | null = null;
  /** Resumes the burst launcher's pending yield (shutdown does not wait for a zero timer). */
  #resumeYield: (() => void) | null = null;

  constructor(deps: SchedulerDeps, config: ResolvedConfig) {
    this.#clock = deps.clock;
    this.#logger = deps.logger;
    this.#runner = deps.runner;
    this.#gate = deps.gate ?? null;
    this.events = new TypedEmitter<SchedulerEvents>((error, event) =>
      this.#logger.error({ err: error, event }, `Scheduler event listener for ${event} failed`),
    );
    this.#tasks = new TaskSet((error) =>
      this.#logger.error({ err: error }, 'Scheduler background task failed'),
    );
    this.#queue = new LaunchQueue<LaunchPlan>({
      sliceSize: Math.max(1, deps.launchSliceSize ?? DEFAULT_LAUNCH_SLICE_SIZE),
      launch: (plan) => this.#launch(plan),
      yieldToLoop: () => this.#yieldToLoop(),
      tasks: this.#tasks,
    });
    this.#setJobs(config);
  }

  // ---- lifecycle ------------------------------------------------------------------------------

  start(): void {
    if (this.#phase !== 'idle') return;
    this.#phase = 'running';
    const nowMs = this.#clock.now();
    // Start-up pass: seed strictly after now (cron jobs never fire on this pass) ...
    const seeds: { key: string; atMs: number; order: number }[] = [];
    for (const { job, order } of this.#jobs.values()) {
      if (!job.enabled || job.schedule.kind !== 'cron') continue;
      const atMs = nextFireTime(job.schedule.schedule, nowMs);
      if (atMs !== null) seeds.push({ key: job.name, atMs, order });
    }
    this.#heap = FireHeap.from(seeds);
    // ... and launch every enabled @reboot job once, in config order.
    const plans: LaunchPlan[] = [];
    for (const { job } of this.#jobs.values()) {
      if (job.schedule.kind !== 'reboot') continue;
      const plan = this.#decide(job, 'reboot', null, nowMs, null);
      if (typeof plan !== 'string') plans.push(plan);
    }
    this.#queue.enqueue(plans);
    this.#armTimer();
  }

  shutdown(graceMs: number): Promise<void> {
    this.#shutdown ??= this.#runShutdown(graceMs);
    return this.#shutdown;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.shutdown(0);
  }

  async #runShutdown(graceMs: number): Promise<void> {
    this.#phase = 'stopping';
    this.#logger.info('Shutting down (after currently running jobs finish)...');
    this.events.emit('shutdown:started', { graceMs, running: this.#running.size });
    this.#timer?.cancel();
    this.#timer = null;
    for (const runtime of this.#runtimes.values()) runtime.ladder?.abortTimer();
    for (const plan of this.#queue.clear()) this.#dropPlan(plan);
    this.#resumeYield?.();

    let cancelledRuns = 0;
    if (this.#running.size > 0 && !(await this.#waitIdleWithin(graceMs))) {
      const remaining = [...this.#running];
      cancelledRuns = remaining.length;
      this.#logger.warn(
        `Shutdown grace of ${formatSeconds(graceMs)} seconds expired; cancelling ${remaining.length} running job(s)`,
      );
      await Promise.all(
        remaining.map(async (instance) => {
          await this.#cancelInstance(instance, 'shutdown');
          await instance.reaped.promise;
        }),
      );
    }
    await this.#tasks.close();
    this.#phase = 'stopped';
    this.events.emit('shutdown:finished', { cancelledRuns });
  }

  /** True when every run finished on its own within graceMs (Infinity = wait without limit). */
  async #waitIdleWithin(graceMs: number): Promise<boolean> {
    if (graceMs <= 0) return this.#running.size === 0;
    const idle = new Promise<boolean>((resolve) => this.#onIdle(() => resolve(true)));
    if (!Number.isFinite(graceMs)) return idle;
    let timer: TimerHandle | undefined;
    const expired = new Promise<boolean>((resolve) => {
      timer = this.#clock.setTimer(() => resolve(false), Math.max(0, graceMs));
    });
    const finished = await Promise.race([idle, expired]);
    timer?.cancel();
    return finished;
  }

  #onIdle(callback: () => void): void {
    if (this.#running.size === 0) callback();
    else this.#idleWaiters.push(callback);
  }

  get #stopping(): boolean {
    return this.#phase === 'stopping' || this.#phase === 'stopped';
  }

  // ---- configuration --------------------------------------------------------------------------

  #setJobs(config: ResolvedConfig): void {
    const jobs = new Map<string, ConfiguredJob>();
    // Duplicate names: the later definition wins (config.md §5.1), at its own position.
    for (const job of config.jobs) {
      jobs.delete(job.name);
      jobs.set(job.name, { job, order: 0 });
    }
    let order = 0;
    for (const [name, entry] of jobs) jobs.set(name, { job: entry.job, order: order++ });
    this.#jobs = jobs;
  }

  applyConfig(config: ResolvedConfig): void {
    const previous = this.#jobs;
    this.#setJobs(config);
    const nowMs = this.#clock.now();
    const added: string[] = [];
    const removed: string[] = [];
    const changed: string[] = [];
    for (const name of previous.keys()) {
      if (this.#jobs.has(name)) continue;
      removed.push(name);
      this.#heap.delete(name);
      this.#pruneRuntime(name);
    }
    for (const [name, { job, order }] of this.#jobs) {
      const before = previous.get(name)?.job;
      if (!before) added.push(name);
      else if (before !== job && before.digest !== job.digest) changed.push(name);
      // Before start() the start-up pass seeds everything; after shutdown nothing fires.
      if (this.#phase !== 'running') continue;
      if (!job.enabled || job.schedule.kind !== 'cron') {
        this.#heap.delete(name);
        continue;
      }
      if (before && this.#heap.has(name) && sameCronTiming(before, job)) continue;
      // New or changed timing: reseed strictly in the future. (A reload never fires @reboot jobs.)
      const atMs = nextFireTime(job.schedule.schedule, nowMs);
      if (atMs === null) this.#heap.delete(name);
      else this.#heap.set(name, atMs, order);
    }
    this.#heap.reorder((key) => this.#jobs.get(key)?.order ?? Number.MAX_SAFE_INTEGER);
    this.events.emit('config:applied', { added, removed, changed, jobSetId: config.jobSetId });
    if (this.#phase === 'running') this.#armTimer();
  }

  /** Forget an unconfigured name's runtime once nothing refers to it any more. */
  #pruneRuntime(name: string): void {
    const runtime = this.#runtimes.get(name);
    if (!runtime || this.#jobs.has(name)) return;
    if (runtime.running.size > 0 || runtime.planned > 0 || runtime.lane) return;
    if (runtime.ladder?.pending) return;
    this.#runtimes.delete(name);
  }

  #runtime(name: string): JobRuntime {
    let runtime = this.#runtimes.get(name);
    if (!runtime) {
      runtime = {
        running: new Set(),
        history: new RunHistory(),
        lastRealOutcome: null,
        ladder: null,
        planned: 0,
        lane: null,
      };
      this.#runtimes.set(name, runtime);
    }
    return runtime;
  }

  // ---- the loop -------------------------------------------------------------------------------

  #armTimer(): void {
    this.#timer?.cancel();
    this.#timer = null;
    if (this.#phase !== 'running') return;
    const nowMs = this.#clock.now();
    const next = this.#heap.peek();
    const delayMs = next === undefined ? MAX_SLEEP_MS : next.atMs - nowMs;
    this.#armedForMs = next?.atMs ?? null;
    this.#armedWallMs = nowMs;
    this.#armedMonotonicMs = this.#clock.monotonic();
    this.#timer = this.#clock.setTimer(
      () => this.#onWake(),
      Math.min(Math.max(delayMs, 0), MAX_SLEEP_MS),
    );
  }

  #onWake(): void {
    this.#timer = null;
    if (this.#phase !== 'running') return;
    const nowMs = this.#clock.now();
    this.#noticeClockJump(nowMs);
    const due = this.#heap.popDue(nowMs);
    // Due jobs are serviced in config order; each job's own slots oldest first.
    due.sort((a, b) => a.order - b.order);
    const plans: LaunchPlan[] = [];
    for (const entry of due) {
      const configured = this.#jobs.get(entry.key);
      if (!configured) continue;
      const { job, order } = configured;
      if (job.schedule.kind !== 'cron' || !job.enabled) continue;
      const fire = planDueFires(
        job.schedule.schedule,
        entry.atMs,
        nowMs,
        slotResolutionMs(job.schedule.secondGranularity),
      );
      // Advance strictly past the fired slots BEFORE launching: a slot fires at most once.
      if (fire.nextFireAtMs !== null) this.#heap.set(job.name, fire.nextFireAtMs, order);
      if (fire.late) {
        this.#logger.warn(
          `Job ${job.name}: scheduler woke ${formatSeconds(fire.latenessMs)} seconds late for its ${new Date(entry.atMs).toISOString()} slot; ` +
            (fire.fires.length > 0
              ? 'firing the current slot once'
              : 'the current slot does not match, not firing') +
            ' and resyncing',
        );
        this.events.emit('schedule:late', {
          jobName: job.name,
          scheduledAtMs: entry.atMs,
          latenessMs: fire.latenessMs,
          firedOnce: fire.fires.length > 0,
          nextFireAtMs: fire.nextFireAtMs,
        });
      }
      for (const slotMs of fire.fires) {
        const plan = this.#decide(job, 'schedule', slotMs, nowMs, null);
        if (typeof plan !== 'string') plans.push(plan);
      }
    }
    this.events.emit('loop:woke', {
      nowMs,
      armedForMs: this.#armedForMs,
      dueJobs: due.length,
      launches: plans.length,
    });
    this.#queue.enqueue(plans);
    this.#armTimer();
  }

  #noticeClockJump(nowMs: number): void {
    const expectedMs = this.#armedWallMs + (this.#clock.monotonic() - this.#armedMonotonicMs);
    const deltaMs = nowMs - expectedMs;
    if (Math.abs(deltaMs) <= CLOCK_JUMP_TOLERANCE_MS) return;
    const direction = deltaMs > 0 ? 'forward' : 'backward';
    this.#logger.warn(
      direction === 'backward'
        ? `Wall clock stepped backwards by ${formatSeconds(-deltaMs)} seconds; pending fires wait for their slots`
        : `Wall clock stepped forwards by ${formatSeconds(deltaMs)} seconds`,
    );
    this.events.emit('clock:jumped', { direction, deltaMs });
  }

  #yieldToLoop(): Promise<void> {
    // A resolved promise first (let pending continuations run), then a zero timer so timers and
    // I/O callbacks queued behind this burst get their turn. Shutdown resumes it at once.
    return Promise.resolve().then(
      () =>
        new Promise<void>((resolve) => {
          if (this.#stopping) {
            resolve();
            return;
          }
          const pending: { timer?: TimerHandle } = {};
          const resume = (): void => {
            pending.timer?.cancel();
            if (this.#resumeYield === resume) this.#resumeYield = null;
            resolve();
          };
          this.#resumeYield = resume;
          pending.timer = this.#clock.setTimer(resume, 0);
        }),
    );
  }

  // ---- gates ----------------------------------------------------------------------------------

  /**
   * The gate pipeline of jobs.md §2 for one requested launch. Returns the launch plan, or the
   * skip reason after logging and emitting it. Resets the ladder (gate 4) for scheduled/@reboot
   * fires.
   */
  #decide(
    job: ResolvedJob,
    trigger: RunTrigger,
    scheduledAtMs: number | null,
    nowMs: number,
    retryLadder: RetryLadder | null,
  ): LaunchPlan | SkipReason {
    const runtime = this.#runtime(job.name);
    const skip = (reason: SkipReason): SkipReason => {
      this.events.emit('fire:skipped', {
        jobName: job.name,
        reason,
        trigger,
        scheduledAtMs,
        decisionLatenessMs: scheduledAtMs === null ? null : nowMs - scheduledAtMs,
      });
      return reason;
    };
    const scheduled = trigger === 'schedule' || trigger === 'reboot';

    const enabled = checkEnabled(job);
    if (enabled.kind === 'skip') return skip(enabled.reason);

    if (trigger !== 'manual' && this.#gate) {
      const verdict = this.#gate({ job, trigger, scheduledAtMs });
      if (verdict.kind === 'skip') {
        this.#logger.info(
          `Job ${job.name} skipped on this node${verdict.detail ? `: ${verdict.detail}` : ''}`,
        );
        return skip(verdict.reason);
      }
    }

    const active = runtime.running.size + runtime.planned;
    if (scheduled) {
      const verdict = checkOnlyIfLastSucceeded(job, {
        activeInstances: active,
        lastRealOutcome: runtime.lastRealOutcome,
      });
      if (verdict.kind === 'skip') {
        // Gate 3 leaves the retry ladder untouched.
        this.#logger.info(
          `Job ${job.name} skipped: onlyIfLastSucceeded and ${verdict.detail ?? 'the last run failed'}`,
        );
        return skip(verdict.reason);
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
      ladder = runtime.ladder; // manual: attach, never create or reset
    }

    if (active > 0) {
      this.#logger.warn(
        `Job ${job.name}: still running and concurrencyPolicy is ${job.concurrencyPolicy}`,
      );
    }
    const concurrency = decideConcurrency(job.concurrencyPolicy, active);
    if (concurrency.kind === 'skip') return skip(concurrency.reason);

    runtime.planned += 1;
    return {
      job,
      trigger,
      scheduledAtMs,
      ladder,
      attempt: ladder?.count ?? 0,
      replace: concurrency.kind === 'replace',
      decidedAtMs: nowMs,
      result: null,
    };
  }

  // ---- launching ------------------------------------------------------------------------------

  /** Launch one plan from the queue; true when it spawned synchronously. */
  #launch(plan: LaunchPlan): boolean {
    if (this.#stopping) {
      this.#dropPlan(plan);
      return false;
    }
    const runtime = this.#runtime(plan.job.name);
    if (plan.replace || runtime.lane) {
      this.#chainLane(runtime, plan);
      return false;
    }
    this.#startRun(plan);
    return true;
  }

  #dropPlan(plan: LaunchPlan): void {
    const runtime = this.#runtime(plan.job.name);
    runtime.planned = Math.max(0, runtime.planned - 1);
    plan.result?.resolve({ kind: 'skipped', reason: 'shutting-down' });
    this.events.emit('fire:skipped', {
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
    this.#tasks.run(async () => {
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
        for (const victim of victims) await this.#cancelInstance(victim, 'replaced');
      }
      if (this.#stopping) {
        this.#dropPlan(plan);
        return;
      }
      this.#startRun(plan);
    } catch (error) {
      this.#logger.error(
        { err: error },
        `Job ${plan.job.name}: replacing the running instance failed`,
      );
      this.#dropPlan(plan);
    }
  }

  async #cancelInstance(
    instance: RunningInstance,
    reason: 'replaced' | 'cancelled' | 'shutdown',
  ): Promise<void> {
    try {
      await instance.handle.cancel(reason);
    } catch (error) {
      this.#logger.error({ err: error }, `Job ${instance.job.name}: cancelling the run failed`);
    }
  }

  #startRun(plan: LaunchPlan): void {
    const { job } = plan;
    const runtime = this.#runtime(job.name);
    runtime.planned = Math.max(0, runtime.planned - 1);
    const runId = randomUUID().replaceAll('-', '');
    this.#logger.info(`Starting job ${job.name}`);
    const startedAtMs = this.#clock.now();
    // onSpawn may fire during runner.start(), before the instance exists.
    const spawned: { instance: RunningInstance | null; pid: number | null } = {
      instance: null,
      pid: null,
    };
    let handle: RunHandle;
    try {
      handle = this.#runner.start({
        job,
        onOutput: (line) =>
          this.events.emit('run:output', {
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
      this.#logger.error({ err: error }, `Job ${job.name}: the runner failed to launch it`);
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
    if (instance.pid !== null) this.#logger.info(`Job ${job.name} spawned`);
    this.events.emit('run:started', {
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
    this.#tasks.run(async () => {
      const outcome = await handle.done;
      try {
        this.#reap(instance, outcome);
      } finally {
        instance.reaped.resolve();
      }
    });
  }

  // ---- after a run (jobs.md §6) ---------------------------------------------------------------

  #reap(instance: RunningInstance, outcome: RunOutcome): void {
    const { job } = instance;
    const runtime = this.#runtime(job.name);
    runtime.running.delete(instance);
    this.#running.delete(instance);
    try {
      this.#logger.info(
        `Job ${job.name} exit code ${outcome.exitCode}; has stdout: ${pythonBool(Boolean(outcome.stdout?.text))}, ` +
          `has stderr: ${pythonBool(Boolean(outcome.stderr?.text))}; fail_reason: ${pythonRepr(outcome.failReason)}`,
      );
      this.#settle(instance, outcome, runtime);
    } finally {
      if (!this.#jobs.has(job.name)) this.#pruneRuntime(job.name);
      if (this.#running.size === 0) {
        const waiters = this.#idleWaiters;
        this.#idleWaiters = [];
        for (const waiter of waiters) waiter();
      }
    }
  }

  #settle(instance: RunningInstance, outcome: RunOutcome, runtime: JobRuntime): void {
    const disposition = classifyFinishedRun(instance, outcome, this.#stopping);
    const record = buildRunRecord(outcome, disposition === 'cancelled');
    const finished = (recorded: boolean): void =>
      this.events.emit('run:finished', {
        job: instance.job,
        runId: instance.runId,
        trigger: instance.trigger,
        attempt: instance.attempt,
        scheduledAtMs: instance.scheduledAtMs,
        outcome,
        record,
        recorded,
        disposition,
      });
    if (disposition === 'replaced') {
      this.#logger.info(`Job ${instance.job.name} was replaced by a newer instance`);
      finished(false);
      return;
    }
    runtime.history.push(record);
    if (record.outcome === 'success' || record.outcome === 'failure') {
      runtime.lastRealOutcome = record.outcome;
    }
    finished(true);
    const report = { job: instance.job, runId: instance.runId, outcome, record };
    switch (disposition) {
      case 'cancelled':
        instance.ladder?.cancel();
        return;
      case 'shutdown-failure':
        return;
      case 'success':
        // Any success removes the job's ladder, even one another instance still holds.
        runtime.ladder?.cancel();
        runtime.ladder = null;
        this.events.emit('report:succeeded', report);
        return;
      case 'failure':
        this.#logCapturedOutput(instance.job, outcome);
        this.events.emit('report:failed', report);
        this.#advanceLadder(instance, runtime, report);
        return;
    }
  }

  #logCapturedOutput(job: ResolvedJob, outcome: RunOutcome): void {
    if (outcome.stdout?.text)
      this.#logger.info(`Job ${job.name} STDOUT:\n${outcome.stdout.text.trimEnd()}`);
    if (outcome.stderr?.text)
      this.#logger.info(`Job ${job.name} STDERR:\n${outcome.stderr.text.trimEnd()}`);
  }

  /** jobs.md §7.2 steps 2–5. */
  #advanceLadder(
    instance: RunningInstance,
    runtime: JobRuntime,
    report: SchedulerEvents['report:permanently-failed'],
  ): void {
    const ladder = instance.ladder;
    if (!ladder || ladder.cancelled) {
      this.events.emit('report:permanently-failed', report);
      return;
    }
    ladder.abortTimer();
    const step = ladder.step();
    if (step.kind === 'exhausted') {
      ladder.cancel();
      if (runtime.ladder === ladder) runtime.ladder = null;
      this.events.emit('report:permanently-failed', report);
      return;
    }
    this.#logger.info(
      `Cron job ${ladder.jobName} scheduled to be retried (#${step.attempt}) in ${formatSeconds(step.delayMs)} seconds`,
    );
    ladder.arm(this.#clock, step.delayMs, () => this.#onRetryDue(ladder));
    this.events.emit('retry:scheduled', {
      jobName: ladder.jobName,
      attempt: step.attempt,
      delayMs: step.delayMs,
      retryAtMs: ladder.nextRetryAtMs ?? this.#clock.now() + step.delayMs,
    });
  }

  /** jobs.md §7.3: look the job up by name in the CURRENT config and go through the gates. */
  #onRetryDue(ladder: RetryLadder): void {
    if (this.#phase !== 'running' || ladder.cancelled) return;
    const configured = this.#jobs.get(ladder.jobName);
    if (!configured || !configured.job.enabled) {
      const reason = configured ? 'job-disabled' : 'job-removed';
      this.#logger.warn(
        `Cron job ${ladder.jobName} ${configured ? 'is disabled' : 'is no longer configured'}; discarding its retry`,
      );
      ladder.cancel();
      const runtime = this.#runtimes.get(ladder.jobName);
      if (runtime?.ladder === ladder) runtime.ladder = null;
      this.#pruneRuntime(ladder.jobName);
      this.events.emit('retry:discarded', { jobName: ladder.jobName, reason });
      return;
    }
    const plan = this.#decide(configured.job, 'retry', null, this.#clock.now(), ladder);
    if (typeof plan !== 'string') this.#queue.enqueue([plan]);
  }

  // ---- manual control -------------------------------------------------------------------------

  #configured(name: string, verb: string): ResolvedJob {
    const configured = this.#jobs.get(name);
    if (!configured) {
      throw new YacronError(
        'YC_ERR_JOB_UNKNOWN',
        `Cannot ${verb} job '${name}': no job has this name`,
      );
    }
    return configured.job;
  }

  async startJob(name: string): Promise<ManualStartResult> {
    const job = this.#configured(name, 'start');
    if (this.#stopping) {
      throw new YacronError(
        'YC_ERR_SHUTTING_DOWN',
        `Cannot start job '${name}': the daemon is shutting down`,
      );
    }
    if (!job.enabled) {
      throw new YacronError(
        'YC_ERR_JOB_DISABLED',
        `Cannot start job '${name}': the job is disabled`,
      );
    }
    const plan = this.#decide(job, 'manual', null, this.#clock.now(), null);
    if (typeof plan === 'string') return { kind: 'skipped', reason: plan };
    const result = createDeferred<ManualStartResult>();
    this.#queue.enqueue([{ ...plan, result }]);
    return result.promise;
  }

  async cancelJob(name: string): Promise<void> {
    this.#configured(name, 'cancel');
    const runtime = this.#runtimes.get(name);
    const instances = runtime ? [...runtime.running] : [];
    if (!runtime || instances.length === 0) {
      throw new YacronError(
        'YC_ERR_JOB_NOT_RUNNING',
        `Cannot cancel job '${name}': it is not running`,
      );
    }
    for (const instance of instances) instance.cancelled = true;
    // Pending retries of the job are cancelled too; no reports follow a manual cancel.
    runtime.ladder?.cancel();
    runtime.ladder = null;
    await Promise.all(
      instances.map(async (instance) => {
        await this.#cancelInstance(instance, 'cancelled');
        await instance.reaped.promise;
      }),
    );
  }

  // ---- views ----------------------------------------------------------------------------------

  #snapshot(job: ResolvedJob): JobSnapshot {
    const runtime = this.#runtimes.get(job.name);
    const running = runtime ? [...runtime.running] : [];
    return {
      job,
      pids: running.map((instance) => instance.pid).filter((pid): pid is number => pid !== null),
      runningInstances: running.length,
      nextFireAtMs: this.#heap.get(job.name) ?? null,
      runs: runtime?.history.list() ?? [],
      ladder: runtime?.ladder ?? null,
    };
  }

  getStatus(): StatusEntry[] {
    const nowMs = this.#clock.now();
    return [...this.#jobs.values()].map(({ job }) => buildStatusEntry(this.#snapshot(job), nowMs));
  }

  getJobs(): JobView[] {
    const nowMs = this.#clock.now();
    return [...this.#jobs.values()].map(({ job }) => buildJobView(this.#snapshot(job), nowMs));
  }

  getJob(name: string): JobView {
    return buildJobView(this.#snapshot(this.#configured(name, 'show')), this.#clock.now());
  }

  getRuns(name: string): JobRuns {
    this.#configured(name, 'list runs of');
    const runs: readonly RunRecord[] = this.#runtimes.get(name)?.history.list() ?? [];
    return { name, runs, stats: computeRunStats(runs) };
  }

  getJobConfig(name: string): ResolvedJob | undefined {
    return this.#jobs.get(name)?.job;
  }

  getNextFireAtMs(name: string): number | null {
    return this.#heap.get(name) ?? null;
  }
}

/** Same schedule sets and the same zone: a reload keeps the pending next fire. */
function sameCronTiming(before: ResolvedJob, after: ResolvedJob): boolean {
  return (
    before.enabled &&
    before.schedule.kind === 'cron' &&
    after.schedule.kind === 'cron' &&
    before.timezone === after.timezone &&
    schedulesEqual(before.schedule.schedule, after.schedule.schedule)
  );
}

/** jobs.md §6, first match wins. */
function classifyFinishedRun(
  instance: RunningInstance,
  outcome: RunOutcome,
  shuttingDown: boolean,
): RunDisposition {
  if (instance.replaced) return 'replaced';
  if (instance.cancelled) return 'cancelled';
  if (outcome.failReason === null) return 'success';
  return shuttingDown ? 'shutdown-failure' : 'failure';
}

function settledHandle(outcome: RunOutcome): RunHandle {
  return { pid: undefined, done: Promise.resolve(outcome), cancel: () => Promise.resolve() };
}
