// Which slots a due job fires on one wake (docs/schedules.md "The scheduler's time rules"), as a
// pure function of its schedule, its pending slot and the wall clock. It never looks at timers or
// running instances.
import { matchesAt, nextFireTime, type Schedule } from '../schedule/index.js';

/** At or beyond this lateness a due fire is a stall/suspend/clock step, not a slow wake. */
export const LATE_WAKE_THRESHOLD_MS = 10_000;

export interface DueFirePlan {
  /** Slots to fire now, oldest first (sequential per job so its concurrency policy applies). */
  readonly fires: readonly number[];
  /** The job's next fire strictly after every fired slot and after now; null = none left. */
  readonly nextFireAtMs: number | null;
  readonly latenessMs: number;
  /** True when lateness ≥ LATE_WAKE_THRESHOLD_MS (warning, at most one fire, resync). */
  readonly late: boolean;
}

/**
 * Plan the fires of one due job whose pending slot is `slotMs` (≤ nowMs).
 * - lateness < 10 s: replay every occurrence from the slot up to now;
 * - lateness ≥ 10 s: fire once only if now truncated to the job's resolution matches, then
 *   resync to the next occurrence after now (no enumeration of the gap).
 */
export function planDueFires(
  schedule: Schedule,
  slotMs: number,
  nowMs: number,
  resolutionMs: number,
): DueFirePlan {
  const latenessMs = nowMs - slotMs;
  if (latenessMs >= LATE_WAKE_THRESHOLD_MS) {
    const currentSlot = Math.floor(nowMs / resolutionMs) * resolutionMs;
    // Slots before slotMs were fired already (next fires are strictly after fired slots).
    const fires = currentSlot >= slotMs && matchesAt(schedule, currentSlot) ? [currentSlot] : [];
    return { fires, nextFireAtMs: nextFireTime(schedule, nowMs), latenessMs, late: true };
  }
  const fires = [slotMs];
  let previous = slotMs;
  let next = nextFireTime(schedule, previous);
  while (next !== null && next <= nowMs) {
    // The engine promises "strictly after"; never loop on a result that is not.
    if (next <= previous)
      return { fires, nextFireAtMs: nextFireTime(schedule, nowMs), latenessMs, late: false };
    fires.push(next);
    previous = next;
    next = nextFireTime(schedule, previous);
  }
  return { fires, nextFireAtMs: next, latenessMs, late: false };
}

/** A cron job's slot resolution: a whole second for 7-field jobs, else a minute. */
export function slotResolutionMs(secondGranularity: boolean): number {
  return secondGranularity ? 1000 : 60_000;
}
