// Runs missed-run catch-up once per process (docs/durable-state.md "Missed-run catch-up"): per
// onMissed job, the durable watermark (or an open checkpoint's, resuming a backfill a crash
// interrupted; other processes' open in-flight runs count as runs of their slots), the plan, an
// open checkpoint, the deterministic jitter, the backfills one after another through the
// scheduler, and the close checkpoint. After each backfill but the last, a
// new open checkpoint moves its watermark to the slot just run, so a restart resumes after the
// slots already backfilled (the reference's record: an `open` on top means "resume from its
// watermark"). A resumed backfill covers only its own window (up to the open checkpoint's
// `until`, else its `at`): the slots after it belonged to the live schedulers, perhaps another
// node's, so once that window closes a fresh evaluation counts them against the ledger. Under a
// cluster the gate is asked before any store I/O: a node it refuses (no
// quorum yet, the convergence hold, a crashed holder's lease not expired, another owner) writes
// nothing and keeps the job pending: its gate (held state, no I/O) is asked again every second,
// and at once whenever the daemon calls recheck() (ownership gained); a backfill the gate stops
// midway is pending again and resumes from its open checkpoint. The reference asks every 30 s
// (CATCHUP_RECHECK_INTERVAL); under frequent faults a gate that opens for a few seconds between
// two such asks was missed (docs/deviations.md "Durable state").
// Must not: launch a first-ever job's "missed" runs, replay a slot a checkpoint shows was already
// backfilled or whose run began in another process, resume a stale open checkpoint past its own
// window, or write a checkpoint on a node the gate refuses.
import { describeError, type Clock, type TaskSet } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { ResolvedJob } from '../config/index.js';
import type { DurableHost } from '../scheduler/index.js';
import type { StateStore } from '../state/index.js';
import { catchupJitterOffsetMs, catchupWatermark, planCatchup } from './catchup-plan.js';
import { newestUnaccountedStart, openRunsElsewhere } from './inflight-plan.js';
import { INFLIGHT_READ_MAX, readAccountedStarts } from './interrupted-runs.js';
import { WATERMARK_FIELD } from './ledger-rows.js';
import {
  catchupData,
  catchupStream,
  CATCHUP_KEEP,
  inflightStream,
  isoAt,
  parseCatchup,
  parseStoreInstant,
  runsStream,
  type CatchupCheckpoint,
} from './records.js';

export interface CatchupDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly store: StateStore;
  readonly scheduler: DurableHost;
  /** The scheduler's start-up instant: later slots are the live loop's. */
  readonly untilMs: number;
  /** This daemon process (host and 12-hex token): its own in-flight records are not counted. */
  readonly host: string;
  readonly processToken: string;
  readonly onStoreUnavailable: 'degrade' | 'fail-closed';
  /** A bounded scheduling-path read. */
  readonly read: <T>(work: Promise<T>, what: string) => Promise<T>;
  /** Append and wait (bounded) until it landed. */
  readonly writeAndWait: (stream: string, data: object) => Promise<boolean>;
  /** Prune a stream to its newest `keep` records in the background. */
  readonly prune: (stream: string, keep: number) => void;
  readonly tasks: TaskSet;
  readonly signal: AbortSignal;
}

/** How often the cluster gate of a job it refused is asked again (a synchronous read). */
export const CATCHUP_GATE_POLL_MS = 1_000;

/** A job waiting for the gate; a fresh object per spell of waiting. */
interface Pending {
  readonly job: ResolvedJob;
}

/** How one attempt ended: done (ran, nothing owed, or not runnable), or refused by the gate. */
type Attempt = 'done' | 'gate-closed';

export class CatchupRunner {
  readonly #deps: CatchupDeps;
  /** Jobs the gate refused, waiting for a re-check; and the ones being attempted right now. */
  readonly #pending = new Map<string, Pending>();
  readonly #running = new Set<string>();

  constructor(deps: CatchupDeps) {
    this.#deps = deps;
  }

  start(jobs: readonly ResolvedJob[]): void {
    for (const job of jobs) {
      if (job.onMissed === 'skip' || !job.enabled || job.schedule.kind !== 'cron') continue;
      this.#attempt(job);
    }
  }

