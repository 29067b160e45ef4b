// Plain-English descriptions of cron expressions (5, 6 or 7 fields and the nicknames of
// docs/schedules.md), e.g. `*/15 9-17 * * mon-fri` -> "every 15 minutes, between 09:00 and
// 17:59, Monday through Friday". Pure. Validation is the schedule engine's job (src/schedule):
// this module describes what it is given and answers null for text it cannot read.
// Must not: claim OR semantics for day of month + day of week (yacron2 requires both to match).

import { MONTH_NAMES as MONTHS, WEEKDAY_NAMES as WEEKDAYS } from '../../common/calendar-names.js';

const MONTH_NAMES = [
  'jan',
  'feb',
  'mar',
  'apr',
  'may',
  'jun',
  'jul',
  'aug',
  'sep',
  'oct',
  'nov',
  'dec',
];
const WEEKDAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

const NICKNAMES: Readonly<Record<string, string>> = {
  '@yearly': 'once a year, at 00:00 on January 1',
  '@annually': 'once a year, at 00:00 on January 1',
  '@monthly': 'once a month, at 00:00 on day 1',
  '@weekly': 'once a week, at 00:00 on Sunday',
  '@daily': 'once a day, at 00:00',
  '@midnight': 'once a day, at 00:00',
  '@hourly': 'once an hour, on the hour',
  '@reboot': 'once, when the daemon starts',
};

/** One comma-separated item of a field, with names turned into numbers. */
type Item =
  | { readonly kind: 'star'; readonly step: number }
  | { readonly kind: 'value'; readonly value: number }
  | { readonly kind: 'range'; readonly from: number; readonly to: number; readonly step: number }
  | { readonly kind: 'from'; readonly from: number; readonly step: number }
  | { readonly kind: 'last' }
  | { readonly kind: 'last-weekday'; readonly from: number; readonly to: number };

type Field = readonly Item[];

interface Fields {
  readonly second: Field;
  readonly minute: Field;
  readonly hour: Field;
  readonly dayOfMonth: Field;
  readonly month: Field;
  readonly dayOfWeek: Field;
  readonly year: Field;
}

/** The English description, or null when the text is not a readable cron expression. */
export function describeCron(expression: string): string | null {
  const normalized = expression.trim().toLowerCase().replace(/\s+/g, ' ');
  if (normalized.startsWith('@')) return NICKNAMES[normalized] ?? null;
  const fields = parseFields(normalized);
  if (fields === null) return null;
  const time = describeTime(fields);
  const parts = [time.text];
  const days = describeDays(fields);
  if (days !== null) parts.push(days);
  else if (time.fixed && !foldsDayIntoMonth(fields)) parts.push('every day');
  const months = describeMonths(fields);
  if (months !== null) parts.push(months);
  const years = describeYears(fields.year);
  if (years !== null) parts.push(years);
  return parts.join(', ');
}

function parseFields(normalized: string): Fields | null {
  const texts = normalized.split(' ');
  let layout: readonly (keyof Fields)[];
  if (texts.length === 5) layout = ['minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek'];
  else if (texts.length === 6)
    layout = ['minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek', 'year'];
  else if (texts.length === 7) {
    layout = ['second', 'minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek', 'year'];
  } else return null;
  const parsed: Record<keyof Fields, Field> = {
    second: [{ kind: 'value', value: 0 }],
    minute: [{ kind: 'star', step: 1 }],
    hour: [{ kind: 'star', step: 1 }],
    dayOfMonth: [{ kind: 'star', step: 1 }],
    month: [{ kind: 'star', step: 1 }],
    dayOfWeek: [{ kind: 'star', step: 1 }],
    year: [{ kind: 'star', step: 1 }],
  };
  for (let index = 0; index < layout.length; index++) {
    const name = layout[index]!;
    const field = parseField(texts[index]!, name);
    if (field === null) return null;
    parsed[name] = field;
  }
  return parsed;
}

function parseField(text: string, name: keyof Fields): Field | null {
  const names = name === 'month' ? MONTH_NAMES : name === 'dayOfWeek' ? WEEKDAY_NAMES : [];
  const offset = name === 'month' ? 1 : 0;
  const number = (part: string): number | null => {
    if (/^\d+$/.test(part)) return Number(part);
    const index = names.indexOf(part);
    return index === -1 ? null : index + offset;
  };
  const items: Item[] = [];
  for (const part of text.split(',')) {
    const last = /^l(?:(\d)(?:-(\d))?)?$/.exec(part);
    if (last !== null) {
      if (last[1] === undefined) items.push({ kind: 'last' });
      else {
        const from = Number(last[1]) % 7;
        items.push({ kind: 'last-weekday', from, to: Number(last[2] ?? last[1]) % 7 });
      }
      continue;
    }
    const [base = '', stepText, extra] = part.split('/');
    if (extra !== undefined || (stepText !== undefined && !/^\d+$/.test(stepText))) return null;
    const step = stepText === undefined ? 1 : Number(stepText);
    if (base === '*') items.push({ kind: 'star', step });
    else if (base.includes('-')) {
      const [fromText = '', toText = ''] = base.split('-');
      const from = number(fromText);
      let to = number(toText);
      if (from === null || to === null) return null;
      if (name === 'dayOfWeek' && to === 0) to = 7;
      items.push({ kind: 'range', from, to, step });
    } else {
      const value = number(base);
      if (value === null) return null;
      items.push(
        stepText === undefined ? { kind: 'value', value } : { kind: 'from', from: value, step },
      );
    }
  }
  return items;
}

