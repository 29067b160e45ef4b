// Derived watermarks: the max of one field over immutable records, order-independent so several
// nodes appending to one stream agree. Numbers compare numerically and win over strings when a
// stream mixes both; strings compare by code unit (ISO-8601 instants in one offset sort).
import type { DeriveMaxOptions, DerivedMax, MaxValue, StateRecord } from './types.js';

function isComparable(value: unknown): value is MaxValue {
  return (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'string';
}

/** a > b under the derive order. */
function greater(a: MaxValue, b: MaxValue): boolean {
  if (typeof a === typeof b) return a > b;
  return typeof a === 'number';
}

/** Records must come newest first: on a tie the first (newest) carrier wins. */
export function maxOverRecords(
  recordsNewestFirst: Iterable<StateRecord>,
  field: string,
  options: DeriveMaxOptions = {},
): DerivedMax | undefined {
  let best: DerivedMax | undefined;
  for (const record of recordsNewestFirst) {
    if (!Object.hasOwn(record.data, field)) continue;
    const value = record.data[field];
    if (!isComparable(value)) continue;
    if (options.where && !options.where(record.data)) continue;
    if (!best || greater(value, best.value)) best = { value, record };
  }
  return best;
}
