// The English month and weekday names, in calendar order (January first, Sunday first), for the
// log line's strftime and the dashboard's cron descriptions. Node-free: the browser bundle
// imports this module directly (docs/architecture.md#layers).
// Must not: depend on the locale (Python's %A/%B under the C locale are these names).

export const MONTH_NAMES: readonly string[] = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

export const WEEKDAY_NAMES: readonly string[] = [
  'Sunday',
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
];
