// Proleptic Gregorian calendar arithmetic on plain numbers (no Date, no zones). Wall times are
// handled as "wall milliseconds": the epoch-style number a wall clock reading would have in UTC.

export const SECOND_MS = 1000;
export const DAY_MS = 86_400_000;

/** Days since 1970-01-01 for a civil date (month 1-12); H. Hinnant's days_from_civil. */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const monthIndex = month > 2 ? month - 3 : month + 9;
  const dayOfYear = Math.floor((153 * monthIndex + 2) / 5) + day - 1;
  const dayOfEra =
    yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

export interface CivilDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

/** Inverse of daysFromCivil; H. Hinnant's civil_from_days. */
export function civilFromDays(days: number): CivilDate {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear =
    dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return { year, month, day };
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

const DAYS_IN_MONTH = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

export function daysInMonth(year: number, month: number): number {
  if (month === 2 && isLeapYear(year)) return 29;
  return DAYS_IN_MONTH[month] ?? 31;
}

/** 0 = Sunday … 6 = Saturday for a day count since 1970-01-01 (a Thursday). */
export function weekdayOfDays(days: number): number {
  return (((days + 4) % 7) + 7) % 7;
}

export interface WallFields extends CivilDate {
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

/** Splits wall milliseconds into civil fields; the sub-second part is dropped. */
export function wallFieldsOf(wallMs: number): WallFields {
  const days = Math.floor(wallMs / DAY_MS);
  const secondOfDay = Math.floor((wallMs - days * DAY_MS) / SECOND_MS);
  const { year, month, day } = civilFromDays(days);
  return {
    year,
    month,
    day,
    hour: Math.floor(secondOfDay / 3600),
    minute: Math.floor((secondOfDay % 3600) / 60),
    second: secondOfDay % 60,
  };
}

export function wallMsOf(fields: WallFields): number {
  const days = daysFromCivil(fields.year, fields.month, fields.day);
  return (days * 86_400 + fields.hour * 3600 + fields.minute * 60 + fields.second) * SECOND_MS;
}
