// The scheduler core (docs/architecture.md): one timer over a min-heap of next fires, the
// late-wake rules, reload diffs, views, bounded shutdown and the host port the durable layer
// drives. It composes the parts: admission (admit.ts over the pure admission.ts), the launcher,
// the retry ladders and the job table. It never imports report/metrics/http: they subscribe to
// `events`, and nothing here awaits a subscriber.
import {
  createDeferred,
  formatSeconds,
  settlesWithin,
  systemClock,
  TaskSet,
  TypedEmitter,
  YacronError,
  type Clock,
  type TimerHandle,
} from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { ResolvedConfig, ResolvedJob } from '../config/index.js';
import { nextFireTime, type Schedule } from '../schedule/index.js';
import { Admitter } from './admit.js';
import { runBackfill, type BackfillContext } from './backfill.js';
import type { ConfiguredJob } from './configured-jobs.js';
import { indexJobs, sameCronTiming, seedFirstFires, sortByOrder } from './configured-jobs.js';
import { FireHeap } from './fire-heap.js';
import { planDueFires, slotResolutionMs, type DueFirePlan } from './fire-plan.js';
import type { RunSummary } from './history.js';
import { buildJobState } from './job-state.js';
import type { LaunchTicket } from './job-runtime.js';
import { JobTable } from './job-table.js';
import { DEFAULT_LAUNCH_SLICE_BUDGET_MS, DEFAULT_LAUNCH_SLICE_SIZE } from './launch-queue.js';
import { Launcher } from './launcher.js';
import type {
  ClusterPort,
  DurableCollaborator,
  DurablePort,
  LeadershipGate,
  RetryGateResult,
} from './ports.js';
import { Retries } from './retries.js';
import { noticeClockJump, reportLateWake, type WakeNoticeContext } from './wake-notices.js';
import type {
  BackfillGate,
  JobState,
  ManualStartResult,
  Scheduler,
  SchedulerDeps,
  SchedulerEvents,
} from './types.js';

/** The loop never sleeps longer than this, so clock steps and reloads are noticed. */
export const MAX_SLEEP_MS = 30_000;
/**
 * With the system clock the loop's timer is armed this much before the next slot and the rest is
 * waited out by yielding to the event loop: setTimeout works in whole milliseconds from a
 * truncated Date.now() and fires 1-2.5 ms after the slot, which is most of a burst's decision
 * lateness. The yields cost at most this long per wake. (FakeClock timers are exact: no lead.)
 */
export const DEFAULT_WAKE_LEAD_MS = 2;

type Phase = 'idle' | 'running' | 'stopping' | 'stopped';

const NONE_HELD: ReadonlySet<string> = new Set();
const LAUNCH_RETRY: RetryGateResult = { kind: 'launch' };

export function createScheduler(deps: SchedulerDeps, config: ResolvedConfig): Scheduler {
  return new CronScheduler(deps, config);
}

class CronScheduler implements Scheduler {
  readonly events: TypedEmitter<SchedulerEvents>;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #tasks: TaskSet;
  readonly #table: JobTable;
  readonly #retries: Retries;
  readonly #admitter: Admitter;
  readonly #launcher: Launcher;
  readonly #durable: DurablePort | null;
  readonly #cluster: ClusterPort | null;
  /** A pass over the held @reboot one-shots in progress (one at a time). */
  #releasingReboots = false;
  #jobs = new Map<string, ConfiguredJob>();
  #heap = new FireHeap<ConfiguredJob>();
  #phase: Phase = 'idle';
  #timer: TimerHandle | null = null;
  #armedForMs: number | null = null;
  #armedWallMs = 0;
  #armedMonotonicMs = 0;
  /** Bumped on every arming: a wake still yielding towards its slot is stale once it changed. */
  #armGeneration = 0;
  readonly #wakeLeadMs: number;
  readonly #yieldToLoop: () => Promise<void>;
  #shutdown: Promise<void> | null = null;
  readonly #notices: WakeNoticeContext;
  readonly #backfill: BackfillContext;
  readonly #gate: LeadershipGate | null;

