// Python logging's formatting of a log line, for the `logging` section's formatters
// (docs/configuration.md "logging"): a `format` in any of the three styles (`%(name)s`,
// `{name}`, `$name`) with Python's conversion flags, widths and precisions, and `datefmt` as
// time.strftime reads it (local time; the default `%Y-%m-%d %H:%M:%S,mmm`). Record attributes
// that have no value in this daemon (the caller's file, line, function, ...) render as `?` (or
// 0 for numeric conversions) and are reported by `attributesOf` so the section can warn.
// Pure: the record carries the instant; nothing here reads a clock.
import { MONTH_NAMES, WEEKDAY_NAMES } from '../common/index.js';

/** One log call, with everything a format may name. */
export interface LogRecord {
  readonly name: string;
  /** Python level number: 10 DEBUG, 20 INFO, 30 WARNING, 40 ERROR, 50 CRITICAL. */
  readonly levelno: number;
  readonly message: string;
  /** Wall-clock epoch ms. */
  readonly createdMs: number;
  /** Milliseconds since the logger was created. */
  readonly relativeMs: number;
  /** Structured fields given with the call (job, err, ...). */
  readonly fields: Readonly<Record<string, unknown>>;
}

export type FormatStyle = '%' | '{' | '$';

/** The record attributes a format can use here. */
export const SUPPORTED_ATTRIBUTES: ReadonlySet<string> = new Set([
  'asctime',
  'created',
  'msecs',
  'relativeCreated',
  'levelname',
  'levelno',
  'name',
  'message',
  'process',
  'processName',
  'thread',
  'threadName',
  'taskName',
]);

export const LEVEL_NAMES: Readonly<Record<number, string>> = {
  10: 'DEBUG',
  20: 'INFO',
  30: 'WARNING',
  40: 'ERROR',
  50: 'CRITICAL',
};