const isStar = (field: Field): boolean =>
  field.length === 1 && field[0]!.kind === 'star' && field[0]!.step === 1;

/** The plain values of a field made only of single values, else null. */
function singles(field: Field): number[] | null {
  const values: number[] = [];
  for (const item of field) {
    if (item.kind !== 'value') return null;
    values.push(item.value);
  }
  return values;
}

function pad2(value: number): string {
  return String(value).padStart(2, '0');
}

/** `a`, `a and b`, `a, b and c`. */
export function joinList(words: readonly string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]!}`;
}

function ordinalStep(step: number): string {
  if (step === 2) return 'every other';
  const tens = step % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][step % 10] ?? 'th');
  return `every ${step}${suffix}`;
}

interface TimeText {
  readonly text: string;
  /** Fires at fixed times of day (so "every day" reads well after it). */
  readonly fixed: boolean;
}

function describeTime(fields: Fields): TimeText {
  const seconds = singles(fields.second);
  const minutes = singles(fields.minute);
  const hours = singles(fields.hour);
  if (seconds !== null && minutes !== null && hours !== null) {
    const times: string[] = [];
    for (const h of hours) {
      for (const m of minutes) {
        for (const s of seconds)
          times.push(
            `${pad2(h)}:${pad2(m)}${s === 0 && seconds.length === 1 ? '' : `:${pad2(s)}`}`,
          );
      }
    }
    if (times.length <= 6) return { text: `at ${joinList(times)}`, fixed: true };
  }
  const parts: string[] = [];
  const secondPhrase =
    seconds !== null && seconds.length === 1 && seconds[0] === 0
      ? null
      : unitPhrase(fields.second, 'second', 'minute');
  if (secondPhrase !== null) parts.push(secondPhrase);
  if (!(secondPhrase !== null && isStar(fields.minute))) {
    parts.push(unitPhrase(fields.minute, 'minute', 'hour'));
  }
  const hourPhrase = hourText(fields.hour);
  if (hourPhrase !== null) parts.push(hourPhrase);
  return { text: parts.join(', '), fixed: false };
}

/** Seconds within a minute, or minutes within an hour. */
function unitPhrase(field: Field, unit: 'second' | 'minute', within: 'minute' | 'hour'): string {
  const values = singles(field);
  if (values !== null) {
    if (unit === 'minute' && values.length === 1 && values[0] === 0) return 'on the hour';
    const unitText = values.length === 1 && values[0] === 1 ? unit : `${unit}s`;
    return `at ${joinList(values.map(String))} ${unitText} past the ${within}`;
  }
  if (field.length === 1) {
    const item = field[0]!;
    switch (item.kind) {
      case 'star':
        return item.step === 1 ? `every ${unit}` : `every ${item.step} ${unit}s`;
      case 'range':
        return `${item.step === 1 ? `every ${unit}` : `every ${item.step} ${unit}s`} from ${item.from} through ${item.to} past the ${within}`;
      case 'from':
        return `every ${item.step} ${unit}s starting at ${item.from} past the ${within}`;
      case 'value':
      case 'last':
      case 'last-weekday':
        break;
    }
  }
  return `at ${unit}s ${field.map(itemText).join(', ')} past the ${within}`;
}

function hourText(field: Field): string | null {
  if (isStar(field)) return null;
  const values = singles(field);
  if (values !== null) {
    if (values.length === 1) return `between ${pad2(values[0]!)}:00 and ${pad2(values[0]!)}:59`;
    return `during the hours ${joinList(values.map((h) => `${pad2(h)}:00`))}`;
  }
  if (field.length === 1) {
    const item = field[0]!;
    if (item.kind === 'star') return `every ${item.step} hours`;
    if (item.kind === 'range') {
      const span = `between ${pad2(item.from)}:00 and ${pad2(item.to)}:59`;
      return item.step === 1 ? span : `every ${item.step} hours ${span}`;
    }
    if (item.kind === 'from') return `every ${item.step} hours from ${pad2(item.from)}:00`;
  }
  return `during the hours ${field.map(itemText).join(', ')}`;
}

function itemText(item: Item): string {
  switch (item.kind) {
    case 'star':
      return item.step === 1 ? '*' : `*/${item.step}`;
    case 'value':
      return String(item.value);
    case 'range':
      return item.step === 1 ? `${item.from}-${item.to}` : `${item.from}-${item.to}/${item.step}`;
    case 'from':
      return `${item.from}/${item.step}`;
    case 'last':
      return 'L';
    case 'last-weekday':
      return item.from === item.to ? `L${item.from}` : `L${item.from}-${item.to}`;
  }
}

function dayOfMonthText(field: Field): string {
  const words: string[] = [];
  const plain: string[] = [];
  for (const item of field) {
    switch (item.kind) {
      case 'last':
        words.push('the last day');
        break;
      case 'value':
        plain.push(String(item.value));
        break;
      case 'range':
        if (item.step === 1) plain.push(`${item.from} to ${item.to}`);
        else words.push(`${ordinalStep(item.step)} day from ${item.from} to ${item.to}`);
        break;
      case 'star':
        words.push(`${ordinalStep(item.step)} day`);
        break;
      case 'from':
        words.push(`${ordinalStep(item.step)} day from day ${item.from}`);
        break;
      case 'last-weekday':
        words.push(itemText(item));
        break;
    }
  }
  if (plain.length > 0) {
    const single = plain.length === 1 && !plain[0]!.includes(' ');
    words.unshift(`${single ? 'day' : 'days'} ${joinList(plain)}`);
  }
  return `on ${joinList(words)} of the month`;
}

function weekdayName(day: number): string {
  return WEEKDAYS[day % 7]!;
}

function dayOfWeekText(field: Field): string {
  const words: string[] = [];
  for (const item of field) {
    switch (item.kind) {
      case 'value':
        words.push(weekdayName(item.value));
        break;
      case 'range':
        if (item.step === 1)
          words.push(`${weekdayName(item.from)} through ${weekdayName(item.to)}`);
        else
          words.push(
            `${ordinalStep(item.step)} day from ${weekdayName(item.from)} through ${weekdayName(item.to)}`,
          );
        break;
      case 'last-weekday':
        words.push(
          item.from === item.to
            ? `the last ${weekdayName(item.from)} of the month`
            : `the last ${weekdayName(item.from)} through ${weekdayName(item.to)} of the month`,
        );
        break;
      case 'star':
        words.push(`${ordinalStep(item.step)} day of the week`);
        break;
      case 'from':
        words.push(`${ordinalStep(item.step)} day of the week from ${weekdayName(item.from)}`);
        break;
      case 'last':
        words.push('L');
        break;
    }
  }
  return joinList(words);
}

/** `0 0 1 1 *` reads "on January 1": one day of one month, any weekday. */
function foldsDayIntoMonth(fields: Fields): boolean {
  const months = singles(fields.month);
  const days = singles(fields.dayOfMonth);
  return months?.length === 1 && days?.length === 1 && isStar(fields.dayOfWeek);
}

function describeDays(fields: Fields): string | null {
  const anyMonthDay = isStar(fields.dayOfMonth);
  const anyWeekday = isStar(fields.dayOfWeek);
  if ((anyMonthDay && anyWeekday) || foldsDayIntoMonth(fields)) return null;
  if (anyWeekday) return dayOfMonthText(fields.dayOfMonth);
  const weekdays = dayOfWeekText(fields.dayOfWeek);
  if (anyMonthDay) return `on ${weekdays}`;
  const also = weekdays.startsWith('the last') ? weekdays : `a ${weekdays}`;
  return `${dayOfMonthText(fields.dayOfMonth)}, only when it is ${also}`;
}

function describeMonths(fields: Fields): string | null {
  if (foldsDayIntoMonth(fields)) {
    const month = singles(fields.month)![0]!;
    return `on ${MONTHS[month - 1] ?? String(month)} ${singles(fields.dayOfMonth)![0]!}`;
  }
  const field = fields.month;
  if (isStar(field)) return null;
  const words = field.map((item) => {
    const name = (month: number): string => MONTHS[month - 1] ?? String(month);
    switch (item.kind) {
      case 'value':
        return name(item.value);
      case 'range':
        return item.step === 1
          ? `${name(item.from)} through ${name(item.to)}`
          : `${ordinalStep(item.step)} month from ${name(item.from)} through ${name(item.to)}`;
      case 'star':
        return `${ordinalStep(item.step)} month`;
      case 'from':
        return `${ordinalStep(item.step)} month from ${name(item.from)}`;
      case 'last':
      case 'last-weekday':
        return itemText(item);
    }
  });
  return `in ${joinList(words)}`;
}

function describeYears(field: Field): string | null {
  if (isStar(field)) return null;
  const words = field.map((item) => {
    switch (item.kind) {
      case 'value':
        return String(item.value);
      case 'range':
        return item.step === 1
          ? `${item.from} through ${item.to}`
          : `every ${item.step} years from ${item.from} through ${item.to}`;
      case 'star':
        return `every ${item.step} years`;
      case 'from':
        return `every ${item.step} years from ${item.from}`;
      case 'last':
      case 'last-weekday':
        return itemText(item);
    }
  });
  return `in ${joinList(words)}`;
}
