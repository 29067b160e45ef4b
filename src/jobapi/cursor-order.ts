// The order a monotonic cursor moves in, as the Python reference compares
// (docs/job-state.md "Cursor"): numbers numerically (9 < 10), strings by code point
// (ISO-8601 timestamps sort as written). Any other pairing (number vs string, objects, lists,
// booleans, null) is not comparable. Pure.
import { compareCodePoints } from '../common/index.js';

export type CursorComparison = 'greater' | 'not-greater' | 'incomparable';

/** Whether `next` is strictly beyond `current`. */
export function compareCursor(next: unknown, current: unknown): CursorComparison {
  if (typeof next === 'number' && typeof current === 'number') {
    return next > current ? 'greater' : 'not-greater';
  }
  if (typeof next === 'string' && typeof current === 'string') {
    return compareCodePoints(next, current) > 0 ? 'greater' : 'not-greater';
  }
  return 'incomparable';
}

/** A short type name for the 409 message. */
export function describeCursorType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  return typeof value === 'object' ? 'object' : typeof value;
}
