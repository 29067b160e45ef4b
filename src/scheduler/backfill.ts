// One missed-run backfill through the ordinary launch path (the durable host port's
// runBackfill): wait until the job is idle on this node, admit it as a `catchup` launch (no
// ladder, no depends-on-past gate), launch it and resolve with its summary once it finished.
// The wait is correctness for a Forbid job (a launch beside a running instance would be
// swallowed) but only pacing for Allow and Replace, so there it is bounded, as the reference
// bounds it: a job whose runs always overlap would otherwise never get its backfill
// (docs/durable-state.md "Missed-run catch-up").
// Must not: launch a Forbid job's backfill beside a running instance.
import { formatIsoUtc, type Clock, type TypedEmitter } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { ResolvedJob } from '../config/index.js';
import type { Admitted } from './admit.js';
import type { RunSummary } from './history.js';
import type { LaunchTicket } from './job-runtime.js';
import type { ManualStartResult, SchedulerEvents } from './types.js';

/** Longest a backfill of an Allow or Replace job waits for the job to go idle (the reference's). */
export const BACKFILL_IDLE_WAIT_MS = 30_000;

export interface BackfillContext {
  readonly events: TypedEmitter<SchedulerEvents>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The loop runs (not before start(), not once shutdown began). */
  readonly running: () => boolean;
  readonly currentJob: (name: string) => ResolvedJob | undefined;
  readonly activeInstances: (name: string) => number;
  readonly admit: (job: ResolvedJob, scheduledAtMs: number) => Admitted;
  readonly launch: (ticket: LaunchTicket) => Promise<ManualStartResult>;
}

/**
 * The finished run's summary, or null when it did not run (job gone or disabled, a refusing
 * gate, shutdown, abort).
 */
export async function runBackfill(
  context: BackfillContext,
  name: string,
  scheduledAtMs: number,
  signal?: AbortSignal,
): Promise<RunSummary | null> {
  const { events, clock } = context;
  let waitingSinceMs: number | null = null;
  for (;;) {
    if (!context.running() || signal?.aborted) return null;
    const job = context.currentJob(name);
    if (job === undefined || !job.enabled) return null;
    if (context.activeInstances(name) > 0) {
      // Serialised: wait for this job's instances to finish (or the daemon to stop); for a job
      // that is not Forbid, at most BACKFILL_IDLE_WAIT_MS.
      if (job.concurrencyPolicy === 'Forbid') {
        await waitForJobEvent(events, name, signal, clock, null);
        continue;
      }
      waitingSinceMs ??= clock.monotonic();
      const leftMs = BACKFILL_IDLE_WAIT_MS - (clock.monotonic() - waitingSinceMs);
      if (leftMs > 0) {
        await waitForJobEvent(events, name, signal, clock, leftMs);
        continue;
      }
      context.logger.info(
        `catch-up: job ${name} is still running after ${BACKFILL_IDLE_WAIT_MS / 1000} s (concurrencyPolicy ${job.concurrencyPolicy}); launching its backfill of ${formatIsoUtc(scheduledAtMs)} now`,
      );
    }
    const finished = new Map<string, RunSummary>();
    const waiters = new Map<string, (summary: RunSummary | null) => void>();
    const off = events.on('run:finished', (event) => {
      if (event.job.name !== name) return;
      const waiter = waiters.get(event.runId);
      if (waiter) waiter(event.summary);
      else finished.set(event.runId, event.summary);
    });
    try {
      const admitted = context.admit(job, scheduledAtMs);
      if (admitted.kind === 'skip') return null;
      const started = await context.launch(admitted);
      if (started.kind !== 'started') return null;
      const early = finished.get(started.runId);
      if (early !== undefined) return early;
      return await new Promise<RunSummary | null>((resolve) => {
        waiters.set(started.runId, resolve);
      });
    } finally {
      off();
    }
  }
}

/** Resolves on this job's next run:finished or fire:skipped, shutdown, abort, or `limitMs`. */
async function waitForJobEvent(
  events: TypedEmitter<SchedulerEvents>,
  name: string,
  signal: AbortSignal | undefined,
  clock: Clock,
  limitMs: number | null,
): Promise<void> {
  const offs: (() => void)[] = [];
  try {
    await new Promise<void>((resolve) => {
      if (limitMs !== null) {
        const timer = clock.setTimer(resolve, limitMs);
        offs.push(() => timer.cancel());
      }
      offs.push(
        events.on('run:finished', (event) => event.job.name === name && resolve()),
        events.on('fire:skipped', (event) => event.jobName === name && resolve()),
        events.on('shutdown:started', () => resolve()),
      );
      signal?.addEventListener('abort', () => resolve(), { once: true });
    });
  } finally {
    for (const off of offs) off();
  }
}
