// Argument checks and small helpers every backend shares, so bad input fails alike everywhere
// (YC_ERR_STATE_NAME_INVALID / YC_ERR_STATE_VALUE_INVALID) before any I/O happens.
import { YacronError, compareCodePoints } from '../common/index.js';
import { assertTtl } from './lease-logic.js';
import { assertValidName } from './name-encoding.js';
import type { QuarantineReason } from './types.js';

/** Largest record, document or lease file the store writes or reads (a cap, not an estimate). */
export const DEFAULT_MAX_RECORD_BYTES = 16 * 1024 * 1024;

export function validateStreamName(name: string, what = 'stream'): void {
  assertValidName(name, what);
}

export function validateLeaseName(name: string, holder: string, ttlMs: number): void {
  assertValidName(name, 'lease');
  if (typeof holder !== 'string' || holder.length === 0) {
    throw new YacronError('YC_ERR_STATE_VALUE_INVALID', `Cannot use lease ${name}: empty holder`);
  }
  assertTtl(ttlMs);
}

export function assertDecideInputs(field: string): void {
  if (typeof field !== 'string' || field.length === 0) {
    throw new YacronError('YC_ERR_STATE_VALUE_INVALID', 'Cannot derive a max: empty field name');
  }
}

export function assertRecordSize(text: string, maxBytes: number, what: string): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBytes) {
    throw new YacronError(
      'YC_ERR_STATE_VALUE_INVALID',
      `Cannot store the ${what}: ${bytes} bytes is over the ${maxBytes}-byte record cap`,
    );
  }
}

/**
 * The longest record id getRecord() looks up, in UTF-8 bytes: a file name is at most 255 bytes
 * and a record's ends in `.json`. The reference's ids are 46 characters.
 */
export const MAX_RECORD_ID_BYTES = 250;

/**
 * Whether `id` can name a record of a stream: one file name in the stream's directory (no path
 * separator, no NUL, not empty, not too long, well-formed UTF-16). Every other id is absent.
 * `.` and `..` are safe: the file looked up is `<id>.json`, inside the stream directory.
 */
export function isRecordId(id: string): boolean {
  return (
    typeof id === 'string' &&
    id.length > 0 &&
    !/[/\\\0]|\p{Cs}/u.test(id) &&
    Buffer.byteLength(id, 'utf8') <= MAX_RECORD_ID_BYTES
  );
}

/** The names starting with `prefix` (all when undefined), sorted by code point. */
export function filterPrefix(names: Iterable<string>, prefix: string | undefined): string[] {
  const out: string[] = [];
  for (const name of names) if (prefix === undefined || name.startsWith(prefix)) out.push(name);
  return out.sort(compareCodePoints);
}

export function emptyQuarantineTally(): Record<QuarantineReason, number> {
  return { malformed: 0, 'not-a-file': 0, 'digest-mismatch': 0 };
}
