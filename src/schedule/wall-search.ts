// Field-skipping search over civil (wall) time: the first wall second at or after a bound that a
// compiled expression matches. Knows nothing about zones or DST; next-fire.ts maps walls to
// instants.

import {
  SECOND_MS,
  civilFromDays,
  daysFromCivil,
  daysInMonth,
  weekdayOfDays,
  type WallFields,
} from './civil-time.js';
import { nextBit, type CompiledCron } from './compiled-cron.js';
import { YEAR_MAX, YEAR_MIN } from './cron-fields.js';

/** Allowed days (bits 1-31) of one month. */
export function dayMaskOf(cron: CompiledCron, year: number, month: number): number {
  const firstWeekday = weekdayOfDays(daysFromCivil(year, month, 1));
  return cron.dayMasks[firstWeekday * 4 + daysInMonth(year, month) - 28] ?? 0;
}

/** Smallest allowed year >= year (any year when unrestricted), or -1; never past 2099. */
function nextAllowedYear(cron: CompiledCron, year: number): number {
  if (year > YEAR_MAX) return -1;
  if (cron.anyYear) return year;
  if (year < YEAR_MIN) return cron.nextYear[0] ?? -1;
  return cron.nextYear[year - YEAR_MIN] ?? -1;
}

/**
 * The first matching wall second >= fromWallMs (sub-second part rounded up), or null when none
 * exists up to the end of 2099. Each step jumps to the next allowed value of one field and
 * resets the smaller ones, so a call costs a handful of table look-ups, not a tick-by-tick scan.
 */
export function nextMatchingWall(cron: CompiledCron, fromWallMs: number): number | null {
  const fromSeconds = Math.ceil(fromWallMs / SECOND_MS);
  const startDays = Math.floor(fromSeconds / 86_400);
  let secondOfDay = fromSeconds - startDays * 86_400;
  const start = civilFromDays(startDays);
  let year = start.year;
  let month = start.month;
  let day = start.day;
  let hour = Math.floor(secondOfDay / 3600);
  secondOfDay -= hour * 3600;
  let minute = Math.floor(secondOfDay / 60);
  let second = secondOfDay - minute * 60;

  for (;;) {
    const allowedYear = nextAllowedYear(cron, year);
    if (allowedYear < 0) return null;
    if (allowedYear !== year) {
      year = allowedYear;
      month = 1;
      day = 1;
      hour = minute = second = 0;
    }
    const allowedMonth = nextBit(cron.monthMask, month);
    if (allowedMonth < 0) {
      year++;
      month = 1;
      day = 1;
      hour = minute = second = 0;
      continue;
    }
    if (allowedMonth !== month) {
      month = allowedMonth;
      day = 1;
      hour = minute = second = 0;
    }
    const allowedDay = nextBit(dayMaskOf(cron, year, month), day);
    if (allowedDay < 0) {
      month++;
      day = 1;
      hour = minute = second = 0;
      continue; // month 13 finds no bit and rolls the year
    }
    if (allowedDay !== day) {
      day = allowedDay;
      hour = minute = second = 0;
    }
    const allowedHour = nextBit(cron.hourMask, hour);
    if (allowedHour < 0) {
      day++;
      hour = minute = second = 0;
      continue; // a day past the month's end finds no bit and rolls the month
    }
    if (allowedHour !== hour) {
      hour = allowedHour;
      minute = second = 0;
    }
    const allowedMinute = cron.nextMinute[minute] ?? -1;
    if (allowedMinute < 0) {
      hour++;
      minute = second = 0;
      continue;
    }
    if (allowedMinute !== minute) {
      minute = allowedMinute;
      second = 0;
    }
    const allowedSecond = cron.nextSecond[second] ?? -1;
    if (allowedSecond < 0) {
      minute++;
      second = 0;
      continue;
    }
    const days = daysFromCivil(year, month, day);
    return (days * 86_400 + hour * 3600 + minute * 60 + allowedSecond) * SECOND_MS;
  }
}

/** Whether civil fields match the expression (year outside 1970-2099 only if unrestricted). */
export function wallMatches(cron: CompiledCron, wall: WallFields): boolean {
  const yearMatches = cron.anyYear || nextAllowedYear(cron, wall.year) === wall.year;
  return (
    yearMatches &&
    cron.nextSecond[wall.second] === wall.second &&
    cron.nextMinute[wall.minute] === wall.minute &&
    (cron.hourMask & (1 << wall.hour)) !== 0 &&
    (cron.monthMask & (1 << wall.month)) !== 0 &&
    (dayMaskOf(cron, wall.year, wall.month) & (1 << wall.day)) !== 0
  );
}
