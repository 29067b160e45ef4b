// Parses one cron field (list, range, step, names, L items) into a set of values; knows the
// field ranges and names, nothing about whole expressions or time.

export const FIELD_NAMES = [
  'second',
  'minute',
  'hour',
  'dayOfMonth',
  'month',
  'dayOfWeek',
  'year',
] as const;

export type FieldName = (typeof FIELD_NAMES)[number];

interface FieldSpec {
  readonly label: string;
  readonly min: number;
  readonly max: number;
  /** Where `*` ends (day of week: 6, although 7 is accepted and means Sunday). */
  readonly starMax: number;
  /** Day of week: a range ending in 0 (Sunday) reads its end as 7. */
  readonly rangeEndZeroIsSeven: boolean;
  readonly names: Readonly<Record<string, number>>;
}

const MONTH_NAMES = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
} as const;

const WEEKDAY_NAMES = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } as const;

export const YEAR_MIN = 1970;
export const YEAR_MAX = 2099;

const FIELD_SPECS: Readonly<Record<FieldName, FieldSpec>> = {
  second: { label: 'second', min: 0, max: 59, starMax: 59, rangeEndZeroIsSeven: false, names: {} },
  minute: { label: 'minute', min: 0, max: 59, starMax: 59, rangeEndZeroIsSeven: false, names: {} },
  hour: { label: 'hour', min: 0, max: 23, starMax: 23, rangeEndZeroIsSeven: false, names: {} },
  dayOfMonth: {
    label: 'day of month',
    min: 1,
    max: 31,
    starMax: 31,
    rangeEndZeroIsSeven: false,
    names: {},
  },
  month: {
    label: 'month',
    min: 1,
    max: 12,
    starMax: 12,
    rangeEndZeroIsSeven: false,
    names: MONTH_NAMES,
  },
  dayOfWeek: {
    label: 'day of week',
    min: 0,
    max: 7,
    starMax: 6,
    rangeEndZeroIsSeven: true,
    names: WEEKDAY_NAMES,
  },
  year: {
    label: 'year',
    min: YEAR_MIN,
    max: YEAR_MAX,
    starMax: YEAR_MAX,
    rangeEndZeroIsSeven: false,
    names: {},
  },
};

/** A parsed field: plain values (day of week normalised to 0-6) plus the L items. */
export interface FieldValues {
  readonly values: readonly number[];
  /** Day of month: the bare `L` item (last day of the month). */
  readonly lastDayOfMonth: boolean;
  /** Day of week: weekdays 0-6 named by `L<n>` / `L<a>-<b>` (last such weekday of the month). */
  readonly lastWeekdays: readonly number[];
}

/** A grammar violation; parse.ts wraps it into YC_ERR_SCHEDULE_INVALID with the expression. */
export class CronSyntaxError extends Error {
  override readonly name = 'CronSyntaxError';
}

export function parseField(field: FieldName, text: string): FieldValues {
  const spec = FIELD_SPECS[field];
  const values = new Set<number>();
  const lastWeekdays = new Set<number>();
  let lastDayOfMonth = false;
  for (const item of text.split(',')) {
    if (item === '') throw new CronSyntaxError(`empty item in ${spec.label} list '${text}'`);
    if (item.startsWith('l')) {
      if (field === 'dayOfMonth') {
        if (item !== 'l') {
          throw new CronSyntaxError(
            `'${item}' is not supported in day of month: L must stand alone (e.g. 'L' or 'L,15')`,
          );
        }
        lastDayOfMonth = true;
      } else if (field === 'dayOfWeek') {
        for (const weekday of parseLastWeekdayItem(item)) lastWeekdays.add(weekday);
      } else {
        throw new CronSyntaxError(`L is not allowed in ${spec.label} ('${item}')`);
      }
      continue;
    }
    for (const value of parseItem(spec, item)) {
      values.add(field === 'dayOfWeek' && value === 7 ? 0 : value);
    }
  }
  return {
    values: [...values].sort((a, b) => a - b),
    lastDayOfMonth,
    lastWeekdays: [...lastWeekdays].sort((a, b) => a - b),
  };
}

