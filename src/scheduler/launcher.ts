// The launcher: admitted launch tickets in, reaped runs out. It queues tickets in the sliced
// burst queue (launch-queue.ts), runs Replace sequences in a per-job lane, and there awaits gate
// 6's cluster slot and an onMissed job's pre-spawn in-flight record (docs/architecture.md
// "Admission"); it starts the run through the one run start (run-start.ts: run environment,
// scrub, monitor, spawn-failure fallback), announces it once its pid is known
// (run-announcement.ts) and hands the finished run, scrubbed, with its resources, to
// run-settlement.ts. Scheduled fires, @reboot runs, manual starts,
// retries and backfills all come through here once admitted; a DAG task's attempt shares the run
// start, not the queue (docs/architecture.md "Reserved room").
// Must not: decide (admission did), own time (the loop does) or await an event subscriber.
import { createDeferred, type Clock, type TaskSet, type TypedEmitter } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { CancelReason, RunOutcome, Runner } from '../runner/index.js';
import type { JobRuntime, LaunchTicket, RunningInstance } from './job-runtime.js';
import type { JobTable } from './job-table.js';
import { LaunchQueue } from './launch-queue.js';
import type { RunResources } from './history.js';
import type { ResolvedJob } from '../config/index.js';
import type {
  ConcurrencyLeasePort,
  DurablePort,
  RunEnvironmentSource,
  RunMonitor,
  RunStartRecordPort,
  ConcurrencyHold,
} from './ports.js';
import type { Retries } from './retries.js';
import { RunAnnouncement } from './run-announcement.js';
import { settleFinishedRun } from './run-settlement.js';
import { newRunId, startRun } from './run-start.js';
import type { ManualStartResult, SchedulerEvents, SkipReason } from './types.js';

export interface LauncherContext {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly runner: Runner;
  readonly events: TypedEmitter<SchedulerEvents>;
  readonly tasks: TaskSet;
  readonly table: JobTable;
  readonly retries: Retries;
  readonly runEnvironment: RunEnvironmentSource | null;
  /**
   * The durable backend: its cluster slots gate `concurrencyScope: cluster` launches, and its
   * in-flight record lands before the spawn of the jobs catch-up judges.
   */
  readonly durable: DurablePort | null;
  /** Samples monitored runs (null = none is sampled). */
  readonly runMonitor: RunMonitor | null;
  readonly launchSliceSize: number;
  readonly launchSliceBudgetMs: number;
  /** Resolves on a later turn of the event loop (between launch slices). */
  readonly yieldToLoop: () => Promise<void>;
  /** True once shutdown began: nothing new starts, failures are not reported. */
  readonly isStopping: () => boolean;
}

/** A run's id and start instant, fixed before its in-flight record is written. */
interface RunIdentity {
  readonly runId: string;
  readonly startedAtMs: number;
}

export class Launcher {
  readonly #context: LauncherContext;
  readonly #queue: LaunchQueue<LaunchTicket>;
  /** Ends the burst launcher's pending yield early (shutdown does not wait for it). */
  #resumeYield: (() => void) | null = null;

