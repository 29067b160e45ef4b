// The control API's bodies as `yacron2 logs` reads them (docs/http-api.md "Routes", "Streams
// (server-sent events)"): one decoder per body, from parsed JSON to a typed value, null when the
// body is not that shape (the command then says the daemon's answer was not understood). The
// server declares these bodies in src/http/wire (the archive types are those, imported as types
// only); the decoders check what the CLI reads, so a daemon of another version fails with a
// message, not a crash. The stream events' data the CLI reads is declared here.
import type {
  ArchivedLineWire,
  ArchiveEntryWire,
  ArchiveHeaderWire,
  JobArchivesWire,
  RunRecordOutcome,
} from '../../http/wire/index.js';

/** `outcome` of a run record and an archive (docs/http-api.md "GET /jobs/{name}/runs"). */
export type RunOutcomeText = RunRecordOutcome;

/** What an archive says about its run: the header of `?format=jsonl`, and each listing entry. */
export type ArchiveHeader = ArchiveHeaderWire;

/** One entry of `GET /jobs/{name}/output` (`id`: the opaque archive id `--run` takes). */
export type ArchiveSummary = ArchiveEntryWire;

/** `GET /jobs/{name}/output`: newest first. */
export type ArchiveList = JobArchivesWire;

/** A line of `?format=jsonl` after the header, and the data of a logs stream's `line` event. */
export type OutputLine = ArchivedLineWire;

/** Of `GET /jobs/{name}`, what the CLI reads. */
export interface JobRunning {
  readonly running: boolean;
}

/** A logs stream's `end` event: `{}`, or `{"reason": ...}` (`no-output`, `slow-consumer`). */
export interface StreamEndData {
  readonly reason: string | null;
}

/** `run:started` of `GET /events`. */
export interface RunStartedData {
  readonly job: string;
  readonly runId: string;
}

/** `run:finished` of `GET /events`, with its run record's fields the CLI prints. */
export interface RunFinishedData {
  readonly job: string;
  readonly runId: string;
  readonly outcome: RunOutcomeText;
  readonly exit_code: number | null;
  readonly finished_at: string | null;
}

export type Decoder<T> = (parsed: unknown) => T | null;

export const decodeArchiveHeader: Decoder<ArchiveHeader> = (parsed) => {
  if (!isObject(parsed)) return null;
  const finishedAt = field(parsed, 'finished_at');
  const outcome = field(parsed, 'outcome');
  const exitCode = field(parsed, 'exit_code');
  const redacted = field(parsed, 'redacted');
  const dropped = field(parsed, 'dropped_lines');
  if (typeof finishedAt !== 'string' || !isOutcome(outcome)) return null;
  if (exitCode !== null && !isCount(exitCode, true)) return null;
  if (typeof redacted !== 'boolean' || !isCount(dropped)) return null;
  return {
    finished_at: finishedAt,
    outcome,
    exit_code: exitCode,
    redacted,
    dropped_lines: dropped,
  };
};

export const decodeArchiveList: Decoder<ArchiveList> = (parsed) => {
  if (!isObject(parsed)) return null;
  const name = field(parsed, 'name');
  const entries = field(parsed, 'archives');
  if (typeof name !== 'string' || !Array.isArray(entries)) return null;
  const archives: ArchiveSummary[] = [];
  for (const entry of entries) {
    const header = decodeArchiveHeader(entry);
    if (header === null || !isObject(entry)) return null;
    const id = field(entry, 'id');
    const lines = field(entry, 'lines');
    if (typeof id !== 'string' || id === '' || !isCount(lines)) return null;
    archives.push({ ...header, id, lines });
  }
  return { name, archives };
};

export const decodeOutputLine: Decoder<OutputLine> = (parsed) => {
  if (!isObject(parsed)) return null;
  const stream = field(parsed, 'stream');
  const line = field(parsed, 'line');
  if ((stream !== 'stdout' && stream !== 'stderr') || typeof line !== 'string') return null;
  return { stream, line };
};

export const decodeJobRunning: Decoder<JobRunning> = (parsed) => {
  if (!isObject(parsed)) return null;
  const running = field(parsed, 'running');
  return typeof running === 'boolean' ? { running } : null;
};

export const decodeStreamEnd: Decoder<StreamEndData> = (parsed) => {
  if (!isObject(parsed)) return null;
  const reason = field(parsed, 'reason');
  return { reason: typeof reason === 'string' ? reason : null };
};

export const decodeRunStarted: Decoder<RunStartedData> = (parsed) => {
  if (!isObject(parsed)) return null;
  const job = field(parsed, 'job');
  const runId = field(parsed, 'runId');
  return typeof job === 'string' && typeof runId === 'string' ? { job, runId } : null;
};

export const decodeRunFinished: Decoder<RunFinishedData> = (parsed) => {
  if (!isObject(parsed)) return null;
  const job = field(parsed, 'job');
  const runId = field(parsed, 'runId');
  const record = field(parsed, 'record');
  if (typeof job !== 'string' || typeof runId !== 'string' || !isObject(record)) return null;
  const outcome = field(record, 'outcome');
  const exitCode = field(record, 'exit_code');
  const finishedAt = field(record, 'finished_at');
  if (!isOutcome(outcome)) return null;
  return {
    job,
    runId,
    outcome,
    exit_code: isCount(exitCode, true) ? exitCode : null,
    finished_at: typeof finishedAt === 'string' ? finishedAt : null,
  };
};

/** An error answer's JSON body `{"error", "message"}` (docs/http-api.md "Responses, errors and limits"). */
export interface ErrorBody {
  readonly message: string;
}

export const decodeErrorBody: Decoder<ErrorBody> = (parsed) => {
  if (!isObject(parsed)) return null;
  const message = field(parsed, 'message');
  return typeof message === 'string' ? { message } : null;
};

/** `text` as JSON, typed by `decode`; null when it is not JSON or not that shape. */
export function decodeJson<T>(text: string, decode: Decoder<T>): T | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  return decode(parsed);
}

function isOutcome(value: unknown): value is RunOutcomeText {
  return value === 'success' || value === 'failure' || value === 'cancelled' || value === 'unknown';
}

/** A safe integer, >= 0 unless `signed`. */
function isCount(value: unknown, signed = false): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && (signed || value >= 0);
}

/** The one untyped shape: a parsed JSON object, before a decoder picks its fields. */
function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function field(object: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}