const PERCENT_FIELD = /%\((\w+)\)([#0+ -]*)(\d+)?(?:\.(\d+))?([diouxXeEfFgGcrsa%])|%%/g;
const BRACE_FIELD = /\{\{|\}\}|\{(\w+)(?:!([rsa]))?(?::([^{}]*))?\}/g;
const DOLLAR_FIELD = /\$\$|\$\{(\w+)\}|\$(\w+)/g;

/** The attribute names a format uses, in order (duplicates kept once). */
export function attributesOf(format: string, style: FormatStyle): string[] {
  const names: string[] = [];
  const pattern = style === '%' ? PERCENT_FIELD : style === '{' ? BRACE_FIELD : DOLLAR_FIELD;
  for (const match of format.matchAll(pattern)) {
    const name = style === '$' ? (match[1] ?? match[2]) : match[1];
    if (name !== undefined && !names.includes(name)) names.push(name);
  }
  return names;
}

/** Python's Formatter(validate=True): a format must name at least one field of its style. */
export function validateFormat(format: string, style: FormatStyle): string | null {
  if (attributesOf(format, style).length > 0) return null;
  return `Invalid format '${format}' for '${style}' style`;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/** time.strftime over local time; an unknown directive is copied as written. */
export function strftime(pattern: string, epochMs: number): string {
  const date = new Date(epochMs);
  return pattern.replace(/%([a-zA-Z%])/g, (whole, directive: string) => {
    switch (directive) {
      case 'Y':
        return String(date.getFullYear());
      case 'y':
        return pad(date.getFullYear() % 100, 2);
      case 'm':
        return pad(date.getMonth() + 1, 2);
      case 'd':
        return pad(date.getDate(), 2);
      case 'e':
        return String(date.getDate()).padStart(2, ' ');
      case 'H':
        return pad(date.getHours(), 2);
      case 'I':
        return pad(date.getHours() % 12 || 12, 2);
      case 'M':
        return pad(date.getMinutes(), 2);
      case 'S':
        return pad(date.getSeconds(), 2);
      case 'p':
        return date.getHours() < 12 ? 'AM' : 'PM';
      case 'a':
        return WEEKDAY_NAMES[date.getDay()]!.slice(0, 3);
      case 'A':
        return WEEKDAY_NAMES[date.getDay()]!;
      case 'b':
        return MONTH_NAMES[date.getMonth()]!.slice(0, 3);
      case 'B':
        return MONTH_NAMES[date.getMonth()]!;
      case 'j': {
        const start = new Date(date.getFullYear(), 0, 1);
        return pad(Math.floor((date.getTime() - start.getTime()) / 86_400_000) + 1, 3);
      }
      case 'z': {
        const offset = -date.getTimezoneOffset();
        const sign = offset < 0 ? '-' : '+';
        const abs = Math.abs(offset);
        return `${sign}${pad(Math.floor(abs / 60), 2)}${pad(abs % 60, 2)}`;
      }
      case 'Z':
        return (
          new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' })
            .formatToParts(date)
            .find((part) => part.type === 'timeZoneName')?.value ?? ''
        );
      case '%':
        return '%';
      default:
        return whole;
    }
  });
}

/** Python's default asctime: `%Y-%m-%d %H:%M:%S` plus `,mmm`. */
export function asctime(epochMs: number, datefmt: string | null): string {
  if (datefmt !== null) return strftime(datefmt, epochMs);
  const millis = ((epochMs % 1000) + 1000) % 1000;
  return `${strftime('%Y-%m-%d %H:%M:%S', epochMs)},${pad(Math.floor(millis), 3)}`;
}

/** The value of a record attribute; undefined for one this daemon has no value for. */
export function attributeValue(
  record: LogRecord,
  name: string,
  datefmt: string | null,
): string | number | undefined {
  switch (name) {
    case 'asctime':
      return asctime(record.createdMs, datefmt);
    case 'created':
      return record.createdMs / 1000;
    case 'msecs':
      return ((record.createdMs % 1000) + 1000) % 1000;
    case 'relativeCreated':
      return record.relativeMs;
    case 'levelname':
      return LEVEL_NAMES[record.levelno] ?? `Level ${record.levelno}`;
    case 'levelno':
      return record.levelno;
    case 'name':
      return record.name;
    case 'message':
      return record.message;
    case 'process':
      return process.pid;
    case 'processName':
      return 'MainProcess';
    case 'thread':
      return 0;
    case 'threadName':
      return 'MainThread';
    case 'taskName':
      return 'None';
    default:
      return undefined;
  }
}

/** Python's repr() of a str or a number (for the `r` and `a` conversions). */
function reprOf(value: string | number): string {
  if (typeof value === 'number') return String(value);
  return value.includes("'") && !value.includes('"')
    ? `"${value}"`
    : `'${value.replaceAll("'", "\\'")}'`;
}

/** printf-style conversion of one value, as Python's `%` operator does it. */
function percentConvert(
  value: string | number | undefined,
  flags: string,
  width: number,
  precision: number | undefined,
  type: string,
): string {
  let text: string;
  let numeric = false;
  if (value === undefined) {
    text = 'srac'.includes(type) ? '?' : '0';
    numeric = text === '0';
  } else {
    switch (type) {
      case 's':
        text = String(value);
        if (precision !== undefined) text = text.slice(0, precision);
        break;
      case 'r':
      case 'a':
        text = reprOf(value);
        if (precision !== undefined) text = text.slice(0, precision);
        break;
      case 'c':
        text = typeof value === 'number' ? String.fromCodePoint(value) : value.slice(0, 1);
        break;
      default: {
        const number = Number(value);
        numeric = true;
        const sign = number < 0 ? '-' : flags.includes('+') ? '+' : flags.includes(' ') ? ' ' : '';
        const abs = Math.abs(number);
        let digits: string;
        switch (type) {
          case 'd':
          case 'i':
          case 'u':
            digits = Math.trunc(abs).toString();
            break;
          case 'o':
            digits = Math.trunc(abs).toString(8);
            break;
          case 'x':
            digits = Math.trunc(abs).toString(16);
            break;
          case 'X':
            digits = Math.trunc(abs).toString(16).toUpperCase();
            break;
          case 'e':
          case 'E':
            digits = abs.toExponential(precision ?? 6).replace(/e([+-])(\d)$/, 'e$10$2');
            if (type === 'E') digits = digits.toUpperCase();
            break;
          case 'g':
          case 'G':
            digits = String(Number(abs.toPrecision(precision || 6)));
            break;
          default:
            digits = abs.toFixed(precision ?? 6);
        }
        text = sign + digits;
        if (flags.includes('0') && !flags.includes('-') && text.length < width) {
          text = sign + digits.padStart(width - sign.length, '0');
        }
      }
    }
  }
  if (text.length >= width) return text;
  return flags.includes('-')
    ? text.padEnd(width)
    : numeric && flags.includes('0')
      ? text
      : text.padStart(width);
}

/** `str.format` spec subset: [[fill]align][sign][0][width][,][.precision][type]. */
function braceConvert(
  value: string | number | undefined,
  conversion: string | undefined,
  spec: string,
): string {
  let subject: string | number = value ?? '?';
  if (conversion === 'r' || conversion === 'a') subject = reprOf(subject);
  else if (conversion === 's') subject = String(subject);
  const match = /^(?:(.)?([<>^=]))?([+ -])?(0)?(\d+)?(,)?(?:\.(\d+))?([sdfFeEgG%])?$/.exec(spec);
  if (!match) return String(subject);
  const [, fillChar, align, sign, zero, widthText, comma, precisionText, type] = match;
  const width = widthText === undefined ? 0 : Number(widthText);
  const precision = precisionText === undefined ? undefined : Number(precisionText);
  let text: string;
  if (typeof subject === 'number' && type !== 's') {
    const abs = Math.abs(subject);
    let digits =
      type === 'f' || type === 'F'
        ? abs.toFixed(precision ?? 6)
        : type === 'e' || type === 'E'
          ? abs.toExponential(precision ?? 6)
          : type === '%'
            ? `${(abs * 100).toFixed(precision ?? 6)}%`
            : precision !== undefined
              ? String(Number(abs.toPrecision(precision)))
              : String(abs);
    if (comma) digits = digits.replace(/^\d+/, (whole) => whole.replace(/\B(?=(\d{3})+$)/g, ','));
    const signText = subject < 0 ? '-' : sign === '+' ? '+' : sign === ' ' ? ' ' : '';
    text = signText + digits;
    if (zero && align === undefined && text.length < width) {
      text = signText + digits.padStart(width - signText.length, '0');
    }
  } else {
    text = String(subject);
    if (precision !== undefined) text = text.slice(0, precision);
  }
  if (text.length >= width) return text;
  const fill = fillChar ?? ' ';
  const room = width - text.length;
  const effective = align ?? (typeof subject === 'number' ? '>' : '<');
  if (effective === '<') return text + fill.repeat(room);
  if (effective === '^') {
    const left = Math.floor(room / 2);
    return fill.repeat(left) + text + fill.repeat(room - left);
  }
  return fill.repeat(room) + text;
}

/** Render `format` for `record` in `style`. */
export function formatRecord(
  record: LogRecord,
  format: string,
  style: FormatStyle,
  datefmt: string | null,
): string {
  const value = (name: string): string | number | undefined =>
    attributeValue(record, name, datefmt);
  switch (style) {
    case '%':
      return format.replace(
        PERCENT_FIELD,
        (
          whole,
          name: string | undefined,
          flags: string,
          width: string,
          precision: string,
          type: string,
        ) =>
          whole === '%%'
            ? '%'
            : percentConvert(
                value(name ?? ''),
                flags ?? '',
                width === undefined ? 0 : Number(width),
                precision === undefined ? undefined : Number(precision),
                type,
              ),
      );
    case '{':
      return format.replace(
        BRACE_FIELD,
        (
          whole,
          name: string | undefined,
          conversion: string | undefined,
          spec: string | undefined,
        ) =>
          whole === '{{'
            ? '{'
            : whole === '}}'
              ? '}'
              : braceConvert(value(name ?? ''), conversion, spec ?? ''),
      );
    case '$':
      return format.replace(
        DOLLAR_FIELD,
        (whole, braced: string | undefined, bare: string | undefined) => {
          if (whole === '$$') return '$';
          const attribute = value(braced ?? bare ?? '');
          return attribute === undefined ? '?' : String(attribute);
        },
      );
  }
}
