// Reading archived output back (docs/durable-state.md "Output archival"): the `logs/<job>`
// records the RunRecorder (and the reference) write, `{finished_at, outcome, exit_code, redacted,
// dropped_lines, lines: [{stream, line}]}`, parsed into domain values for GET /jobs/{name}/output
// and GET /jobs/{name}/runs/{id}/output. A record's `id` is the store's record id, and a run is read
// by it alone (StateStore.getRecord: one record, bounded by the record size cap). The text served
// is the stored (redacted) text only: nothing here sees a run's live output.
// Must not: trust a record's shape (a hostile or foreign store file may hold anything): a record
// that does not parse is skipped in a listing and refused by id, and one with more lines than
// MAX_SERVED_LINES is refused, never served or crashed on.
import type { OutputStream } from '../runner/index.js';
import type { RunSummaryOutcome } from '../scheduler/index.js';
import type { JsonObject, StateRecord, StateStore } from '../state/index.js';
import { int, logsStream, parseStoreInstant } from './records.js';

/** A listing answers at most this many archives (the newest). */
export const MAX_ARCHIVE_LIST = 100;
/**
 * An archive with more lines than this is refused by id (the recorder writes at most
 * 2 × saveLimit; each record is also within the store's record size cap).
 */
export const MAX_SERVED_LINES = 100_000;

export interface ArchivedOutputLine {
  readonly stream: OutputStream;
  readonly line: string;
}

/** What an archive says about its run. */
export interface ArchiveHeader {
  /** The store's id of the record. */
  readonly id: string;
  readonly finishedAtMs: number;
  readonly outcome: RunSummaryOutcome;
  readonly exitCode: number | null;
  readonly redacted: boolean;
  readonly droppedLines: number;
}

/** One archive of a listing. */
export interface ArchiveEntry extends ArchiveHeader {
  /** How many lines it holds. */
  readonly lineCount: number;
}

/** One archive read by id. */
export type ArchiveLookup =
  | {
      readonly kind: 'found';
      readonly header: ArchiveHeader;
      readonly lines: readonly ArchivedOutputLine[];
    }
  | { readonly kind: 'absent' }
  | { readonly kind: 'malformed'; readonly reason: string }
  | { readonly kind: 'oversize'; readonly lines: number; readonly cap: number };

type Parsed<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

const OUTCOMES: readonly RunSummaryOutcome[] = ['success', 'failure', 'cancelled', 'unknown'];

function isOutcome(value: unknown): value is RunSummaryOutcome {
  return OUTCOMES.some((outcome) => outcome === value);
}

function isStream(value: unknown): value is OutputStream {
  return value === 'stdout' || value === 'stderr';
}

function isList(value: unknown): value is readonly unknown[] {
  return Array.isArray(value);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The header and the raw `lines` array of a record, or why it is not an archive. */
function parseHeader(
  record: StateRecord,
): Parsed<{ header: ArchiveHeader; lines: readonly unknown[] }> {
  const { data } = record;
  const finishedAtMs = parseStoreInstant(data['finished_at']);
  if (finishedAtMs === undefined) return { ok: false, reason: 'no readable finished_at' };
  const outcome = data['outcome'];
  if (!isOutcome(outcome)) return { ok: false, reason: 'no known outcome' };
  const exitCode = data['exit_code'] === null ? null : int(data, 'exit_code');
  if (exitCode === undefined) return { ok: false, reason: 'exit_code is not an integer or null' };
  const redacted = data['redacted'];
  if (typeof redacted !== 'boolean') return { ok: false, reason: 'redacted is not a boolean' };
  const droppedLines = int(data, 'dropped_lines') ?? 0;
  if (droppedLines < 0) return { ok: false, reason: 'dropped_lines is negative' };
  const lines = data['lines'];
  if (!isList(lines)) return { ok: false, reason: 'lines is not a list' };
  return {
    ok: true,
    value: {
      header: { id: record.id, finishedAtMs, outcome, exitCode, redacted, droppedLines },
      lines,
    },
  };
}

function parseLines(lines: readonly unknown[]): Parsed<ArchivedOutputLine[]> {
  const out: ArchivedOutputLine[] = [];
  for (const [index, item] of lines.entries()) {
    const stream: unknown = isObject(item) ? item['stream'] : undefined;
    const line: unknown = isObject(item) ? item['line'] : undefined;
    if (!isStream(stream) || typeof line !== 'string') {
      return { ok: false, reason: `line ${index} is not {stream, line}` };
    }
    out.push({ stream, line });
  }
  return { ok: true, value: out };
}

/** The job's archives, newest first, at most `limit` (≤ MAX_ARCHIVE_LIST); unreadable ones skipped. */
export async function listArchives(
  store: StateStore,
  job: string,
  limit: number,
): Promise<ArchiveEntry[]> {
  const take = Math.max(1, Math.min(MAX_ARCHIVE_LIST, Math.floor(limit)));
  const records = await store.list(logsStream(job), { limit: take });
  const out: ArchiveEntry[] = [];
  for (const record of records) {
    const parsed = parseHeader(record);
    if (parsed.ok) out.push({ ...parsed.value.header, lineCount: parsed.value.lines.length });
  }
  return out;
}

/**
 * One archive of the job by its record id, however old: the store reads that one record (within
 * its record size cap), never the job's other archives. An id no record can have is absent. A
 * record file the store cannot read (a link, over the cap, a newer scheme) rejects with the
 * store's error (YC_ERR_STATE_CORRUPT / YC_ERR_STATE_SCHEMA), which the caller reports.
 */
export async function readArchive(
  store: StateStore,
  job: string,
  id: string,
): Promise<ArchiveLookup> {
  const record = await store.getRecord(logsStream(job), id);
  if (record === undefined) return { kind: 'absent' };
  const parsed = parseHeader(record);
  if (!parsed.ok) return { kind: 'malformed', reason: parsed.reason };
  const { header, lines } = parsed.value;
  if (lines.length > MAX_SERVED_LINES)
    return { kind: 'oversize', lines: lines.length, cap: MAX_SERVED_LINES };
  const items = parseLines(lines);
  if (!items.ok) return { kind: 'malformed', reason: items.reason };
  return { kind: 'found', header, lines: items.value };
}
