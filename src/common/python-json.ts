// Python's `json.dumps(value, sort_keys=True, separators=(',', ':'))` byte for byte (stdlib json,
// ensure_ascii on): the Python reference writes every state-store file this way, and files both
// implementations share must be identical (docs/durable-state-store.md "The durable store: on-disk
// model"). Keys sort by code point at every level, non-ASCII is `\uXXXX`-escaped (lower-case hex,
// surrogate pairs for astral characters), integers print as integers and floats as Python's repr
// (`0.0`, `1e-05`, `1e+16`). JavaScript has one number type, so an integral value prints as an int
// unless it is wrapped in PyFloat, which marks a field the reference writes as a float. Values go
// through toJSON / undefined-dropping exactly as JSON.stringify does. Pure. Must not: accept NaN or
// ±Infinity (the reference refuses them at write), or do I/O.

/** A number the reference writes as a Python float even when it is integral (`0.0`, `30.0`). */
export class PyFloat {
  readonly value: number;

  constructor(value: number) {
    this.value = value;
  }

  /** JSON.stringify and JSON round trips see the plain number. */
  toJSON(): number {
    return this.value;
  }
}

export function pyFloat(value: number): PyFloat {
  return new PyFloat(value);
}

/**
 * Text that is already the reference's bytes for some value (the caller's promise, e.g. an
 * earlier dumpPythonJson result), written as is: lets a caller reuse the unchanged parts of a
 * large document instead of dumping them again.
 */
export class RawPythonJson {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }
}

/** Python's repr() of a float (finite only). */
export function pythonFloatRepr(value: number): string {
  if (!Number.isFinite(value)) throw new TypeError(`${value} has no JSON form`);
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const [mantissa = '0', exponentText = '0'] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 16) {
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  // In this range JavaScript prints fixed notation with the same shortest digits as Python;
  // only an integral value lacks Python's `.0`.
  return Number.isInteger(value) ? `${value.toFixed(0)}.0` : String(value);
}

const TWO_POW_64 = 2 ** 64;

/** A JS number as the reference would have written it: ints as ints, the rest as floats. */
function numberText(value: number): string {
  // Safe integers print alike in both languages (String(-0) is '0' too).
  if (Number.isSafeInteger(value)) return String(value);
  if (!Number.isFinite(value)) throw new TypeError(`${value} has no JSON form`);
  if (Number.isInteger(value) && Math.abs(value) < TWO_POW_64) return BigInt(value).toString();
  return pythonFloatRepr(value);
}

/** Only printable ASCII other than `"` and `\`: the common case needs no escaping. */
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** A JSON string literal as Python's ensure_ascii encoder writes it. */
export function pythonJsonString(text: string): string {
  if (PLAIN_ASCII.test(text)) return `"${text}"`;
  let out = '"';
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22) out += '\\"';
    else if (code === 0x5c) out += '\\\\';
    else if (code === 0x0a) out += '\\n';
    else if (code === 0x0d) out += '\\r';
    else if (code === 0x09) out += '\\t';
    else if (code === 0x08) out += '\\b';
    else if (code === 0x0c) out += '\\f';
    else if (code < 0x20 || code > 0x7e) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += text[index];
  }
  return `${out}"`;
}

/**
 * Code point order (Python's str order; also UTF-8 byte order). JavaScript's default sort
 * compares UTF-16 units, which puts astral characters before U+E000–U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const x = a.charCodeAt(index);
    const y = b.charCodeAt(index);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** Surrogates (astral characters) rank above U+E000–U+FFFF, as their code points do. */
function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

function sortKeys(keys: string[]): string[] {
  keys.sort();
  // The default order is code point order unless a key holds a unit from U+D800 on.
  if (keys.some((key) => /[\ud800-\uffff]/.test(key))) keys.sort(compareCodePoints);
  return keys;
}

/** What JSON.stringify would serialise for `value` (toJSON applied, boxed primitives unboxed). */
function prepared(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof PyFloat || value instanceof RawPythonJson) return value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return prepared(toJSON.call(value, key), key);
  if (value instanceof Number || value instanceof String || value instanceof Boolean) {
    return value.valueOf();
  }
  return value;
}

function isSkipped(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/**
 * The reference's bytes for `value`. Throws a TypeError for what JSON cannot hold (NaN,
 * Infinity, a cycle, a top-level undefined) and a RangeError for absurd nesting.
 */
export function dumpPythonJson(value: unknown): string {
  const stack = new Set<object>();
  // `item` has been through prepared() already.
  const dump = (item: unknown): string => {
    if (item === null) return 'null';
    if (item instanceof PyFloat) return pythonFloatRepr(item.value);
    if (item instanceof RawPythonJson) return item.text;
    switch (typeof item) {
      case 'string':
        return pythonJsonString(item);
      case 'number':
        return numberText(item);
      case 'boolean':
        return item ? 'true' : 'false';
      case 'bigint':
        return item.toString();
      case 'object':
        break;
      case 'function':
      case 'symbol':
      case 'undefined':
        throw new TypeError(`a ${typeof item} has no JSON form`);
    }
    if (stack.has(item)) throw new TypeError('the value holds a cycle');
    stack.add(item);
    try {
      if (Array.isArray(item)) {
        const parts = item.map((element: unknown, index) => {
          const child = prepared(element, String(index));
          return isSkipped(child) ? 'null' : dump(child);
        });
        return `[${parts.join(',')}]`;
      }
      const record = item as Record<string, unknown>;
      const parts: string[] = [];
      for (const name of sortKeys(Object.keys(record))) {
        const child = prepared(record[name], name);
        if (isSkipped(child)) continue;
        parts.push(`${pythonJsonString(name)}:${dump(child)}`);
      }
      return `{${parts.join(',')}}`;
    } finally {
      stack.delete(item);
    }
  };
  const top = prepared(value, '');
  if (isSkipped(top)) throw new TypeError('undefined has no JSON form');
  return dump(top);
}

/**
 * Python's `datetime.isoformat()` of an aware UTC instant: `YYYY-MM-DDTHH:MM:SS.ffffff+00:00`,
 * with the fraction omitted when the microsecond is 0 (the reference's timestamps; they compare
 * as strings, so the shape must be exact). Sub-microsecond digits of `epochMs` are rounded.
 */
export function pythonIsoformatUtc(epochMs: number): string {
  const micros = Math.round(epochMs * 1000);
  const wholeMs = Math.floor(micros / 1000);
  const microsecond = micros - Math.floor(micros / 1e6) * 1e6;
  const base = new Date(wholeMs).toISOString().slice(0, 19);
  const fraction = microsecond === 0 ? '' : `.${String(microsecond).padStart(6, '0')}`;
  return `${base}${fraction}+00:00`;
}
