// Object-form schedules (config.md §7.4) rendered to a cron string; textual only, the parser
// validates the result.

export type ScheduleObject = Partial<
  Record<'second' | 'minute' | 'hour' | 'dayOfMonth' | 'month' | 'dayOfWeek' | 'year', string>
>;

/**
 * Missing keys are '*'. No second and no year: 5 fields; a year only: 6 fields (the 6th is the
 * year); a second: 7 fields (year '*' when absent). A blank second counts as absent, so the job
 * stays minute-granular.
 */
export function renderScheduleObject(obj: ScheduleObject): string {
  const field = (value: string | undefined): string => value ?? '*';
  const dayFields = [obj.minute, obj.hour, obj.dayOfMonth, obj.month, obj.dayOfWeek].map(field);
  const hasSecond = obj.second !== undefined && obj.second.trim() !== '';
  if (hasSecond) return [obj.second, ...dayFields, field(obj.year)].join(' ');
  if (obj.year !== undefined) return [...dayFields, obj.year].join(' ');
  return dayFields.join(' ');
}
