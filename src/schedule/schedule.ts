// The Schedule value (a parsed expression bound to a zone) and the operations on it; pure.

import { SECOND_MS, wallFieldsOf, type WallFields } from './civil-time.js';
import type { CompiledCron } from './compiled-cron.js';
import { nextFireInstant } from './next-fire.js';
import { parseCronExpression } from './parse.js';
import { wallMatches } from './wall-search.js';
import { displayTimezoneName, zoneRulesFor, type ZoneRules } from './zone-offsets.js';

export interface Schedule {
  /** The expression lower-cased with whitespace runs collapsed (nicknames kept as written). */
  readonly expression: string;
  /** IANA zone name or 'UTC'. */
  readonly timezone: string;
  /** True for 7-field expressions (second granularity). */
  readonly hasSeconds: boolean;
  /** Internal: compiled field sets. */
  readonly cron: CompiledCron;
  /** Internal: cached offsets of the zone, shared by every schedule in it. */
  readonly zone: ZoneRules;
}

/**
 * Parses a cron expression (5/6/7 fields or a nickname) for a zone (default 'UTC').
 * Throws YC_ERR_SCHEDULE_INVALID (bad expression, including '@reboot') or
 * YC_ERR_TIMEZONE_UNKNOWN.
 */
export function parseSchedule(expression: string, options?: { timezone?: string }): Schedule {
  const parsed = parseCronExpression(expression);
  const timezoneName = options?.timezone ?? 'UTC';
  const zone = zoneRulesFor(timezoneName);
  return Object.freeze({
    expression: parsed.normalized,
    timezone: displayTimezoneName(timezoneName),
    hasSeconds: parsed.hasSeconds,
    cron: parsed.cron,
    zone,
  });
}

/**
 * The first fire instant strictly after afterEpochMs (its sub-second part ignored), or null
 * when there is none before the end of 2099. DST rules: see next-fire.ts.
 */
export function nextFireTime(schedule: Schedule, afterEpochMs: number): number | null {
  if (!Number.isFinite(afterEpochMs)) {
    throw new RangeError(`nextFireTime needs a finite epoch in ms, got ${afterEpochMs}`);
  }
  return nextFireInstant(schedule.cron, schedule.zone, afterEpochMs);
}

/**
 * Whether the wall-clock reading at epochMs in the schedule's zone matches every field
 * (milliseconds ignored). A plain field match: it says nothing about DST shifts, so the second
 * pass of a repeated hour matches although nextFireTime never fires there, and a spring-forward
 * shifted fire (02:30 firing at 03:30) does not match at 03:30.
 */
export function matchesAt(schedule: Schedule, epochMs: number): boolean {
  return wallMatches(schedule.cron, wallTimeAt(schedule.timezone, epochMs));
}

/** Equal iff both expand to the same sets and run in the same zone. */
export function schedulesEqual(a: Schedule, b: Schedule): boolean {
  return a.cron.signature === b.cron.signature && a.zone.name === b.zone.name;
}

export interface ZonedWallTime extends WallFields {
  /** Wall minus UTC at that instant, in ms (e.g. -14_400_000 for EDT). */
  readonly offsetMs: number;
}

/** The wall-clock reading of an instant in a zone (milliseconds dropped). */
export function wallTimeAt(timezone: string, epochMs: number): ZonedWallTime {
  const instant = Math.floor(epochMs / SECOND_MS) * SECOND_MS;
  const offsetMs = zoneRulesFor(timezone).offsetAt(instant);
  return { ...wallFieldsOf(instant + offsetMs), offsetMs };
}