  constructor(context: LauncherContext) {
    this.#context = context;
    this.#queue = new LaunchQueue<LaunchTicket>({
      sliceSize: context.launchSliceSize,
      sliceBudgetMs: context.launchSliceBudgetMs,
      now: () => context.clock.monotonic(),
      launch: (turn) => this.#launch(this.#oldestQueued(turn)),
      yieldToLoop: () => this.#yieldToLoop(),
      tasks: context.tasks,
    });
  }

  // ---- queueing -------------------------------------------------------------------------------

  /**
   * Queue one batch of admitted launches beside any burst in progress (batches take turns); when
   * nothing is launching, the first slice runs right away.
   */
  enqueue(tickets: readonly LaunchTicket[]): void {
    const { table } = this.#context;
    for (let index = 0; index < tickets.length; index++) {
      const ticket = tickets[index] as LaunchTicket;
      const runtime = table.runtime(ticket.job.name);
      if (runtime.queued === null) runtime.queued = [ticket];
      else runtime.queued.push(ticket);
    }
    this.#queue.enqueue(tickets);
  }

  /** Queue one launch whose caller waits: resolves when it started (or was dropped). */
  enqueueAwaited(ticket: LaunchTicket): Promise<ManualStartResult> {
    const started = ticket.awaitStart();
    this.enqueue([ticket]);
    return started;
  }

  /** Shutdown: drop every queued launch and stop waiting between slices. */
  dropQueued(): void {
    for (const turn of this.#queue.clear()) this.#drop(this.#oldestQueued(turn));
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

  /** The ticket a job's turn in the queue launches: its oldest queued one. */
  #oldestQueued(turn: LaunchTicket): LaunchTicket {
    const runtime = this.#context.table.runtime(turn.job.name);
    const ticket = runtime.queued?.shift() ?? turn;
    if (runtime.queued?.length === 0) runtime.queued = null;
    return ticket;
  }

  /** Launch one ticket from the queue; true when it spawned synchronously. */
  #launch(ticket: LaunchTicket): boolean {
    if (this.#context.isStopping()) {
      this.#drop(ticket);
      return false;
    }
    const runtime = this.#context.table.runtime(ticket.job.name);
    if (
      ticket.replace ||
      runtime.lane ||
      this.#concurrencyFor(ticket.job) !== null ||
      this.#runStartsFor(ticket.job) !== null
    ) {
      this.#chainLane(runtime, ticket);
      return false;
    }
    this.#start(ticket, runtime);
    return true;
  }

  #drop(ticket: LaunchTicket, reason: SkipReason = 'shutting-down'): void {
    ticket.consume();
    ticket.result?.resolve({ kind: 'skipped', reason });
    this.#context.events.emit('fire:skipped', {
      jobName: ticket.job.name,
      reason,
      trigger: ticket.trigger,
      scheduledAtMs: ticket.scheduledAtMs,
      decisionLatenessMs:
        ticket.scheduledAtMs === null ? null : ticket.decidedAtMs - ticket.scheduledAtMs,
    });
  }

  /** Run the ticket after the job's earlier Replace sequences, one after another. */
  #chainLane(runtime: JobRuntime, ticket: LaunchTicket): void {
    const lane = (runtime.lane ?? Promise.resolve()).then(() =>
      this.#replaceThenStart(runtime, ticket),
    );
    runtime.lane = lane;
    this.#context.tasks.run(async () => {
      await lane;
      if (runtime.lane === lane) runtime.lane = null;
    });
  }

  async #replaceThenStart(runtime: JobRuntime, ticket: LaunchTicket): Promise<void> {
    try {
      if (ticket.replace) {
        const victims = [...runtime.running];
        for (const victim of victims) victim.replaced = true;
        // One after another, each awaited through its whole cancel sequence (docs/configuration.md
        // "Concurrency and timeouts").
        for (const victim of victims) await this.cancelInstance(victim, 'replaced');
      }
      if (this.#context.isStopping()) {
        this.#drop(ticket);
        return;
      }
      let hold: ConcurrencyHold | null = null;
      const leases = this.#concurrencyFor(ticket.job);
      if (leases !== null) {
        // Gate 6: after the local policy, the cluster-wide slot (docs/durable-state.md).
        const claim = await leases.claim(ticket.job, {
          replace: ticket.job.concurrencyPolicy === 'Replace',
          onCancelRequested: () => this.#replacedElsewhere(ticket.job.name),
        });
        if (claim.kind === 'skip') {
          this.#drop(ticket, claim.reason);
          return;
        }
        hold = claim.hold;
        if (this.#context.isStopping()) {
          hold?.release();
          this.#drop(ticket);
          return;
        }
      }
      const start: RunIdentity = { runId: newRunId(), startedAtMs: this.#context.clock.now() };
      const starts = this.#runStartsFor(ticket.job);
      if (starts !== null) {
        // Record-before-run: the run's in-flight open record lands before the spawn
        // (docs/durable-state.md "Missed-run catch-up"), bounded by the store timeout.
        const record = await starts.record({ job: ticket.job, ...start });
        if (record.kind === 'skip' || this.#context.isStopping()) {
          if (record.kind === 'run') record.withdraw();
          hold?.release();
          this.#drop(ticket, record.kind === 'skip' ? record.reason : 'shutting-down');
          return;
        }
      }
      this.#start(ticket, runtime, hold, start);
    } catch (error) {
      this.#context.logger.error(
        { err: error },
        `Job ${ticket.job.name}: replacing the running instance failed`,
      );
      this.#drop(ticket);
    }
  }

  // ---- starting -------------------------------------------------------------------------------

  #concurrencyFor(job: ResolvedJob): ConcurrencyLeasePort | null {
    if (job.concurrencyScope !== 'cluster') return null;
    return this.#context.durable?.current()?.concurrency ?? null;
  }

  /** The durable port that records this job's runs before their spawn, or null (most jobs). */
  #runStartsFor(job: ResolvedJob): RunStartRecordPort | null {
    const starts = this.#context.durable?.current()?.runStarts;
    return starts !== undefined && starts.covers(job) ? starts : null;
  }

  /** A Replace on another node asked for this job's cluster slot: cancel its runs here. */
  #replacedElsewhere(name: string): void {
    const runtime = this.#context.table.find(name);
    const victims = runtime ? [...runtime.running] : [];
    if (victims.length === 0) return;
    this.#context.logger.warn(
      `Job ${name}: another node replaced this run (concurrencyScope cluster); cancelling it`,
    );
    for (const victim of victims) {
      victim.replaced = true;
      this.#context.tasks.run(() => this.cancelInstance(victim, 'replaced'));
    }
  }

  #start(
    ticket: LaunchTicket,
    runtime: JobRuntime,
    hold: ConcurrencyHold | null = null,
    start?: RunIdentity,
  ): void {
    const { clock, logger, events } = this.#context;
    const { job } = ticket;
    ticket.consume();
    const runId = start?.runId ?? newRunId();
    logger.info(`Starting job ${job.name}`);
    const startedAtMs = start?.startedAtMs ?? clock.now();
    // Announced (spawned line, run:started, the ticket's result) once the pid is known: at once
    // in-process, at onSpawn through the spawn helper, at the outcome if it never comes.
    const announcement = new RunAnnouncement(this.#context, ticket, startedAtMs);
    const started = startRun(
      {
        runner: this.#context.runner,
        logger,
        runEnvironment: this.#context.runEnvironment?.current() ?? null,
        runMonitor: this.#context.runMonitor,
      },
      {
        runId,
        job,
        trigger: ticket.trigger,
        attempt: ticket.attempt,
        scheduledAtMs: ticket.scheduledAtMs,
        startedAtMs,
        label: `Job ${job.name}`,
        onOutput: (line) =>
          events.emit('run:output', {
            jobName: job.name,
            runId,
            stream: line.stream,
            line: line.line,
          }),
        onSpawn: (pid) => announcement.spawned(pid),
      },
    );
    const { handle } = started;
    const instance: RunningInstance = {
      runId,
      job,
      trigger: ticket.trigger,
      attempt: ticket.attempt,
      scheduledAtMs: ticket.scheduledAtMs,
      ladder: ticket.ladder,
      handle,
      concurrencyHold: hold,
      pid: null,
      replaced: false,
      cancelled: false,
      reaped: createDeferred<void>(),
    };
    this.#context.table.started(runtime, instance);
    announcement.attach(instance, handle.pid);
    this.#context.tasks.run(async () => {
      const { outcome, resources } = await started.finished;
      try {
        announcement.settled();
        this.#reap(instance, outcome, resources);
      } finally {
        instance.reaped.resolve();
      }
    });
  }

  // ---- reaping --------------------------------------------------------------------------------

  #reap(instance: RunningInstance, outcome: RunOutcome, resources: RunResources | null): void {
    const { table } = this.#context;
    const runtime = table.runtime(instance.job.name);
    table.ended(instance);
    try {
      settleFinishedRun(
        {
          events: this.#context.events,
          logger: this.#context.logger,
          stopping: this.#context.isStopping(),
          retries: this.#context.retries,
        },
        instance,
        outcome,
        runtime,
        resources,
      );
    } finally {
      table.settled(instance);
      instance.concurrencyHold?.release();
    }
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
    const runtime = this.#context.table.find(name);
    const instances = runtime ? [...runtime.running] : [];
    if (!runtime || instances.length === 0) return false;
    for (const instance of instances) instance.cancelled = true;
    this.#context.retries.cancelJob(name);
    await this.#cancelAndReap(instances, 'cancelled');
    return true;
  }

  /** Shutdown after the grace period: cancel what still runs; resolves when all are reaped. */
  async cancelAll(reason: CancelReason): Promise<number> {
    const instances = this.#context.table.runningInstances();
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
