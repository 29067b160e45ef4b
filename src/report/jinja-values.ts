// How Jinja (Python) prints template values, for nunjucks to match: `{{ x }}` is Python's
// str(x) (None, True, False, ['a', 'b']) and `tojson` is Jinja's htmlsafe json.dumps (sorted
// keys, ASCII only, `<`, `>`, `&`, `'` as \u00XX). Pure functions; no nunjucks import here.
import { compareCodePoints, pythonJsonString } from '../common/index.js';

/** A marked-safe nunjucks string (runtime.SafeString): printed as its text. */
export interface SafeStringLike {
  toString(): string;
}

/** Python's str() of a template value; undefined (Jinja's Undefined) prints as ''. */
export function toPythonText(value: unknown, isSafeString?: (value: object) => boolean): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && isSafeString?.(value)) {
    return (value as SafeStringLike).toString();
  }
  return toPythonRepr(value);
}

/** Python's repr() of a template value (strings quoted, containers recursive). */
export function toPythonRepr(value: unknown): string {
  if (value === undefined || value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return reprString(value);
  if (typeof value === 'number') return formatPythonNumber(value, 'repr');
  if (Array.isArray(value)) return `[${value.map((item) => toPythonRepr(item)).join(', ')}]`;
  if (isPlainObject(value)) {
    const entries = Object.entries(value).map(
      ([key, item]) => `${reprString(key)}: ${toPythonRepr(item)}`,
    );
    return `{${entries.join(', ')}}`;
  }
  return textOf(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/** Python's str repr: single quotes unless the text holds `'` and no `"`. */
function reprString(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '\\') out += '\\\\';
    else if (char === quote) out += `\\${quote}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (code < 0x20 || (code >= 0x7f && code <= 0xa0)) out += `\\x${hex(code, 2)}`;
    else if (code >= 0xd800 && code <= 0xdfff) out += `\\u${hex(code, 4)}`;
    else out += char;
  }
  return out + quote;
}

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
}

/**
 * A JS number as Python prints it. Integral values print as ints (JS cannot tell 2 from 2.0);
 * others use float repr: the shortest round-tripping digits, exponent form below 1e-4 and from
 * 1e16 on, with a sign and at least two exponent digits (`1e-05`, `1.5e+16`).
 */
function formatPythonNumber(value: number, style: 'repr' | 'json'): string {
  if (Number.isNaN(value)) return style === 'json' ? 'NaN' : 'nan';
  if (!Number.isFinite(value)) {
    const sign = value < 0 ? '-' : '';
    return sign + (style === 'json' ? 'Infinity' : 'inf');
  }
  if (Number.isInteger(value) && Math.abs(value) < 1e21) {
    return Object.is(value, -0) ? '-0.0' : value.toFixed(0);
  }
  const [mantissa = '0', exponentText = '0'] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 16) {
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return textOf(value);
}

export interface ToJsonOptions {
  /** Python's `indent=`: pretty-print with this many spaces per level. */
  readonly indent?: number | null;
}

/** Jinja's `tojson`: json.dumps(value, sort_keys=True) made safe for HTML and quotes. */
export function toJinjaJson(value: unknown, options: ToJsonOptions = {}): string {
  const indent = options.indent ?? null;
  return dumpJson(value, indent, 0)
    .replaceAll('<', '\\u003c')
    .replaceAll('>', '\\u003e')
    .replaceAll('&', '\\u0026')
    .replaceAll("'", '\\u0027');
}

function dumpJson(value: unknown, indent: number | null, depth: number): string {
  if (value === undefined || value === null) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'number') return formatPythonNumber(value, 'json');
  if (typeof value === 'string') return pythonJsonString(value);
  if (Array.isArray(value)) {
    return dumpContainer(
      '[',
      ']',
      value.map((item) => (level: number) => dumpJson(item, indent, level)),
      indent,
      depth,
    );
  }
  if (typeof value === 'object') {
    // A nunjucks SafeString (or any other object with its own toString) dumps as its text.
    if (!isPlainObject(value)) return pythonJsonString(textOf(value));
    const keys = Object.keys(value).sort(compareCodePoints);
    return dumpContainer(
      '{',
      '}',
      keys.map(
        (key) => (level: number) =>
          `${pythonJsonString(key)}: ${dumpJson(value[key], indent, level)}`,
      ),
      indent,
      depth,
    );
  }
  return pythonJsonString(textOf(value));
}

function dumpContainer(
  open: string,
  close: string,
  items: readonly ((depth: number) => string)[],
  indent: number | null,
  depth: number,
): string {
  if (items.length === 0) return open + close;
  if (indent === null) return open + items.map((item) => item(depth + 1)).join(', ') + close;
  const inner = '\n' + ' '.repeat(indent * (depth + 1));
  const outer = '\n' + ' '.repeat(indent * depth);
  return open + inner + items.map((item) => item(depth + 1)).join(',' + inner) + outer + close;
}

/** String() of any value, using an object's own toString when it has one. */
export function textOf(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'undefined':
      return String(value);
    case 'symbol':
      return value.toString();
    case 'function':
      return '[function]';
    case 'object': {
      if (value === null) return 'null';
      const { toString } = value as { toString?: unknown };
      const text: unknown = typeof toString === 'function' ? toString.call(value) : undefined;
      return typeof text === 'string' ? text : Object.prototype.toString.call(value);
    }
  }
}
