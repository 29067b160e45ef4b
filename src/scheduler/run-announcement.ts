// A launched run is announced once its pid is known (docs/performance.md "The spawn path"): the
// `Job X spawned` line, the instance's pid, `run:started` (whose pid is the
// durable in-flight record's) and a waiting caller's `started` result. In-process the pid is
// known when runner.start() returns; through the spawn helper it comes a few ms later (onSpawn),
// or never: a launch that failed is announced with pid null as its outcome arrives, before the
// launcher reaps it. So every run is announced exactly once, and before its finish.
// The resource monitor is the run start's (run-start.ts), started at the same moment.
// Must not: announce twice.
import type { TypedEmitter } from '../common/index.js';
import type { Logger } from '../logging/index.js';
import type { LaunchTicket, RunningInstance } from './job-runtime.js';
import type { SchedulerEvents } from './types.js';

export interface AnnouncementContext {
  readonly logger: Logger;
  readonly events: TypedEmitter<SchedulerEvents>;
}

export class RunAnnouncement {
  readonly #context: AnnouncementContext;
  readonly #ticket: LaunchTicket;
  readonly #startedAtMs: number;
  #instance: RunningInstance | null = null;
  /** A pid reported before the instance existed (onSpawn during runner.start()). */
  #earlyPid: number | null = null;
  #announced = false;

  constructor(context: AnnouncementContext, ticket: LaunchTicket, startedAtMs: number) {
    this.#context = context;
    this.#ticket = ticket;
    this.#startedAtMs = startedAtMs;
  }

  /** The runner's onSpawn: the pid is known. */
  spawned(pid: number): void {
    if (this.#instance === null) this.#earlyPid ??= pid;
    else this.#announce(this.#instance, pid);
  }

  /**
   * The instance is in the job table (runner.start() returned): announced now when the pid is
   * already known (`handlePid`, or an onSpawn during start), else at spawned() or settled().
   */
  attach(instance: RunningInstance, handlePid: number | undefined): void {
    this.#instance = instance;
    const pid = handlePid ?? this.#earlyPid;
    if (pid !== null) this.#announce(instance, pid);
  }

  /** The run's outcome arrived: a run whose pid never came is announced now, with pid null. */
  settled(): void {
    if (this.#instance !== null) this.#announce(this.#instance, null);
  }

  #announce(instance: RunningInstance, pid: number | null): void {
    if (this.#announced) return;
    this.#announced = true;
    const { logger, events } = this.#context;
    const ticket = this.#ticket;
    const { job, runId } = instance;
    instance.pid = pid;
    if (pid !== null) logger.info(`Job ${job.name} spawned`);
    events.emit('run:started', {
      job,
      runId,
      pid,
      trigger: ticket.trigger,
      attempt: ticket.attempt,
      scheduledAtMs: ticket.scheduledAtMs,
      startedAtMs: this.#startedAtMs,
      decisionLatenessMs:
        ticket.scheduledAtMs === null ? null : ticket.decidedAtMs - ticket.scheduledAtMs,
      launchDelayMs: this.#startedAtMs - ticket.decidedAtMs,
    });
    ticket.result?.resolve({ kind: 'started', runId, pid });
  }
}
