// The bytes and names every store file shares with the Python reference
// (docs/durable-state-store.md "Records"): the `{"data":…,"schemaVersion":"v1"}` envelope in
// Python's json.dumps bytes, its reader's verdict per the read-rule table, and the per-backend
// instance and sequence behind record names (`<time %020.6f>-<instance>-<seq %012d>.json`) and
// temp names (`w-<instance>-<seq>.tmp`), which share one counter. Must not: do I/O.
import { randomBytes } from 'node:crypto';
import { type Clock, YacronError, describeError, dumpPythonJson } from '../common/index.js';
import { RECORD_SCHEMA_VERSION, type JsonObject } from './types.js';

export const RECORD_FILE_SUFFIX = '.json';

/** The envelope's bytes around `data` (sorted keys, compact, ASCII, no newline). */
export function serializeEnvelope(data: unknown, what: string): string {
  return serializeBody({ data, schemaVersion: RECORD_SCHEMA_VERSION }, what);
}

/** Any store body (a lease is written without the envelope) in the reference's bytes. */
export function serializeBody(body: unknown, what: string): string {
  try {
    return dumpPythonJson(body);
  } catch (error) {
    throw new YacronError(
      'YC_ERR_STATE_VALUE_INVALID',
      `Cannot store the ${what}: ${describeError(error)}`,
      { cause: error },
    );
  }
}

/** Throws unless `data` is a plain JSON object (records are objects; arrays are not). */
export function assertPlainObject(data: unknown, what: string): asserts data is object {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new YacronError(
      'YC_ERR_STATE_VALUE_INVALID',
      `Cannot store the ${what}: its data must be a JSON object`,
    );
  }
}

/**
 * What a reader makes of a record or document file (the reference's read rules):
 * - `ok`: the envelope's `data` object (unknown fields are the consumer's business);
 * - `corrupt`: not JSON, truncated, not an object, or `data` not an object: quarantined
 *   (records) or read as missing (documents);
 * - `newer-schema`: well-formed but `schemaVersion` is not `v1`: warned, left in place, skipped.
 */
export type EnvelopeVerdict =
  | { readonly kind: 'ok'; readonly data: JsonObject }
  | { readonly kind: 'corrupt'; readonly detail: string }
  | { readonly kind: 'newer-schema'; readonly version: string };

export function parseEnvelope(text: string): EnvelopeVerdict {
  let parsed: unknown;
  try {
    // A UTF-8 byte order mark is accepted, as Python's json.loads(bytes) accepts it.
    parsed = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    return { kind: 'corrupt', detail: `not JSON (${describeError(error)})` };
  }
  if (!isObject(parsed)) return { kind: 'corrupt', detail: 'not a JSON object' };
  if (!isObject(parsed.data)) return { kind: 'corrupt', detail: 'data is not a JSON object' };
  if (parsed.schemaVersion !== RECORD_SCHEMA_VERSION) {
    const version = parsed.schemaVersion;
    return {
      kind: 'newer-schema',
      version: typeof version === 'string' ? version : (JSON.stringify(version) ?? 'missing'),
    };
  }
  return { kind: 'ok', data: parsed.data };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------
// Instance, sequence and record names

/** Six random bytes as 12 lower-case hex: a backend instance, or a daemon's process token. */
export function newInstanceToken(): string {
  return randomBytes(6).toString('hex');
}

/** `%020.6f` of epoch seconds given as whole microseconds. */
export function formatRecordTime(epochMicros: number): string {
  const micros = Math.max(0, Math.round(epochMicros));
  const seconds = Math.floor(micros / 1e6);
  const fraction = micros - seconds * 1e6;
  return `${String(seconds).padStart(13, '0')}.${String(fraction).padStart(6, '0')}`;
}

/**
 * One backend object's instance token and its sequence, shared by record names and every temp
 * file (records, documents, leases, blobs), as the reference numbers them. The time in a record
 * name never goes backwards within one instance, even when the wall clock steps back.
 */
export class StoreSequence {
  readonly instance: string;
  readonly #clock: Clock;
  #seq = 0;
  #lastMicros = 0;

  constructor(clock: Clock, instance: string = newInstanceToken()) {
    this.#clock = clock;
    this.instance = instance;
  }

  #next(): string {
    this.#seq += 1;
    return String(this.#seq).padStart(12, '0');
  }

  /** A new record's id (its file name without `.json`) and its write time. */
  nextRecord(): { id: string; writtenAtMs: number } {
    const micros = Math.max(this.#lastMicros, Math.round(this.#clock.now() * 1000));
    this.#lastMicros = micros;
    const id = `${formatRecordTime(micros)}-${this.instance}-${this.#next()}`;
    return { id, writtenAtMs: micros / 1000 };
  }

  /** A new temp file name under tmp/. */
  nextTemp(): string {
    return `w-${this.instance}-${this.#next()}.tmp`;
  }
}

/** Python's float() literal syntax (underscores between digits, inf, nan). */
const PYTHON_FLOAT =
  /^[+-]?(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*(?:[eE][+-]?\d(?:_?\d)*)?|\d(?:_?\d)*\.?(?:[eE][+-]?\d(?:_?\d)*)?|inf|infinity|nan)$/i;

/** Python's float(text), or undefined where it would raise. */
export function parsePythonFloat(text: string): number | undefined {
  const trimmed = text.trim();
  if (!PYTHON_FLOAT.test(trimmed)) return undefined;
  const plain = trimmed.replaceAll('_', '').toLowerCase();
  const sign = plain.startsWith('-') ? -1 : 1;
  const body = plain.replace(/^[+-]/, '');
  if (body === 'nan') return Number.NaN;
  if (body === 'inf' || body === 'infinity') return sign * Infinity;
  return Number(plain);
}

/**
 * A record's write time from its file name, in epoch ms, as GC reads it: the float before the
 * first `-` of the name; a name without one (a foreign grammar) is +Infinity, i.e. never old.
 */
export function recordTimeMs(fileName: string): number {
  const seconds = parsePythonFloat(fileName.split('-')[0] ?? '');
  if (seconds === undefined || Number.isNaN(seconds)) return Infinity;
  return seconds * 1000;
}

// ---------------------------------------------------------------------------------------------
// Argument checks

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Throws unless `sha256` is a lower-case hex sha256 (a blob name; never a path). */
export function assertSha256(sha256: string): void {
  if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) {
    throw new YacronError(
      'YC_ERR_STATE_NAME_INVALID',
      `Cannot use the blob name ${JSON.stringify(sha256)}: not a lower-case hex sha256`,
    );
  }
}

export function isSha256(text: string): boolean {
  return SHA256_HEX.test(text);
}

/** Throws unless `keep` is a usable retention count. */
export function assertKeep(keep: number): void {
  if (!Number.isInteger(keep) || keep < 0) {
    throw new YacronError('YC_ERR_STATE_VALUE_INVALID', `Cannot prune to ${keep} records`);
  }
}

/** A JSON round trip: what a reader of a stored value gets back. */
export function jsonRoundTrip<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
