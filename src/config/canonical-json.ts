// The one exact JSON form the job identity is hashed in (docs/configuration.md "Job-set id"): the
// bytes Python's `json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=True)` writes
// after the reference's number normalisation, so our ids equal the reference's byte for byte.
// Must not: change a single byte for any input — durable retry records and @reboot markers
// store digests, and peers running the reference compare the job-set id.
import { compareCodePoints } from '../common/index.js';
import { WrittenScalar } from './schema-nodes.js';

/**
 * Numbers: an integral value is written as its exact integer (`30.0` → `30`, `1e22` →
 * `10000000000000000000000`, `-0.0` → `0`); other finite values as Python's repr (shortest
 * round-trip digits; exponent form below 1e-4: `2e-05`); infinities and NaN as bare tokens.
 */
export function canonicalNumber(value: number): string {
  if (Number.isInteger(value)) return BigInt(value).toString();
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  // JavaScript gives the same shortest digits as Python's repr; only the layout differs.
  // (No non-integral double reaches 1e16, Python's other switch to exponent form.)
  const exponential = value.toExponential();
  const at = exponential.indexOf('e');
  const exponent = Number(exponential.slice(at + 1));
  if (exponent >= -4) return String(value);
  const digits = String(-exponent).padStart(2, '0');
  return `${exponential.slice(0, at)}e-${digits}`;
}

const NEEDS_ESCAPE = /[\u007f-\uffff]/;
const NEEDS_ESCAPE_ALL = /[\u007f-\uffff]/g;

/**
 * A JSON string in pure ASCII: `"` and `\` escaped, `\n \r \t \b \f` short, other control
 * characters and every UTF-16 unit from U+007F up as `\u` + 4 lowercase hex digits (characters
 * above U+FFFF therefore as a surrogate pair).
 */
export function canonicalString(text: string): string {
  const json = JSON.stringify(text);
  if (!NEEDS_ESCAPE.test(json)) return json;
  return json.replace(
    NEEDS_ESCAPE_ALL,
    (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Object keys sorted by code point; lists keep their order; no whitespace anywhere. */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return canonicalNumber(value);
    case 'string':
      return canonicalString(value);
    case 'object':
      if (value instanceof WrittenScalar) return canonicalString(value.text);
      if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
      return canonicalObject(value as Readonly<Record<string, unknown>>);
    default:
      throw new TypeError(`cannot fingerprint a ${typeof value}`);
  }
}

function canonicalObject(record: Readonly<Record<string, unknown>>): string {
  const members = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort(compareCodePoints)
    .map((key) => `${canonicalString(key)}:${canonicalJson(record[key])}`);
  return `{${members.join(',')}}`;
}