  constructor(deps: SchedulerDeps, config: ResolvedConfig) {
    this.#clock = deps.clock;
    this.#logger = deps.logger;
    this.#gate = deps.gate ?? null;
    this.#wakeLeadMs = Math.max(
      0,
      deps.wakeLeadMs ?? (deps.clock === systemClock ? DEFAULT_WAKE_LEAD_MS : 0),
    );
    this.#yieldToLoop = deps.yieldToLoop ?? yieldWithSetImmediate;
    this.events = new TypedEmitter<SchedulerEvents>((error, event) =>
      this.#logger.error({ err: error, event }, `Scheduler event listener for ${event} failed`),
    );
    this.#tasks = new TaskSet((error) =>
      this.#logger.error({ err: error }, 'Scheduler background task failed'),
    );
    this.#durable = deps.durable ?? null;
    this.#cluster = deps.cluster ?? null;
    this.#notices = { logger: deps.logger, events: this.events };
    const currentJob = (name: string): ResolvedJob | undefined => this.#jobs.get(name)?.job;
    const isStopping = (): boolean => this.#stopping;
    this.#retries = new Retries({
      clock: deps.clock,
      logger: deps.logger,
      events: this.events,
      tasks: this.#tasks,
      isStopping,
      currentJob,
      journal: () => this.#durable?.current()?.retries ?? null,
      clusterDecision: (job) => this.#cluster?.retryDecision(job) ?? LAUNCH_RETRY,
      abandoned: (job, attempt, summary) => {
        this.#table.runtime(job.name).history.push(summary);
        this.events.emit('retry:abandoned', { jobName: job.name, attempt, summary });
      },
      relaunch: (job, ladder) => {
        const ticket = this.#admitter.admit(job, 'retry', null, ladder);
        if (ticket.kind === 'launch') this.#launcher.enqueue([ticket]);
      },
      released: (name) => this.#table.prune(name),
    });
    this.#table = new JobTable(currentJob, this.#retries);
    this.#admitter = new Admitter({
      clock: deps.clock,
      logger: deps.logger,
      events: this.events,
      gate: deps.gate ?? null,
      durable: this.#durable,
      table: this.#table,
      retries: this.#retries,
    });
    this.#launcher = new Launcher({
      clock: deps.clock,
      logger: deps.logger,
      runner: deps.runner,
      events: this.events,
      tasks: this.#tasks,
      table: this.#table,
      retries: this.#retries,
      runEnvironment: deps.runEnvironment ?? null,
      durable: this.#durable,
      runMonitor: deps.runMonitor ?? null,
      launchSliceSize: Math.max(1, deps.launchSliceSize ?? DEFAULT_LAUNCH_SLICE_SIZE),
      launchSliceBudgetMs: deps.launchSliceBudgetMs ?? DEFAULT_LAUNCH_SLICE_BUDGET_MS,
      yieldToLoop: this.#yieldToLoop,
      isStopping,
    });
    this.#backfill = {
      events: this.events,
      clock: deps.clock,
      logger: deps.logger,
      running: () => this.#phase === 'running',
      currentJob,
      activeInstances: (name) => this.activeInstances(name),
      admit: (job, scheduledAtMs) => this.#admitter.admit(job, 'catchup', scheduledAtMs),
      launch: (ticket) => this.#launcher.enqueueAwaited(ticket),
    };
    this.#jobs = indexJobs(config);
  }

  get #stopping(): boolean {
    return this.#phase === 'stopping' || this.#phase === 'stopped';
  }

  // ---- lifecycle ------------------------------------------------------------------------------

  start(startAtMs: number = this.#clock.now()): void {
    if (this.#phase !== 'idle') return;
    this.#phase = 'running';
    // Start-up pass: seed strictly after the start instant (cron jobs never fire on this pass;
    // a slot already due is fired by the first wake) ...
    this.#heap = FireHeap.from(seedFirstFires(this.#jobs.values(), startAtMs));
    // ... and launch every enabled @reboot job once, in config order, but the ones the cluster
    // holds until it resolves their owner (released by later passes). With a store the boot
    // marker decides first (once per OS boot); that read never holds up the other jobs.
    const reboots = [...this.#jobs.values()]
      .map(({ job }) => job)
      .filter((job) => job.schedule.kind === 'reboot');
    const held = this.#cluster?.holdReboots(reboots) ?? NONE_HELD;
    const tickets: LaunchTicket[] = [];
    for (const job of reboots) {
      if (held.has(job.name)) continue;
      const ticket = this.#bootRun(job);
      if (ticket !== null) tickets.push(ticket);
    }
    this.#launcher.enqueue(tickets);
    this.#armTimer();
  }

  /** An @reboot job's run: a ticket now, or null (refused, or decided by the boot marker). */
  #bootRun(job: ResolvedJob): LaunchTicket | null {
    const durable = this.#durable?.current() ?? null;
    if (durable !== null && job.enabled) {
      this.#tasks.run(() => this.#launchRebootAfterMarker(durable, job));
      return null;
    }
    const ticket = this.#admitter.admit(job, 'reboot', null);
    return ticket.kind === 'launch' ? ticket : null;
  }

  /** One pass over the cluster's held @reboot one-shots (never two at once). */
  #releaseHeldReboots(cluster: ClusterPort): void {
    if (this.#releasingReboots || !cluster.hasHeldReboots()) return;
    this.#releasingReboots = true;
    this.#tasks.run(async () => {
      try {
        await cluster.releaseReboots(
          (name) => this.#jobs.get(name)?.job,
          (job) => {
            if (this.#phase !== 'running') return;
            // The cluster's reboot-ran record is this one-shot's dedupe, written before the
            // release: the durable boot marker is for standalone and EveryNode one-shots only
            // (docs/durable-state.md "@reboot once per OS boot"). Gating it on the marker too
            // lost it under fail-closed: recorded as run cluster-wide, then skipped here.
            const ticket = this.#admitter.admit(job, 'reboot', null);
            if (ticket.kind === 'launch') this.#launcher.enqueue([ticket]);
          },
        );
      } finally {
        this.#releasingReboots = false;
      }
    });
  }

  async #launchRebootAfterMarker(durable: DurableCollaborator, job: ResolvedJob): Promise<void> {
    const verdict = await durable.checkRebootRun(job);
    if (this.#stopping) return;
    // A reload meanwhile may have changed or removed it: the boot run is the current definition.
    const current = this.#jobs.get(job.name)?.job;
    if (current === undefined || current.schedule.kind !== 'reboot') return;
    if (verdict !== 'run') {
      this.events.emit('fire:skipped', {
        jobName: job.name,
        reason: verdict,
        trigger: 'reboot',
        scheduledAtMs: null,
        decisionLatenessMs: null,
      });
      return;
    }
    const ticket = this.#admitter.admit(current, 'reboot', null);
    if (ticket.kind === 'launch') this.#launcher.enqueue([ticket]);
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
    this.events.emit('shutdown:started', { graceMs, running: this.#table.runningCount });
    this.#timer?.cancel();
    this.#timer = null;
    // Timers only: the durable pending records stay for the next boot to re-arm.
    this.#retries.abortTimers();
    this.#launcher.dropQueued();

    let cancelledRuns = 0;
    if (this.#table.runningCount > 0 && !(await this.#waitIdleWithin(graceMs))) {
      this.#logger.warn(
        `Shutdown grace of ${formatSeconds(graceMs)} seconds expired; cancelling ${this.#table.runningCount} running job(s)`,
      );
      cancelledRuns = await this.#launcher.cancelAll('shutdown');
    }
    await this.#tasks.close();
    this.#phase = 'stopped';
    this.events.emit('shutdown:finished', { cancelledRuns });
  }

  /** True when every run finished on its own within graceMs (Infinity = wait without limit). */
  async #waitIdleWithin(graceMs: number): Promise<boolean> {
    if (graceMs <= 0) return this.#table.runningCount === 0;
    const idle = createDeferred();
    this.#table.onIdle(() => idle.resolve());
    return settlesWithin(idle.promise, graceMs, this.#clock);
  }

  // ---- configuration --------------------------------------------------------------------------

  applyConfig(config: ResolvedConfig): void {
    const previous = this.#jobs;
    this.#jobs = indexJobs(config);
    const nowMs = this.#clock.now();
    const added: string[] = [];
    const removed: string[] = [];
    const changed: string[] = [];
    for (const [name, entry] of previous) {
      if (this.#jobs.has(name)) continue;
      removed.push(name);
      this.#heap.delete(entry);
      this.#table.prune(name);
    }
    for (const [name, entry] of this.#jobs) {
      const { job } = entry;
      const previousEntry = previous.get(name);
      const before = previousEntry?.job;
      if (!before) added.push(name);
      else if (before !== job && before.digest !== job.digest) changed.push(name);
      // The pending fire stays with the name: the new entry takes the old one's heap slot.
      if (previousEntry) this.#heap.replace(previousEntry, entry);
      // Before start() the start-up pass seeds everything; after shutdown nothing fires.
      if (this.#phase !== 'running') continue;
      if (!job.enabled || job.schedule.kind !== 'cron') {
        this.#heap.delete(entry);
        continue;
      }
      if (before && this.#heap.has(entry) && sameCronTiming(before, job)) continue;
      // New or changed timing: reseed strictly in the future. (A reload never fires @reboot jobs.)
      const atMs = nextFireTime(job.schedule.schedule, nowMs);
      if (atMs === null) this.#heap.delete(entry);
      else this.#heap.set(entry, atMs);
    }
    // Entries carry the new config order; restore the heap's tie-break.
    this.#heap.reorder();
    this.events.emit('config:applied', { added, removed, changed, jobSetId: config.jobSetId });
    if (this.#phase === 'running') this.#armTimer();
  }

  // ---- the loop -------------------------------------------------------------------------------

  #armTimer(): void {
    this.#timer?.cancel();
    this.#timer = null;
    this.#armGeneration += 1;
    if (this.#phase !== 'running') return;
    const nowMs = this.#clock.now();
    const next = this.#heap.peek();
    const delayMs = next === undefined ? MAX_SLEEP_MS : next.atMs - nowMs - this.#wakeLeadMs;
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
    const next = this.#heap.peek();
    if (next !== undefined && next.atMs > nowMs && next.atMs - nowMs <= this.#wakeLeadMs) {
      this.#waitOutLead();
      return;
    }
    const cluster = this.#cluster;
    if (cluster !== null) {
      cluster.onPass();
      this.#releaseHeldReboots(cluster);
    }
    noticeClockJump(
      this.#notices,
      nowMs,
      this.#armedWallMs + (this.#clock.monotonic() - this.#armedMonotonicMs),
    );
    // Due jobs are serviced in config order; each job's own slots oldest first.
    const due = sortByOrder(this.#heap.popDue(nowMs));
    const tickets: LaunchTicket[] = [];
    // Which slots fire is decided against this wake's clock read; jobs due together usually share
    // one parsed Schedule (same expression and zone) and one slot, so plan those once. (Indexed
    // loops: a burst runs this code cold, where for-of iterators cost more than the work.)
    const firePlans = new Map<Schedule, { readonly slotMs: number; readonly plan: DueFirePlan }>();
    let lastSchedule: Schedule | null = null;
    let lastSlotMs = Number.NaN;
    let lastPlan: DueFirePlan | null = null;
    for (let index = 0; index < due.length; index++) {
      // Every heap node is a current entry (applyConfig hands slots over by name).
      const entry = due[index] as ConfiguredJob;
      const { job } = entry;
      const slotMs = entry.atMs;
      if (job.schedule.kind !== 'cron' || !job.enabled) continue;
      const { schedule } = job.schedule;
      let fire: DueFirePlan;
      if (lastPlan !== null && schedule === lastSchedule && slotMs === lastSlotMs) {
        fire = lastPlan;
      } else {
        const shared = firePlans.get(schedule);
        if (shared !== undefined && shared.slotMs === slotMs) {
          fire = shared.plan;
        } else {
          const resolutionMs = slotResolutionMs(job.schedule.secondGranularity);
          fire = planDueFires(schedule, slotMs, nowMs, resolutionMs);
          if (shared === undefined) firePlans.set(schedule, { slotMs, plan: fire });
        }
        lastSchedule = schedule;
        lastSlotMs = slotMs;
        lastPlan = fire;
      }
      // Advance strictly past the fired slots BEFORE launching: a slot fires at most once.
      if (fire.nextFireAtMs !== null) this.#heap.set(entry, fire.nextFireAtMs);
      if (fire.late) reportLateWake(this.#notices, job, slotMs, fire);
      const { fires } = fire;
      for (let slot = 0; slot < fires.length; slot++) {
        const ticket = this.#admitter.admit(job, 'schedule', fires[slot] as number);
        if (ticket.kind === 'launch') tickets.push(ticket);
      }
    }
    this.events.emit('loop:woke', {
      nowMs,
      armedForMs: this.#armedForMs,
      dueJobs: due.length,
      launches: tickets.length,
    });
    this.#launcher.enqueue(tickets);
    this.#armTimer();
  }

  /** Woken up to wakeLeadMs early on purpose: yield (no timer) until the slot's millisecond. */
  #waitOutLead(): void {
    const generation = this.#armGeneration;
    this.#tasks.run(async () => {
      await this.#yieldToLoop();
      if (generation === this.#armGeneration && this.#timer === null) this.#onWake();
    });
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
    // Concurrency policy applies; no leadership gate, no onlyIfLastSucceeded (docs/architecture.md
    // "Admission").
    const ticket = this.#admitter.admit(job, 'manual', null);
    if (ticket.kind === 'skip') return { kind: 'skipped', reason: ticket.reason };
    return this.#launcher.enqueueAwaited(ticket);
  }

  async cancelJob(name: string): Promise<void> {
    this.#configured(name, 'cancel');
    if (!(await this.#launcher.cancelJob(name))) {
      throw new YacronError(
        'YC_ERR_JOB_NOT_RUNNING',
        `Cannot cancel job '${name}': it is not running`,
      );
    }
  }

  // ---- the durable host port ------------------------------------------------------------------

  activeInstances(name: string): number {
    return this.#table.find(name)?.active ?? 0;
  }

  rehydrateHistory(name: string, runs: readonly RunSummary[]): boolean {
    if (!this.#jobs.has(name)) return false;
    const runtime = this.#table.runtime(name);
    runtime.history.prepend(runs);
    if (runtime.lastRealOutcome === null) {
      for (let index = runs.length - 1; index >= 0; index--) {
        const run = runs[index] as RunSummary;
        if (run.outcome !== 'success' && run.outcome !== 'failure') continue;
        runtime.lastRealOutcome = run.outcome;
        runtime.lastRealAtMs = run.finishedAtMs;
        break;
      }
    }
    return true;
  }

  resumeRetry(name: string, attempt: number, notBeforeMs: number): boolean {
    const job = this.#jobs.get(name)?.job;
    if (job === undefined || this.#stopping) return false;
    return this.#retries.resume(job, attempt, notBeforeMs);
  }

  runBackfill(
    name: string,
    scheduledAtMs: number,
    signal?: AbortSignal,
  ): Promise<RunSummary | null> {
    return runBackfill(this.#backfill, name, scheduledAtMs, signal);
  }

  backfillGate(name: string): BackfillGate {
    const job = this.#jobs.get(name)?.job;
    if (job === undefined || !job.enabled) return 'not-runnable';
    if (this.#gate === null) return 'allow';
    const verdict = this.#gate({ job, trigger: 'catchup', scheduledAtMs: null });
    return verdict.kind === 'run' ? 'allow' : 'gate-closed';
  }

  // ---- the read-only view ---------------------------------------------------------------------

  #state(job: ResolvedJob): JobState {
    const entry = this.#jobs.get(job.name);
    return buildJobState(
      job,
      this.#table.find(job.name),
      entry === undefined ? null : this.#nextFireOf(entry),
      this.#retries.current(job.name),
      this.#cluster?.rebootHeld(job.name) ?? false,
    );
  }

  getJobStates(): JobState[] {
    return [...this.#jobs.values()].map(({ job }) => this.#state(job));
  }

  getJobState(name: string): JobState {
    return this.#state(this.#configured(name, 'show'));
  }

  getRuns(name: string): readonly RunSummary[] {
    this.#configured(name, 'list runs of');
    return this.#table.find(name)?.history.list() ?? [];
  }

  getJobConfig(name: string): ResolvedJob | undefined {
    return this.#jobs.get(name)?.job;
  }

  getNextFireAtMs(name: string): number | null {
    const entry = this.#jobs.get(name);
    return entry === undefined ? null : this.#nextFireOf(entry);
  }

  #nextFireOf(entry: ConfiguredJob): number | null {
    return this.#heap.has(entry) ? entry.atMs : null;
  }
}

/** The daemon's yield between launch slices: the check phase of this loop turn, not a timer. */
function yieldWithSetImmediate(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
