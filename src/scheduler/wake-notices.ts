// What the loop says about a wake that was not on time: a due job woken 10 s or more late
// (docs/schedules.md "The scheduler's time rules"), and a wall clock that stepped beyond monotonic progress
// since the timer was armed. Log lines and events only; the loop decides what fires.
import { formatSeconds, type TypedEmitter } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { ResolvedJob } from '../config/index.js';
import type { DueFirePlan } from './fire-plan.js';
import type { SchedulerEvents } from './types.js';

/** A wall-clock step beyond monotonic progress larger than this is reported as a jump. */
const CLOCK_JUMP_TOLERANCE_MS = 1_000;

export interface WakeNoticeContext {
  readonly logger: Logger;
  readonly events: TypedEmitter<SchedulerEvents>;
}

export function reportLateWake(
  { logger, events }: WakeNoticeContext,
  job: ResolvedJob,
  slotMs: number,
  fire: DueFirePlan,
): void {
  logger.warn(
    `Job ${job.name}: scheduler woke ${formatSeconds(fire.latenessMs)} seconds late for its ${new Date(slotMs).toISOString()} slot; ` +
      (fire.fires.length > 0
        ? 'firing the current slot once'
        : 'the current slot does not match, not firing') +
      ' and resyncing',
  );
  events.emit('schedule:late', {
    jobName: job.name,
    scheduledAtMs: slotMs,
    latenessMs: fire.latenessMs,
    firedOnce: fire.fires.length > 0,
    nextFireAtMs: fire.nextFireAtMs,
  });
}

/** `expectedMs` = the wall clock at arming plus the monotonic time elapsed since. */
export function noticeClockJump(
  { logger, events }: WakeNoticeContext,
  nowMs: number,
  expectedMs: number,
): void {
  const deltaMs = nowMs - expectedMs;
  if (Math.abs(deltaMs) <= CLOCK_JUMP_TOLERANCE_MS) return;
  const direction = deltaMs > 0 ? 'forward' : 'backward';
  logger.warn(
    direction === 'backward'
      ? `Wall clock stepped backwards by ${formatSeconds(-deltaMs)} seconds; pending fires wait for their slots`
      : `Wall clock stepped forwards by ${formatSeconds(deltaMs)} seconds`,
  );
  events.emit('clock:jumped', { direction, deltaMs });
}
