// The byte format shared by every backend: the `{"schemaVersion":"v1","data":...}` envelope, its
// tolerant parser (a verdict, never a throw), and record ids that sort by write time and stay
// unique across processes and hosts. Must not: do I/O.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../common/clock.js';
import { YacronError, describeError } from '../common/errors.js';
import { RECORD_SCHEMA_VERSION, type JsonObject, type QuarantineReason } from './types.js';

/** Serialise a record/doc/lease payload inside the envelope. Throws for non-JSON values. */
export function serializeEnvelope(data: unknown, what: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify({ schemaVersion: RECORD_SCHEMA_VERSION, data });
  } catch (error) {
    throw new YacronError(
      'YC_ERR_STATE_VALUE_INVALID',
      `Cannot store the ${what}: ${describeError(error)}`,
      { cause: error },
    );
  }
  return text;
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

/** Throws unless `value` survives JSON (undefined and functions do not; cycles throw). */
export function assertJsonValue(value: unknown, what: string): void {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') {
    throw new YacronError('YC_ERR_STATE_VALUE_INVALID', `Cannot store the ${what}: not JSON`);
  }
}

export type EnvelopeVerdict =
  | { readonly ok: true; readonly data: unknown }
  | { readonly ok: false; readonly reason: QuarantineReason; readonly detail: string };

/** Parse an envelope. Unknown versions and anything not `{schemaVersion, data}` are verdicts. */
export function parseEnvelope(text: string): EnvelopeVerdict {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: 'malformed', detail: `not JSON (${describeError(error)})` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, reason: 'malformed', detail: 'not a JSON object' };
  }
  const envelope = parsed as { schemaVersion?: unknown; data?: unknown };
  if (envelope.schemaVersion !== RECORD_SCHEMA_VERSION) {
    return {
      ok: false,
      reason: typeof envelope.schemaVersion === 'string' ? 'unknown-schema' : 'malformed',
      detail: `schemaVersion ${JSON.stringify(envelope.schemaVersion) ?? 'missing'}`,
    };
  }
  if (!('data' in envelope)) return { ok: false, reason: 'malformed', detail: 'no data' };
  return { ok: true, data: envelope.data };
}

/** Parse a record envelope whose data must be an object. */
export function parseRecordEnvelope(
  text: string,
): { ok: true; data: JsonObject } | { ok: false; reason: QuarantineReason; detail: string } {
  const verdict = parseEnvelope(text);
  if (!verdict.ok) return verdict;
  const { data } = verdict;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { ok: false, reason: 'malformed', detail: 'data is not a JSON object' };
  }
  return { ok: true, data: data as JsonObject };
}

// ---------------------------------------------------------------------------------------------
// Record ids: `<ms, 15 digits>-<per-process sequence, 10 digits>-<process id, 12 hex>`.
// Lexical order = write-time order (ties broken by sequence within a process, then by process).

const RECORD_ID = /^(\d{15})-(\d{10})-([0-9a-f]{12})$/;
export const RECORD_FILE_SUFFIX = '.json';

/** A random id for this store instance: separates processes and hosts in record ids. */
export function newProcessId(): string {
  return randomBytes(6).toString('hex');
}

export class RecordIdSource {
  readonly #clock: Clock;
  readonly #processId: string;
  #lastMs = 0;
  #sequence = 0;

  constructor(clock: Clock, processId: string) {
    this.#clock = clock;
    this.#processId = processId;
  }

  /** A fresh id; never smaller than the previous one from this source, even if the clock steps back. */
  next(): { id: string; writtenAtMs: number } {
    const ms = Math.max(this.#lastMs, Math.floor(this.#clock.now()), 0);
    this.#lastMs = ms;
    this.#sequence = (this.#sequence + 1) % 1e10;
    const id = `${String(ms).padStart(15, '0')}-${String(this.#sequence).padStart(10, '0')}-${this.#processId}`;
    return { id, writtenAtMs: ms };
  }

  /** A fresh opaque token (document versions): unique per process, never reused. */
  token(): string {
    this.#sequence = (this.#sequence + 1) % 1e10;
    return `${this.#processId}-${this.#sequence.toString(36)}-${randomBytes(3).toString('hex')}`;
  }
}

/** The write time encoded in a record id, or undefined when `id` is not one of ours. */
export function parseRecordId(id: string): number | undefined {
  const match = RECORD_ID.exec(id);
  return match ? Number(match[1]) : undefined;
}

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
