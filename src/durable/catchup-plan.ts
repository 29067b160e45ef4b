// Missed-run catch-up as pure functions (docs/durable-state.md "Missed-run catch-up"): which
// slots a downtime owes a job, stepped occurrence by occurrence in the job's own zone
// (DST-correct because the live scheduler's nextFireTime does the stepping), bounded by
// startingDeadlineSeconds and the run-all cap, the watermark they are counted after, and the
// deterministic per-job jitter. No I/O, no clock.
import { crc32 } from '../common/index.js';
import type { OnMissed } from '../config/index.js';
import { nextFireTime, type Schedule } from '../schedule/index.js';

/** run-all replays at most this many slots per cycle (the seed's hard cap). */
export const RUN_ALL_CAP = 100;
/**
 * Counting stops after this many occurrences: a years-long outage of a per-second job would
 * otherwise spend minutes stepping. The slots to launch are then found backwards from the end of
 * the window (newestSlots), and `missed` is only a lower bound.
 */
export const MAX_STEPS = 2_000_000;

export interface CatchupInput {
  readonly schedule: Schedule;
  readonly onMissed: OnMissed;
  /** The durable watermark: slots after it are owed. */
  readonly watermarkMs: number;
  /** The live scheduler fires slots strictly after this instant (its start-up pass). */
  readonly untilMs: number;
  /** Slots older than untilMs minus this are dropped; null = no deadline. */
  readonly startingDeadlineMs: number | null;
}

export interface CatchupPlan {
  /** Slots to launch, oldest first. */
  readonly slots: readonly number[];
  /** Missed slots in the window (after the deadline filter), before coalescing or capping. */
  readonly missed: number;
  /** True when counting stopped at MAX_STEPS: more than `missed` slots were missed. */
  readonly missedIsLowerBound: boolean;
  /** Slots dropped by the run-all cap (or the stepping bound). */
  readonly droppedByCap: number;
  /** Whether slots older than startingDeadlineSeconds were dropped (they are not stepped). */
  readonly droppedByDeadline: boolean;
}

/** What the catch-up watermark is made of, each null when absent. */
export interface WatermarkInput {
  /** An open checkpoint's watermark: a backfill interrupted midway resumes from it, alone. */
  readonly resumeFromMs: number | null;
  /** The newest `finished_at` among the ledger's runs that started by the scheduler's start. */
  readonly ledgerMs: number | null;
  /** A close checkpoint's watermark: slots up to it were backfilled, here or elsewhere. */
  readonly closedAtMs: number | null;
  /**
   * The newest start, by the scheduler's start, of a run another process began (its in-flight
   * open record landed) and no ledger row accounts for (inflight-plan.ts newestUnaccountedStart).
   */
  readonly startedElsewhereMs: number | null;
}

/**
 * The watermark missed slots are counted after: an open checkpoint's when resuming (the ledger
 * then holds backfills' rows, whose instants are not their slots'), else the newest of the ledger's
 * and the open runs' (a run that began covers its slot whether or not its row landed), raised to
 * a close checkpoint's. Null (no reference point: nothing is missed) without a ledger run or an
 * open run.
 */
export function catchupWatermark(input: WatermarkInput): number | null {
  if (input.resumeFromMs !== null) return input.resumeFromMs;
  const ran =
    input.ledgerMs === null
      ? input.startedElsewhereMs
      : input.startedElsewhereMs === null
        ? input.ledgerMs
        : Math.max(input.ledgerMs, input.startedElsewhereMs);
  if (ran === null) return null;
  return input.closedAtMs === null ? ran : Math.max(ran, input.closedAtMs);
}

export function planCatchup(input: CatchupInput): CatchupPlan {
  const none: CatchupPlan = {
    slots: [],
    missed: 0,
    missedIsLowerBound: false,
    droppedByCap: 0,
    droppedByDeadline: false,
  };
  if (input.onMissed === 'skip' || !(input.watermarkMs < input.untilMs)) return none;
  const oldestAllowedMs =
    input.startingDeadlineMs === null ? -Infinity : input.untilMs - input.startingDeadlineMs;
  // Keep only the newest RUN_ALL_CAP slots in a ring: memory stays bounded whatever the outage.
  const keep = input.onMissed === 'run-once' ? 1 : RUN_ALL_CAP;
  const ring: number[] = [];
  let missed = 0;
  let steps = 0;
  let truncated = false;
  // Start stepping at the deadline when it is later than the watermark: what lies before it is
  // dropped without being stepped (that stepping is what a long outage would cost).
  let cursor = input.watermarkMs;
  let droppedByDeadline = false;
  if (oldestAllowedMs > cursor) {
    const first = nextFireTime(input.schedule, cursor);
    droppedByDeadline = first !== null && first < oldestAllowedMs && first <= input.untilMs;
    cursor = Math.ceil(oldestAllowedMs) - 1;
  }
  const windowStartMs = cursor;
  for (;;) {
    const slot = nextFireTime(input.schedule, cursor);
    if (slot === null || slot > input.untilMs) break;
    cursor = slot;
    if (++steps > MAX_STEPS) {
      truncated = true;
      break;
    }
    missed += 1;
    ring.push(slot);
    if (ring.length > keep) ring.shift();
  }
  const slots = truncated ? newestSlots(input.schedule, windowStartMs, input.untilMs, keep) : ring;
  const coalesced = input.onMissed === 'run-once' ? Math.max(0, missed - 1) : 0;
  return {
    slots,
    missed,
    missedIsLowerBound: truncated,
    droppedByCap: Math.max(0, missed - slots.length - coalesced),
    droppedByDeadline,
  };
}

/**
 * The newest `keep` slots in (afterMs, untilMs], oldest first, found without stepping the whole
 * window: a binary search for the latest start from which at most `keep` slots remain (that
 * count only grows as the start moves back), then one short walk. About 50 searches of at most
 * keep + 1 steps each.
 */
export function newestSlots(
  schedule: Schedule,
  afterMs: number,
  untilMs: number,
  keep: number,
): number[] {
  /** Slots after `fromMs` up to untilMs, stopping once there are more than keep. */
  const walk = (fromMs: number): number[] => {
    const found: number[] = [];
    let cursor = fromMs;
    for (;;) {
      const slot = nextFireTime(schedule, cursor);
      if (slot === null || slot > untilMs) return found;
      cursor = slot;
      found.push(slot);
      if (found.length > keep) return found;
    }
  };
  let low = Math.floor(afterMs);
  let high = Math.floor(untilMs);
  const fromStart = walk(low);
  if (fromStart.length <= keep) return fromStart;
  // Invariant: more than keep slots after `low`, at most keep after `high`.
  while (high - low > 1) {
    const middle = Math.floor(low + (high - low) / 2);
    if (walk(middle).length > keep) low = middle;
    else high = middle;
  }
  return walk(high);
}

/**
 * The job's backfill offset in [0, jitterMs): derived from the name alone, so it is the same on
 * every boot and every node (no RNG, no coordination), and the Python reference's
 * `crc32(name) % (jitter * 1000)` milliseconds, so a mixed fleet staggers the same way.
 */
export function catchupJitterOffsetMs(jobName: string, jitterMs: number): number {
  if (!(jitterMs > 0)) return 0;
  return crc32(Buffer.from(jobName, 'utf8')) % Math.floor(jitterMs);
}
