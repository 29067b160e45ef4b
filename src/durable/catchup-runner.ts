// Runs missed-run catch-up once per process (seed "Missed-run catch-up"): per onMissed job, the
// durable watermark (or an open checkpoint's, resuming a backfill a crash interrupted), the plan,
// an open checkpoint, the deterministic jitter, the backfills one after another through the
// scheduler, and the close checkpoint. Must not: launch a first-ever job's "missed" runs, or
// replay a slot the ledger shows was already backfilled.
import { describeError, type Clock, type Logger, type TaskSet } from '../common/index.js';
import type { ResolvedJob } from '../config/index.js';
import type { DurableHost } from '../scheduler/index.js';
import type { StateStore } from '../state/index.js';
import { catchupJitterOffsetMs, planCatchup } from './catchup-plan.js';
import { catchupStream, parseCatchup, parseLedgerRun, runsStream } from './records.js';

export interface CatchupDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly host: string;
  readonly store: StateStore;
  readonly scheduler: DurableHost;
  /** The scheduler's start-up instant: later slots are the live loop's. */
  readonly untilMs: number;
  readonly onStoreUnavailable: 'degrade' | 'fail-closed';
  /** A bounded scheduling-path read. */
  readonly read: <T>(work: Promise<T>, what: string) => Promise<T>;
  /** Append and wait (bounded) until it landed. */
  readonly writeAndWait: (stream: string, data: object) => Promise<boolean>;
  readonly tasks: TaskSet;
  readonly signal: AbortSignal;
}

/** Ledger rows scanned for backfills already done when resuming a checkpoint. */
const RESUME_SCAN = 500;

export class CatchupRunner {
  readonly #deps: CatchupDeps;

  constructor(deps: CatchupDeps) {
    this.#deps = deps;
  }

  start(jobs: readonly ResolvedJob[]): void {
    for (const job of jobs) {
      if (job.onMissed === 'skip' || !job.enabled || job.schedule.kind !== 'cron') continue;
      this.#deps.tasks.run(async () => {
        try {
          await this.#catchUp(job);
        } catch (error) {
          if (this.#deps.signal.aborted) return;
          this.#deps.logger.warn(
            `Job ${job.name}: missed-run catch-up failed: ${describeError(error)}`,
          );
        }
      });
    }
  }

  async #catchUp(job: ResolvedJob): Promise<void> {
    const { store, read, logger, host, signal, clock } = this.#deps;
    if (job.schedule.kind !== 'cron') return;
    const name = job.name;
    const stream = catchupStream(name);
    const checkpoints = await read(
      store.list(stream, { limit: 1 }),
      `read the catch-up checkpoints of ${name}`,
    );
    const newest = checkpoints[0] === undefined ? undefined : parseCatchup(checkpoints[0].data);
    let watermarkMs: number;
    let alreadyRun: Set<number> | undefined;
    const resumed = newest?.kind === 'open';
    if (newest?.kind === 'open') {
      // A restart mid-backfill (or mid-jitter): resume from the watermark it was computed from,
      // minus the slots the ledger shows were backfilled since.
      watermarkMs = newest.watermarkMs;
      const rows = await read(
        store.list(runsStream(name), { limit: RESUME_SCAN }),
        `read the run ledger of ${name}`,
      );
      alreadyRun = new Set();
      for (const record of rows) {
        const run = parseLedgerRun(record.data);
        if (run?.trigger === 'catchup' && run.scheduledAtMs !== undefined)
          alreadyRun.add(run.scheduledAtMs);
      }
    } else {
      // Only runs that ended before this process's scheduler started: the live loop does not
      // wait for the store, so a slot it fired meanwhile may already be in the ledger, and taking
      // it as the watermark would silently forfeit every slot the downtime owes.
      const untilMs = this.#deps.untilMs;
      const max = await read(
        store.deriveMax(runsStream(name), 'finishedAtMs', {
          where: (data) =>
            typeof data['finishedAtMs'] === 'number' && data['finishedAtMs'] <= untilMs,
        }),
        `read the watermark of ${name}`,
      );
      // A first-ever run is never "missed": no reference point, schedule forward.
      if (max === undefined || typeof max.value !== 'number') return;
      watermarkMs = max.value;
    }
    const plan = planCatchup({
      schedule: job.schedule.schedule,
      onMissed: job.onMissed,
      watermarkMs,
      untilMs: this.#deps.untilMs,
      startingDeadlineMs: job.startingDeadlineMs,
      ...(alreadyRun === undefined ? {} : { alreadyRun }),
    });
    if (plan.droppedByDeadline) {
      logger.info(`Job ${name}: missed slots older than startingDeadlineSeconds were dropped`);
    }
    if (plan.droppedByCap > 0) {
      const missed = plan.missedIsLowerBound ? `more than ${plan.missed}` : `${plan.missed}`;
      const dropped = plan.missedIsLowerBound
        ? `more than ${plan.droppedByCap}`
        : `${plan.droppedByCap}`;
      logger.warn(
        `Job ${name}: ${missed} runs were missed; onMissed run-all replays at most ${plan.slots.length} per cycle, dropping ${dropped} (set startingDeadlineSeconds to bound the window, or prefer run-once)`,
      );
    }
    if (plan.slots.length === 0) {
      if (resumed) await this.#deps.writeAndWait(stream, { kind: 'close', host, watermarkMs });
      return;
    }
    if (!resumed) {
      const landed = await this.#deps.writeAndWait(stream, {
        kind: 'open',
        host,
        watermarkMs,
        mode: job.onMissed,
      });
      if (!landed && this.#deps.onStoreUnavailable === 'fail-closed') {
        logger.warn(
          `Job ${name}: cannot record the catch-up checkpoint; not backfilling (fail-closed)`,
        );
        return;
      }
    }
    const offsetMs = catchupJitterOffsetMs(name, job.catchupJitterMs);
    logger.info(
      `Job ${name}: catching up ${plan.slots.length} missed run(s) (onMissed ${job.onMissed})` +
        (offsetMs > 0 ? ` after a jitter of ${(offsetMs / 1000).toFixed(3)} seconds` : ''),
    );
    if (offsetMs > 0) await clock.sleep(offsetMs, signal);
    for (const slotMs of plan.slots) {
      if (signal.aborted) return;
      const record = await this.#deps.scheduler.runBackfill(name, slotMs, signal);
      // Not run (shutdown, the job disabled or removed meanwhile): the checkpoint stays open, so
      // the next start resumes what is still owed.
      if (record === null) return;
    }
    await this.#deps.writeAndWait(stream, {
      kind: 'close',
      host,
      watermarkMs: plan.slots.at(-1) ?? watermarkMs,
    });
  }
}
