// The compiled form of a cron expression: bitmasks and next-value tables the search and the
// matcher read, plus a canonical signature for equality. Built once per parse; never mutated.

import { YEAR_MAX, YEAR_MIN, type FieldValues } from './cron-fields.js';

export interface CompiledCron {
  /** nextSecond[s] = smallest allowed second >= s, or -1; index 60 is always -1. */
  readonly nextSecond: Int8Array;
  readonly nextMinute: Int8Array;
  /** Bit h set = hour h allowed (bits 0-23). */
  readonly hourMask: number;
  /** Bit m set = month m allowed (bits 1-12). */
  readonly monthMask: number;
  /**
   * Allowed days (bits 1-31) of a month, by its shape: index firstWeekday * 4 + (length - 28).
   * A day is allowed when it matches day-of-month AND day-of-week (the AND rule).
   */
  readonly dayMasks: Uint32Array;
  /** nextYear[y - 1970] = smallest allowed year >= y, or -1; index 130 is always -1. */
  readonly nextYear: Int16Array;
  /** Year unrestricted (`*` or the whole 1970-2099 range): any year matches, even outside it. */
  readonly anyYear: boolean;
  /** Equal signatures = equal expanded sets. */
  readonly signature: string;
}

export interface CronFieldValues {
  readonly second: FieldValues;
  readonly minute: FieldValues;
  readonly hour: FieldValues;
  readonly dayOfMonth: FieldValues;
  readonly month: FieldValues;
  readonly dayOfWeek: FieldValues;
  readonly year: FieldValues;
}

export function compileCron(fields: CronFieldValues): CompiledCron {
  const yearCount = YEAR_MAX - YEAR_MIN + 1;
  const anyYear = fields.year.values.length === yearCount;
  return {
    nextSecond: nextValueTable(fields.second.values, 60),
    nextMinute: nextValueTable(fields.minute.values, 60),
    hourMask: maskOf(fields.hour.values),
    monthMask: maskOf(fields.month.values),
    dayMasks: buildDayMasks(fields.dayOfMonth, fields.dayOfWeek),
    nextYear: nextYearTable(fields.year.values),
    anyYear,
    signature: [
      fields.second.values.join(','),
      fields.minute.values.join(','),
      fields.hour.values.join(','),
      fields.dayOfMonth.values.join(',') + (fields.dayOfMonth.lastDayOfMonth ? ',L' : ''),
      fields.month.values.join(','),
      fields.dayOfWeek.values.join(',') + ';L' + fields.dayOfWeek.lastWeekdays.join(','),
      anyYear ? '*' : fields.year.values.join(','),
    ].join(' '),
  };
}

function nextValueTable(values: readonly number[], size: number): Int8Array {
  const table = new Int8Array(size + 1).fill(-1);
  const allowed = new Set(values);
  for (let value = size - 1, next = -1; value >= 0; value--) {
    if (allowed.has(value)) next = value;
    table[value] = next;
  }
  return table;
}

function nextYearTable(values: readonly number[]): Int16Array {
  const size = YEAR_MAX - YEAR_MIN + 1;
  const table = new Int16Array(size + 1).fill(-1);
  const allowed = new Set(values);
  for (let index = size - 1, next = -1; index >= 0; index--) {
    if (allowed.has(index + YEAR_MIN)) next = index + YEAR_MIN;
    table[index] = next;
  }
  return table;
}

function maskOf(values: readonly number[]): number {
  let mask = 0;
  for (const value of values) mask |= 1 << value;
  return mask;
}

function buildDayMasks(dayOfMonth: FieldValues, dayOfWeek: FieldValues): Uint32Array {
  const days = new Set(dayOfMonth.values);
  const weekdays = new Set(dayOfWeek.values);
  const lastWeekdays = new Set(dayOfWeek.lastWeekdays);
  const masks = new Uint32Array(28);
  for (let firstWeekday = 0; firstWeekday < 7; firstWeekday++) {
    for (let length = 28; length <= 31; length++) {
      let mask = 0;
      for (let day = 1; day <= length; day++) {
        const weekday = (firstWeekday + day - 1) % 7;
        const domMatches = days.has(day) || (dayOfMonth.lastDayOfMonth && day === length);
        const dowMatches = weekdays.has(weekday) || (lastWeekdays.has(weekday) && day + 7 > length);
        if (domMatches && dowMatches) mask |= 1 << day;
      }
      masks[firstWeekday * 4 + length - 28] = mask >>> 0;
    }
  }
  return masks;
}

/** Smallest set bit >= from in a 32-bit mask, or -1. */
export function nextBit(mask: number, from: number): number {
  if (from > 31) return -1;
  const remaining = (mask >>> from) << from;
  if (remaining === 0) return -1;
  return 31 - Math.clz32(remaining & -remaining);
}