  /** Ask the gate again now for every pending job (this node gained ownership or quorum). */
  recheck(): void {
    for (const { job } of [...this.#pending.values()]) this.#attempt(job);
  }

  /** The jobs waiting for the gate (tests and the state inspector). */
  get pending(): readonly string[] {
    return [...this.#pending.keys()];
  }

  #attempt(job: ResolvedJob): void {
    const name = job.name;
    if (this.#running.has(name) || this.#deps.signal.aborted) return;
    this.#running.add(name);
    this.#deps.tasks.run(async () => {
      let outcome: Attempt = 'done';
      try {
        outcome = await this.#catchUp(job);
      } catch (error) {
        if (!this.#deps.signal.aborted) {
          this.#deps.logger.warn(
            `Job ${name}: missed-run catch-up failed: ${describeError(error)}`,
          );
        }
      } finally {
        this.#running.delete(name);
      }
      if (outcome === 'gate-closed') this.#pend(job);
      else this.#pending.delete(name);
    });
  }

  #pend(job: ResolvedJob): void {
    const { logger, clock, signal, tasks } = this.#deps;
    if (signal.aborted) return;
    if (!this.#pending.has(job.name)) {
      logger.info(
        `Job ${job.name}: missed-run catch-up waits: the cluster gate does not let this node run it now; asked again every ${CATCHUP_GATE_POLL_MS / 1000} s`,
      );
    }
    // One poll loop per pending spell: a newer spell (after recheck() ran and was refused again)
    // ends the older loop.
    const spell: Pending = { job };
    this.#pending.set(job.name, spell);
    tasks.run(async () => {
      for (;;) {
        try {
          await clock.sleep(CATCHUP_GATE_POLL_MS, signal);
        } catch {
          return; // shut down while waiting
        }
        // Pending no more (recheck() ran it, or a newer config's job replaced this one).
        if (this.#pending.get(job.name) !== spell) return;
        const gate = this.#deps.scheduler.backfillGate(job.name);
        if (gate === 'gate-closed') continue;
        if (gate === 'allow') this.#attempt(job);
        else this.#pending.delete(job.name); // removed or disabled: nothing to run
        return;
      }
    });
  }

