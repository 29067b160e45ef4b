// The durable features' streams and the reference's record bodies (docs/durable-state-store.md
// "Record bodies"), rendered from domain values (epoch ms) and read back defensively: records
// come from disk, written by another build, the Python reference or a hostile writer, so every
// reader checks each field it uses and skips what it cannot use. This file holds the stream
// names, the field readers every kind shares, and the small kinds (in-flight records, @reboot
// markers, catch-up checkpoints, slot cancels); run rows are in ledger-rows.ts, retry records in
// retry-records.ts, archived output in output-archive.ts.
// Must not: write a field name, unit or timestamp shape the reference does not write.
import { formatIsoUtc, parseIsoInstantMs, pyFloat, type PyFloat } from '../common/index.js';
import type { JsonObject } from '../state/index.js';

export const runsStream = (job: string): string => `runs/${job}`;
export const logsStream = (job: string): string => `logs/${job}`;
export const catchupStream = (job: string): string => `catchup/${job}`;
export const retriesStream = (job: string): string => `retries/${job}`;
export const rebootStream = (job: string): string => `reboot/${job}`;
export const inflightStream = (job: string): string => `inflight/${job}`;
export const concurrencyStream = (job: string): string => `slots/${job}`;
export const countersStream = (host: string): string => `counters/${host}`;

/** Records kept per stream (the reference's retention): catch-up, retries, in-flight, slots. */
export const CATCHUP_KEEP = 8;
export const RETRIES_KEEP = 8;
export const INFLIGHT_KEEP = 8;
export const CONCURRENCY_RECORDS_KEEP = 8;
/** @reboot markers kept per job, and how many of the newest a boot reads. */
export const REBOOT_KEEP = 32;
/** Counter snapshots kept per host. */
export const COUNTERS_KEEP = 4;

// ---- shared field readers and writers ------------------------------------------------------------

/** An instant as the reference writes it: Python isoformat() of the UTC time. */
export const isoAt = (epochMs: number): string => formatIsoUtc(epochMs);

/** Epoch seconds as a Python float (`bootTime`, counter timestamps). */
export const epochSeconds = (epochMs: number): PyFloat => pyFloat(epochMs / 1000);

