// The one exact JSON form the job identity is hashed in (docs/configuration.md "Job-set id"): the
// bytes Python's `json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=True)` writes
// after the reference's number normalisation, so our ids equal the reference's byte for byte.
// Strings and key order are common/python-json's; only the numbers differ from a store file's:
// the identity writes every integral value as an integer, at any size, and allows non-finite
// values (the reference's float('inf') is hashed as `Infinity`).
// Must not: change a single byte for any input — durable retry records and @reboot markers
// store digests, and peers running the reference compare the job-set id.
import { compareCodePoints, pythonFloatRepr, pythonJsonString } from '../common/index.js';
import { WrittenScalar } from './schema-nodes.js';

/** A JSON string literal in pure ASCII (Python's ensure_ascii encoder). */
export const canonicalString = pythonJsonString;

/**
 * Numbers: an integral value is written as its exact integer (`30.0` → `30`, `1e22` →
 * `10000000000000000000000`, `-0.0` → `0`); other finite values as Python's repr (shortest
 * round-trip digits; exponent form below 1e-4: `2e-05`); infinities and NaN as bare tokens.
 */
export function canonicalNumber(value: number): string {
  if (Number.isInteger(value)) return BigInt(value).toString();
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  return pythonFloatRepr(value);
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
      return canonicalObject(value);
    case 'bigint':
    case 'function':
    case 'symbol':
    case 'undefined':
      break;
  }
  throw new TypeError(`cannot fingerprint a ${typeof value}`);
}

/** Any other object is a map of its own keys (the walker's maps, built defaults). */
function canonicalObject(record: object): string {
  const entries: [string, unknown][] = Object.entries(record);
  const members = entries
    .filter(([, member]) => member !== undefined)
    .sort(([a], [b]) => compareCodePoints(a, b))
    .map(([key, member]) => `${canonicalString(key)}:${canonicalJson(member)}`);
  return `{${members.join(',')}}`;
}
