// The durable scheduler features' stream names and record shapes (spec/seed-durable-state.txt,
// "The store model" layout), with defensive parsers: records come from disk, possibly from
// another build or a hostile writer, so every reader checks the shape and skips what is off.
import type { RunResourcesWire } from '../resources/index.js';
import type { JsonObject } from '../state/index.js';

export const runsStream = (job: string): string => `runs/${job}`;
export const logsStream = (job: string): string => `logs/${job}`;
export const catchupStream = (job: string): string => `catchup/${job}`;
export const retriesStream = (job: string): string => `retries/${job}`;
export const rebootStream = (job: string): string => `reboot/${job}`;
export const inflightStream = (job: string): string => `inflight/${job}`;
export const countersStream = (host: string): string => `counters/${host}`;

// ---- field readers --------------------------------------------------------------------------

function str(data: JsonObject, key: string): string | undefined {
  const value = data[key];
  return typeof value === 'string' ? value : undefined;
}

function num(data: JsonObject, key: string): number | undefined {
  const value = data[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function nullableStr(data: JsonObject, key: string): string | null | undefined {
  const value = data[key];
  if (value === null) return null;
  return typeof value === 'string' ? value : undefined;
}

function nullableNum(data: JsonObject, key: string): number | null | undefined {
  const value = data[key];
  if (value === null) return null;
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

// ---- the run ledger (runs/<job>) ------------------------------------------------------------

export type LedgerOutcome = 'success' | 'failure' | 'cancelled' | 'unknown';

/** One finished run: the GET /jobs/{name}/runs record plus what the durable features read. */
export interface LedgerRun {
  readonly job: string;
  readonly host: string;
  readonly runId: string;
  readonly trigger: string;
  readonly attempt: number;
  /** The cron slot the run served, ISO, or null. */
  readonly scheduled_at: string | null;
  readonly outcome: LedgerOutcome;
  readonly exit_code: number | null;
  readonly started_at: string | null;
  /** Null only on a reconciled row of an onMissed run-once/run-all job (see interruptedAtMs). */
  readonly finished_at: string | null;
  readonly duration: number | null;
  readonly fail_reason: string | null;
  /** A monitored run's usage with its series (written, not read back: the history has none). */
  readonly resources?: RunResourcesWire | null;
  /** The catch-up watermark's field: absent where finished_at is null. */
  readonly finishedAtMs?: number;
  /** A reconciled run-once/run-all row: the interrupted start instant, owed to catch-up. */
  readonly interruptedAtMs?: number;
  /** The slot as epoch ms (catch-up resume recognises backfills already done). */
  readonly scheduledAtMs?: number;
}

const OUTCOMES: ReadonlySet<string> = new Set(['success', 'failure', 'cancelled', 'unknown']);

export function parseLedgerRun(data: JsonObject): LedgerRun | undefined {
  const outcome = str(data, 'outcome');
  const job = str(data, 'job');
  if (outcome === undefined || !OUTCOMES.has(outcome) || job === undefined) return undefined;
  const finishedAt = nullableStr(data, 'finished_at');
  const finishedAtMs = num(data, 'finishedAtMs');
  const interruptedAtMs = num(data, 'interruptedAtMs');
  if (finishedAt === undefined || (finishedAtMs === undefined && interruptedAtMs === undefined)) {
    return undefined;
  }
  const scheduledAtMs = num(data, 'scheduledAtMs');
  return {
    job,
    host: str(data, 'host') ?? '',
    runId: str(data, 'runId') ?? '',
    trigger: str(data, 'trigger') ?? 'schedule',
    attempt: num(data, 'attempt') ?? 0,
    scheduled_at: nullableStr(data, 'scheduled_at') ?? null,
    outcome: outcome as LedgerOutcome,
    exit_code: nullableNum(data, 'exit_code') ?? null,
    started_at: nullableStr(data, 'started_at') ?? null,
    finished_at: finishedAt,
    duration: nullableNum(data, 'duration') ?? null,
    fail_reason: nullableStr(data, 'fail_reason') ?? null,
    ...(finishedAtMs === undefined ? {} : { finishedAtMs }),
    ...(interruptedAtMs === undefined ? {} : { interruptedAtMs }),
    ...(scheduledAtMs === undefined ? {} : { scheduledAtMs }),
  };
}

/** When the run ended for ordering purposes (a reconciled row: when it was interrupted). */
export function ledgerInstantMs(run: LedgerRun): number {
  return run.finishedAtMs ?? run.interruptedAtMs ?? Number.NaN;
}

// ---- in-flight records (inflight/<job>) -----------------------------------------------------

export interface InflightOpen {
  readonly kind: 'open';
  readonly host: string;
  /** Per-process token: which daemon process wrote it. */
  readonly token: string;
  readonly pid: number | null;
  readonly startedAtMs: number;
  readonly digest: string;
}

export interface InflightClosed {
  readonly kind: 'closed';
  readonly host: string;
  readonly token: string;
  /** `finished`, or `reconciled-crash` / `reconciled-takeover` naming the closed token. */
  readonly reason: string;
  /** For a reconciliation: the token of the open record it closes. */
  readonly closes?: string;
}

export type InflightRecord = InflightOpen | InflightClosed;

export function parseInflight(data: JsonObject): InflightRecord | undefined {
  const kind = str(data, 'kind');
  const host = str(data, 'host');
  const token = str(data, 'token');
  if (host === undefined || token === undefined) return undefined;
  if (kind === 'open') {
    const startedAtMs = num(data, 'startedAtMs');
    if (startedAtMs === undefined) return undefined;
    const pid = nullableNum(data, 'pid');
    return {
      kind,
      host,
      token,
      pid: pid === undefined || pid === null || !Number.isInteger(pid) || pid <= 0 ? null : pid,
      startedAtMs,
      digest: str(data, 'digest') ?? '',
    };
  }
  if (kind === 'closed') {
    const closes = str(data, 'closes');
    return {
      kind,
      host,
      token,
      reason: str(data, 'reason') ?? 'finished',
      ...(closes === undefined ? {} : { closes }),
    };
  }
  return undefined;
}

// ---- retry ladders (retries/<job>) ----------------------------------------------------------

export interface RetryPending {
  readonly kind: 'pending';
  readonly host: string;
  readonly attempt: number;
  readonly notBeforeMs: number;
  readonly digest: string;
}

export interface RetrySettled {
  readonly kind: 'settled';
  readonly host: string;
  readonly attempt: number;
  readonly reason: string;
}

export type RetryRecord = RetryPending | RetrySettled;

/** Unknown kinds (e.g. a newer build's handoff) read as "not pending": never double-run. */
export function parseRetry(data: JsonObject): RetryRecord | undefined {
  const kind = str(data, 'kind');
  const host = str(data, 'host');
  const attempt = num(data, 'attempt');
  if (host === undefined || attempt === undefined || !Number.isInteger(attempt)) return undefined;
  if (kind === 'pending') {
    const notBeforeMs = num(data, 'notBeforeMs');
    const digest = str(data, 'digest');
    if (notBeforeMs === undefined || digest === undefined || attempt < 1) return undefined;
    return { kind, host, attempt, notBeforeMs, digest };
  }
  if (kind === 'settled') return { kind, host, attempt, reason: str(data, 'reason') ?? '' };
  return undefined;
}

// ---- @reboot boot markers (reboot/<job>) ----------------------------------------------------

export interface RebootMarker {
  readonly host: string;
  /** Exact boot id (Linux), or null with a boot time instead. */
  readonly bootId: string | null;
  readonly bootTimeMs: number | null;
  readonly digest: string;
}

export function parseRebootMarker(data: JsonObject): RebootMarker | undefined {
  const host = str(data, 'host');
  const digest = str(data, 'digest');
  const bootId = nullableStr(data, 'bootId') ?? null;
  const bootTimeMs = nullableNum(data, 'bootTimeMs') ?? null;
  if (host === undefined || digest === undefined) return undefined;
  if (bootId === null && bootTimeMs === null) return undefined;
  return { host, bootId, bootTimeMs, digest };
}

// ---- catch-up checkpoints (catchup/<job>) ---------------------------------------------------

export interface CatchupOpen {
  readonly kind: 'open';
  readonly host: string;
  /** The watermark the backfill was computed from. */
  readonly watermarkMs: number;
  readonly mode: string;
}

export interface CatchupClose {
  readonly kind: 'close';
  readonly host: string;
  readonly watermarkMs: number;
}

export type CatchupRecord = CatchupOpen | CatchupClose;

export function parseCatchup(data: JsonObject): CatchupRecord | undefined {
  const kind = str(data, 'kind');
  const host = str(data, 'host');
  const watermarkMs = num(data, 'watermarkMs');
  if (host === undefined || watermarkMs === undefined) return undefined;
  if (kind === 'open') return { kind, host, watermarkMs, mode: str(data, 'mode') ?? '' };
  if (kind === 'close') return { kind, host, watermarkMs };
  return undefined;
}
