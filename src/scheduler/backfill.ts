// One missed-run backfill through the ordinary launch path (the durable host port's
// runBackfill): wait until the job is idle on this node, admit it as a `catchup` launch (no
// ladder, no depends-on-past gate), launch it and resolve with its summary once it finished.
// Must not: overlap another instance of the job (backfills are serialised whatever the policy).
import type { TypedEmitter } from '../common/index.js';
import type { ResolvedJob } from '../config/index.js';
import type { Admitted } from './admit.js';
import type { RunSummary } from './history.js';
import type { LaunchTicket } from './job-runtime.js';
import type { ManualStartResult, SchedulerEvents } from './types.js';

export interface BackfillContext {
  readonly events: TypedEmitter<SchedulerEvents>;
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
  const { events } = context;
  for (;;) {
    if (!context.running() || signal?.aborted) return null;
    const job = context.currentJob(name);
    if (job === undefined || !job.enabled) return null;
    if (context.activeInstances(name) > 0) {
      // Serialised: wait for this job's instances to finish (or the daemon to stop).
      await waitForJobEvent(events, name, signal);
      continue;
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

/** Resolves on this job's next run:finished or fire:skipped, shutdown, or abort. */
async function waitForJobEvent(
  events: TypedEmitter<SchedulerEvents>,
  name: string,
  signal?: AbortSignal,
): Promise<void> {
  const offs: (() => void)[] = [];
  try {
    await new Promise<void>((resolve) => {
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
