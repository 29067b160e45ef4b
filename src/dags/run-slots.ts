// Which logical dates get runs (docs/dags.md "Runs"): the boot-time catch-up (`onMissed` from
// the newest existing run's logical date, within startingDeadlineSeconds), the forward firing of
// a wake (every slot since the last one, the newest 100), and a backfill window (inclusive, at most
// 100 per call, no deadline). The catch-up stepping and its caps are the jobs' own (durable/).
// Must not: read a clock or the store.
import type { ResolvedDag } from '../config/index.js';
import { newestSlots, planCatchup, RUN_ALL_CAP } from '../durable/index.js';
import { nextFireTime, type Schedule } from '../schedule/index.js';

/** Runs created at most per catch-up, per wake and per backfill call. */
export const RUNS_PER_PASS_CAP = RUN_ALL_CAP;

/** The catch-up slots at boot (oldest first); none without a schedule or an earlier run. */
export function catchupSlots(
  dag: ResolvedDag,
  newestLogicalMs: number | null,
  untilMs: number,
): number[] {
  if (dag.schedule === null || newestLogicalMs === null) return [];
  return [
    ...planCatchup({
      schedule: dag.schedule.schedule,
      onMissed: dag.onMissed,
      watermarkMs: newestLogicalMs,
      untilMs,
      startingDeadlineMs: dag.startingDeadlineMs,
    }).slots,
  ];
}

/** The slots in (afterMs, untilMs], newest RUNS_PER_PASS_CAP, oldest first. */
export function dueSlots(schedule: Schedule, afterMs: number, untilMs: number): number[] {
  return newestSlots(schedule, afterMs, untilMs, RUNS_PER_PASS_CAP);
}

/** The slots in [fromMs, toMs], the first RUNS_PER_PASS_CAP, oldest first. */
export function backfillSlots(schedule: Schedule, fromMs: number, toMs: number): number[] {
  const slots: number[] = [];
  let cursor = fromMs - 1;
  while (slots.length < RUNS_PER_PASS_CAP) {
    const slot = nextFireTime(schedule, cursor);
    if (slot === null || slot > toMs) break;
    slots.push(slot);
    cursor = slot;
  }
  return slots;
}