/** `L<n>` or `L<a>-<b>`, numeric 0-7 only; a reversed range is accepted and matches nothing. */
function parseLastWeekdayItem(item: string): number[] {
  if (item === 'l') {
    throw new CronSyntaxError(
      "bare L is not allowed in day of week: use L<n>, e.g. 'L5' for the last Friday",
    );
  }
  const match = /^l(\d+)(?:-(\d+))?$/.exec(item);
  if (match === null) {
    throw new CronSyntaxError(
      `'${item}' is not a valid day of week L item: use L<n> or L<a>-<b> with numbers 0-7`,
    );
  }
  const start = Number(match[1]);
  const end = match[2] === undefined ? start : Number(match[2]);
  for (const value of [start, end]) {
    if (value > 7) throw new CronSyntaxError(`day of week ${value} is out of range 0-7`);
  }
  const weekdays: number[] = [];
  for (let value = start; value <= end; value++) weekdays.push(value % 7);
  return weekdays;
}

function parseItem(spec: FieldSpec, item: string): number[] {
  const slashParts = item.split('/');
  if (slashParts.length > 2) {
    throw new CronSyntaxError(`'${item}' has more than one '/' in ${spec.label}`);
  }
  const [base = '', stepText] = slashParts;
  let start: number;
  let end: number;
  if (base === '*') {
    start = spec.min;
    end = spec.starMax;
  } else if (base.includes('-')) {
    const bounds = base.split('-');
    if (bounds.length !== 2) {
      throw new CronSyntaxError(`'${base}' is not a valid ${spec.label} range`);
    }
    start = parseValue(spec, bounds[0] ?? '');
    end = parseValue(spec, bounds[1] ?? '');
    // Day of week: a range ending in Sunday-as-0 reads the end as 7 (`sat-sun`, `0-0` = all).
    if (spec.rangeEndZeroIsSeven && end === 0) end = 7;
    if (start > end) throw new CronSyntaxError(`${spec.label} range ${base} is reversed`);
  } else {
    start = parseValue(spec, base);
    end = stepText === undefined ? start : spec.starMax; // `a/n` runs to where `*` ends
  }
  const step = stepText === undefined ? 1 : parseStep(spec, stepText, start);
  const values: number[] = [];
  for (let value = start; value <= end; value += step) values.push(value);
  return values;
}

function parseStep(spec: FieldSpec, text: string, start: number): number {
  if (!/^\d+$/.test(text)) {
    throw new CronSyntaxError(`step '${text}' in ${spec.label} is not a whole number`);
  }
  const step = Number(text);
  if (step < 1) throw new CronSyntaxError(`step ${step} in ${spec.label} must be at least 1`);
  // The step must land at least once more inside the field: `*/12` month, `58/5` minute fail.
  if (step > spec.max || start + step > spec.max) {
    throw new CronSyntaxError(`step ${step} is too large for ${spec.label}`);
  }
  return step;
}

function parseValue(spec: FieldSpec, text: string): number {
  let value: number | undefined;
  if (/^\d+$/.test(text)) {
    value = Number(text);
  } else {
    value = spec.names[text];
    if (value === undefined) throw new CronSyntaxError(describeBadValue(spec, text));
  }
  if (value < spec.min || value > spec.max) {
    throw new CronSyntaxError(`${spec.label} ${text} is out of range ${spec.min}-${spec.max}`);
  }
  return value;
}

function describeBadValue(spec: FieldSpec, text: string): string {
  if (text === '') return `missing value in ${spec.label}`;
  if (text.includes('#')) return `'#' (nth weekday) is not supported ('${text}')`;
  if (text.includes('?')) return `'?' is not supported ('${text}'); use '*'`;
  if (/^\d+l$/.test(text)) return `'${text}' is not supported: write L<n> in day of week`;
  if (/^\d*w$/.test(text)) return `W (nearest weekday) is not supported ('${text}')`;
  if (text === 'h' || text.startsWith('h(')) return `H (hashed values) is not supported`;
  if (text === 'r') return `R (random values) is not supported`;
  return `'${text}' is not a valid ${spec.label} value`;
}