const OFFSET = /(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * Epoch ms of an ISO timestamp read from a record, as leniently as Python's fromisoformat: an
 * offset (or none: a naive value is UTC), `T` or a space between date and time, 0-9 fraction
 * digits. Undefined for anything else (a non-string included).
 */
export function parseStoreInstant(value: unknown): number | undefined {
  if (typeof value !== 'string' || value.length < 19 || value.length > 40) return undefined;
  let text = value[10] === ' ' ? `${value.slice(0, 10)}T${value.slice(11)}` : value;
  if (!OFFSET.test(text)) text += '+00:00';
  const ms = parseIsoInstantMs(text);
  return Number.isFinite(ms) ? ms : undefined;
}

export function str(data: JsonObject, key: string): string | undefined {
  const value = data[key];
  return typeof value === 'string' ? value : undefined;
}

/** A JSON integer (Python isinstance int, bools excluded). */
export function int(data: JsonObject, key: string): number | undefined {
  const value = data[key];
  return Number.isSafeInteger(value) ? (value as number) : undefined;
}

/** Any finite JSON number (the reference accepts an int wherever it writes a float). */
export function num(data: JsonObject, key: string): number | undefined {
  const value = data[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

// ---- in-flight records (inflight/<job>) -----------------------------------------------------------

/** A job went from zero to one live instance on `host` in the daemon process `proc`. */
export interface InflightOpen {
  readonly kind: 'open';
  readonly host: string;
  /** The writing daemon's 12-hex process token. */
  readonly proc: string;
  readonly pid: number | null;
  readonly startedAtMs: number;
  readonly jobDigest: string;
}

export type InflightCloseReason = 'finished' | 'reconciled-crash' | 'reconciled-takeover';

/** The last live instance finished, or a reconciliation closed an orphaned open record. */
export interface InflightClosed {
  readonly kind: 'closed';
  readonly host: string;
  readonly proc: string;
  /** One of InflightCloseReason as we write it; any string as read. */
  readonly reason: string;
}

export type InflightRecord = InflightOpen | InflightClosed;

export function inflightOpenData(open: Omit<InflightOpen, 'kind'>): JsonObject {
  return {
    kind: 'open',
    host: open.host,
    proc: open.proc,
    pid: open.pid,
    startedAt: isoAt(open.startedAtMs),
    jobDigest: open.jobDigest,
  };
}

export function inflightClosedData(
  host: string,
  proc: string,
  reason: InflightCloseReason,
  atMs: number,
): JsonObject {
  return { kind: 'closed', host, proc, reason, at: isoAt(atMs) };
}

/** An in-flight record, or undefined when its kind or owner cannot be read. */
export function parseInflight(data: JsonObject): InflightRecord | undefined {
  const kind = str(data, 'kind');
  const host = str(data, 'host');
  const proc = str(data, 'proc');
  if (host === undefined || proc === undefined) return undefined;
  if (kind === 'open') {
    const startedAtMs = parseStoreInstant(data['startedAt']);
    if (startedAtMs === undefined) return undefined;
    const pid = int(data, 'pid');
    return {
      kind,
      host,
      proc,
      pid: pid === undefined || pid <= 0 ? null : pid,
      startedAtMs,
      jobDigest: str(data, 'jobDigest') ?? '',
    };
  }
  if (kind === 'closed') return { kind, host, proc, reason: str(data, 'reason') ?? '' };
  return undefined;
}

// ---- @reboot boot markers (reboot/<job>) ---------------------------------------------------------

/** An @reboot job's boot run was recorded on `host` during the boot with this identity. */
export interface RebootMarker {
  readonly host: string;
  /** Linux's boot id, or null. */
  readonly bootId: string | null;
  /** Wall clock minus uptime (epoch ms), or null. */
  readonly bootTimeMs: number | null;
  readonly jobDigest: string;
}

export function rebootMarkerData(marker: RebootMarker, atMs: number): JsonObject {
  return {
    host: marker.host,
    bootId: marker.bootId,
    bootTime: marker.bootTimeMs === null ? null : epochSeconds(marker.bootTimeMs),
    jobDigest: marker.jobDigest,
    at: isoAt(atMs),
  };
}

export function parseRebootMarker(data: JsonObject): RebootMarker | undefined {
  const host = str(data, 'host');
  if (host === undefined) return undefined;
  const bootTime = num(data, 'bootTime');
  return {
    host,
    bootId: str(data, 'bootId') ?? null,
    bootTimeMs: bootTime === undefined ? null : bootTime * 1000,
    // A marker without a digest covers no definition: the job runs again.
    jobDigest: str(data, 'jobDigest') ?? '',
  };
}

// ---- catch-up checkpoints (catchup/<job>) --------------------------------------------------------

/**
 * `open`: a backfill of the slots after `watermarkMs` (the newest finished run it was computed
 * from, or the last slot a backfill completed) up to `untilMs` is owed; `close`: it completed.
 */
export type CatchupCheckpoint =
  | {
      readonly kind: 'open';
      /** Null when written without one (`""`) or when it does not parse. */
      readonly watermarkMs: number | null;
      /**
       * The end of the owed window: our `until` field (the writer's scheduler start), else the
       * record's `at` (a writer without the field computed its slots up to about then), else null.
       */
      readonly untilMs: number | null;
    }
  | { readonly kind: 'close'; readonly watermarkMs: number | null };

export function catchupData(checkpoint: CatchupCheckpoint, atMs: number): JsonObject {
  return {
    kind: checkpoint.kind,
    watermark: checkpoint.watermarkMs === null ? '' : isoAt(checkpoint.watermarkMs),
    at: isoAt(atMs),
    // An added field (readers ignore unknown fields): where the owed window ends.
    ...(checkpoint.kind === 'open' && checkpoint.untilMs !== null
      ? { until: isoAt(checkpoint.untilMs) }
      : {}),
  };
}

export function parseCatchup(data: JsonObject): CatchupCheckpoint | undefined {
  const kind = str(data, 'kind');
  const watermarkMs = parseStoreInstant(data['watermark']) ?? null;
  if (kind === 'close') return { kind, watermarkMs };
  if (kind !== 'open') return undefined;
  const untilMs = parseStoreInstant(data['until']) ?? parseStoreInstant(data['at']) ?? null;
  return { kind, watermarkMs, untilMs };
}

// ---- slot cancel requests (slots/<job>) ----------------------------------------------------------

/** A Replace asked the holder of the job's cluster slot lease with `fence` to cancel its run. */
export interface ConcurrencyCancel {
  readonly kind: 'cancel';
  readonly fence: number;
  /** The host asking. */
  readonly by: string;
  readonly atMs: number;
}

export function concurrencyCancelData(cancel: ConcurrencyCancel): JsonObject {
  return { kind: 'cancel', fence: cancel.fence, by: cancel.by, at: isoAt(cancel.atMs) };
}

export function parseConcurrencyCancel(data: JsonObject): ConcurrencyCancel | undefined {
  const fence = int(data, 'fence');
  const by = str(data, 'by');
  const atMs = parseStoreInstant(data['at']);
  if (str(data, 'kind') !== 'cancel' || fence === undefined || by === undefined) return undefined;
  if (atMs === undefined) return undefined;
  return { kind: 'cancel', fence, by, atMs };
}