  /**
   * `afterResume`: the fresh evaluation that follows a resumed window (it never resumes again),
   * with the ledger watermark read before that window's own backfills could land in the ledger.
   */
  async #catchUp(
    job: ResolvedJob,
    afterResume: { readonly ledgerMs: number | null } | null = null,
  ): Promise<Attempt> {
    const { store, read, logger, signal, clock, scheduler } = this.#deps;
    if (job.schedule.kind !== 'cron') return 'done';
    // The gate first, before any store I/O: a refused node writes no checkpoint.
    const gate = scheduler.backfillGate(job.name);
    if (gate !== 'allow') return gate === 'gate-closed' ? 'gate-closed' : 'done';
    const name = job.name;
    const stream = catchupStream(name);
    const checkpoints = await read(
      store.list(stream, { limit: 1 }),
      `read the catch-up checkpoints of ${name}`,
    );
    const newest = checkpoints[0] === undefined ? undefined : parseCatchup(checkpoints[0].data);
    // A restart mid-backfill (or mid-jitter): resume from the open checkpoint's watermark, over
    // that backfill's own window only. Slots after it were the live schedulers' (another node
    // may have run them meanwhile); once the resumed backfill closes, a fresh evaluation
    // below counts them against the ledger.
    const open = newest?.kind === 'open' && afterResume === null ? newest : null;
    const resumeFromMs = open?.watermarkMs ?? null;
    const resumed = resumeFromMs !== null;
    const untilMs = Math.min(resumed ? (open?.untilMs ?? Infinity) : Infinity, this.#deps.untilMs);
    // A closed checkpoint's slot was backfilled (on this node or another, perhaps after this
    // process started, where the ledger watermark below does not look): nothing up to it is owed.
    const closedAtMs = newest?.kind === 'close' ? newest.watermarkMs : null;
    // Read before any backfill of this process can land; a resumed window hands it on to the
    // fresh evaluation that follows it, and does not use it itself.
    const next = {
      ledgerMs: afterResume !== null ? afterResume.ledgerMs : await this.#watermark(name),
    };
    const ledgerMs = resumed ? null : next.ledgerMs;
    const startedElsewhereMs = resumed
      ? null
      : await this.#startedElsewhere(
          name,
          Math.max(ledgerMs ?? -Infinity, closedAtMs ?? -Infinity),
        );
    const watermarkMs = catchupWatermark({
      resumeFromMs,
      ledgerMs,
      closedAtMs,
      startedElsewhereMs,
    });
    // A first-ever run is never "missed": no reference point, schedule forward.
    if (watermarkMs === null) return 'done';
    const plan = planCatchup({
      schedule: job.schedule.schedule,
      onMissed: job.onMissed,
      watermarkMs,
      untilMs,
      startingDeadlineMs: job.startingDeadlineMs,
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
      if (!resumed) return 'done';
      return (await this.#checkpoint(stream, { kind: 'close', watermarkMs }))
        ? this.#catchUp(job, next)
        : 'done';
    }
    if (!resumed) {
      const landed = await this.#checkpoint(stream, { kind: 'open', watermarkMs, untilMs });
      if (!landed && this.#deps.onStoreUnavailable === 'fail-closed') {
        logger.warn(
          `Job ${name}: cannot record the catch-up checkpoint; not backfilling (fail-closed)`,
        );
        return 'done';
      }
    }
    const offsetMs = catchupJitterOffsetMs(name, job.catchupJitterMs);
    logger.info(
      `Job ${name}: catching up ${plan.slots.length} missed run(s) (onMissed ${job.onMissed})` +
        (offsetMs > 0 ? ` after a jitter of ${(offsetMs / 1000).toFixed(3)} seconds` : ''),
    );
    if (offsetMs > 0) await clock.sleep(offsetMs, signal);
    for (const [index, slotMs] of plan.slots.entries()) {
      if (signal.aborted) return 'done';
      const record = await scheduler.runBackfill(name, slotMs, signal);
      // Not run: the checkpoint stays open. A gate that closed meanwhile makes the job pending
      // again (the re-check resumes from that checkpoint); shutdown or a job disabled or removed
      // leaves it to the next start.
      if (record === null) {
        return !signal.aborted && scheduler.backfillGate(name) === 'gate-closed'
          ? 'gate-closed'
          : 'done';
      }
      const last = index === plan.slots.length - 1;
      const landed = await this.#checkpoint(
        stream,
        last
          ? { kind: 'close', watermarkMs: slotMs }
          : { kind: 'open', watermarkMs: slotMs, untilMs },
      );
      // The resumed window is done: what came after it is counted afresh (once).
      if (last && resumed && landed) return this.#catchUp(job, next);
    }
    return 'done';
  }

  /**
   * The durable watermark: the string max of `finished_at` over the ledger, among runs that
   * started before this process's scheduler started (the live loop does not wait for the store,
   * so a slot it fired meanwhile may already be in the ledger, and taking it as the watermark
   * would silently forfeit every slot the downtime owes). A run counts by its start, not its end:
   * on a shared ledger another node's run of a slot before that instant may end after it, and
   * leaving it out would make this node backfill a slot that ran (a double). A row without a
   * start (a reconciled skip row) counts by its end. Null when the ledger has none.
   */
  async #watermark(name: string): Promise<number | null> {
    const { untilMs } = this.#deps;
    const max = await this.#deps.read(
      this.#deps.store.deriveMax(runsStream(name), WATERMARK_FIELD, {
        where: (data) =>
          (parseStoreInstant(data['started_at']) ??
            parseStoreInstant(data[WATERMARK_FIELD]) ??
            Infinity) <= untilMs,
      }),
      `read the watermark of ${name}`,
    );
    return max === undefined ? null : (parseStoreInstant(max.value) ?? null);
  }

  /**
   * The newest start (by untilMs, after `aboveMs`: an older one changes nothing) of a run another
   * daemon process began, its open in-flight record landed, and no ledger row accounts for: its
   * node may have been stopped or killed before the row landed, and its slot must not run twice
   * (docs/clustering.md "Failure modes"). The ledger is read only when such a run exists.
   */
  async #startedElsewhere(name: string, aboveMs: number): Promise<number | null> {
    const { read, store, untilMs, logger } = this.#deps;
    const records = await read(
      store.list(inflightStream(name), { limit: INFLIGHT_READ_MAX }),
      `read the in-flight records of ${name}`,
    );
    const opens = openRunsElsewhere(records, {
      host: this.#deps.host,
      proc: this.#deps.processToken,
    }).filter((open) => open.startedAtMs > aboveMs && open.startedAtMs <= untilMs);
    const oldest = opens[0];
    if (oldest === undefined) return null;
    const accounted = await readAccountedStarts(read, store, name, oldest.startedAtMs);
    const newest = newestUnaccountedStart(opens, accounted, untilMs);
    if (newest !== null) {
      const open = opens.find((each) => each.startedAtMs === newest);
      logger.info(
        `Job ${name}: missed-run catch-up counts the run started at ${isoAt(newest)} on ${open?.host ?? 'another node'} as having run its slot (its in-flight record is open, no completion is recorded yet)`,
      );
    }
    return newest;
  }

  async #checkpoint(stream: string, checkpoint: CatchupCheckpoint): Promise<boolean> {
    const landed = await this.#deps.writeAndWait(
      stream,
      catchupData(checkpoint, this.#deps.clock.now()),
    );
    if (landed) this.#deps.prune(stream, CATCHUP_KEEP);
    return landed;
  }
}
