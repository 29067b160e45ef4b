// Schedule text as written in a configuration (docs/schedules.md): object-form
// schedules rendered to a cron string, and the whitespace rule for string schedules. Textual
// only; the parser validates the result.

export type ScheduleObject = Partial<
  Record<'second' | 'minute' | 'hour' | 'dayOfMonth' | 'month' | 'dayOfWeek' | 'year', string>
>;

/**
 * The reference's rendering, kept verbatim for the job identity: missing keys are '*', values
 * are joined with single spaces exactly as written (not trimmed). A `second` key, even blank,
 * gives 7 fields (year '*' when absent); else a `year` gives 6 fields; else 5.
 */
export function renderScheduleObjectVerbatim(obj: ScheduleObject): string {
  const field = (value: string | undefined): string => value ?? '*';
  const dayFields = [obj.minute, obj.hour, obj.dayOfMonth, obj.month, obj.dayOfWeek].map(field);
  if (obj.second !== undefined) return [obj.second, ...dayFields, field(obj.year)].join(' ');
  if (obj.year !== undefined) return [...dayFields, obj.year].join(' ');
  return dayFields.join(' ');
}

/**
 * The rendering used to run the schedule: as verbatim, except that a blank `second` counts as
 * absent, so the job stays minute-granular with 5 (or 6) fields.
 */
export function renderScheduleObject(obj: ScheduleObject): string {
  if (obj.second === undefined || collapseScheduleWhitespace(obj.second) !== '') {
    return renderScheduleObjectVerbatim(obj);
  }
  const { second: _blank, ...rest } = obj;
  return renderScheduleObjectVerbatim(rest);
}

// Python's str.split() whitespace, which the reference splits schedule strings on: ASCII
// whitespace, \x1c-\x1f, \x85 and Unicode spaces — but not U+FEFF, unlike JavaScript's \s.
const PYTHON_WHITESPACE =
  // eslint-disable-next-line no-control-regex -- the separators include control characters
  /[\t\n\v\f\r \x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/** Runs of whitespace collapsed to one space, ends trimmed (`"0\t0  * * *"` → `"0 0 * * *"`). */
export function collapseScheduleWhitespace(text: string): string {
  return text
    .split(PYTHON_WHITESPACE)
    .filter((part) => part !== '')
    .join(' ');
}
