// Archived run output as the History tab reads it (docs/dashboard.md "Job drawer"): which runs of
// `GET /jobs/{n}/runs` have an archive in `GET /jobs/{n}/output` (matched by `finished_at`, the
// same rendering of the same instant on both routes), and one archive's JSON lines
// (`GET /jobs/{n}/runs/{id}/output?format=jsonl`) decoded without trusting their shape. Pure.
import type {
  ArchivedLineWire,
  ArchiveEntryWire,
  ArchiveHeaderWire,
  RunOutcome,
} from './api-types.js';

/** What the History tab knows about a job's archives. */
export type ArchiveListing =
  | { readonly kind: 'listed'; readonly byFinished: ReadonlyMap<string, ArchiveEntryWire> }
  /** The daemon answered 404 for a configured job: it has no `state:` section. */
  | { readonly kind: 'no-store' }
  /** 503: the store is still opening. */
  | { readonly kind: 'opening' }
  | { readonly kind: 'error'; readonly message: string };

/** The archives by `finished_at`; of two with the same instant the newest (listed first) wins. */
export function archivesByFinished(
  archives: readonly ArchiveEntryWire[],
): Map<string, ArchiveEntryWire> {
  const out = new Map<string, ArchiveEntryWire>();
  for (const entry of archives) if (!out.has(entry.finished_at)) out.set(entry.finished_at, entry);
  return out;
}

export interface ArchivedOutput {
  readonly header: ArchiveHeaderWire;
  readonly lines: readonly ArchivedLineWire[];
}

const OUTCOMES: readonly RunOutcome[] = ['success', 'failure', 'cancelled', 'unknown'];

function isObject(value: unknown): value is { readonly [key: string]: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseRow(text: string, what: string): { readonly [key: string]: unknown } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`Cannot read the archived output: ${what} is not JSON`);
  }
  if (!isObject(value))
    throw new Error(`Cannot read the archived output: ${what} is not an object`);
  return value;
}

function parseHeader(text: string): ArchiveHeaderWire {
  const row = parseRow(text, 'the header line');
  const finishedAt = row['finished_at'];
  const exitCode = row['exit_code'];
  const redacted = row['redacted'];
  const droppedLines = row['dropped_lines'];
  const outcome = OUTCOMES.find((candidate) => candidate === row['outcome']);
  if (
    typeof finishedAt !== 'string' ||
    outcome === undefined ||
    !(exitCode === null || typeof exitCode === 'number') ||
    typeof redacted !== 'boolean' ||
    typeof droppedLines !== 'number'
  ) {
    throw new Error('Cannot read the archived output: the header line is not an archive header');
  }
  return {
    finished_at: finishedAt,
    outcome,
    exit_code: exitCode,
    redacted,
    dropped_lines: droppedLines,
  };
}

/** One archive's `?format=jsonl` body; throws an Error saying what is wrong with it. */
export function parseArchivedJsonl(body: string): ArchivedOutput {
  const rows = body.split('\n');
  if (rows[rows.length - 1] === '') rows.pop();
  const [first, ...rest] = rows;
  if (first === undefined) throw new Error('Cannot read the archived output: the answer is empty');
  const header = parseHeader(first);
  const lines: ArchivedLineWire[] = [];
  rest.forEach((text, index) => {
    const row = parseRow(text, `line ${index + 1}`);
    const stream = row['stream'];
    const line = row['line'];
    if ((stream !== 'stdout' && stream !== 'stderr') || typeof line !== 'string') {
      throw new Error(`Cannot read the archived output: line ${index + 1} is not {stream, line}`);
    }
    lines.push({ stream, line });
  });
  return { header, lines };
}

/** A one-line description of an archive header, for the viewer's heading. */
export function describeArchive(header: ArchiveHeaderWire, lineCount: number): string {
  const parts = [
    header.outcome,
    header.exit_code === null ? 'no exit code' : `exit ${header.exit_code}`,
    `${lineCount} line${lineCount === 1 ? '' : 's'}`,
  ];
  if (header.dropped_lines > 0) parts.push(`${header.dropped_lines} not kept`);
  parts.push(header.redacted ? 'secrets redacted' : 'not redacted');
  return parts.join(' · ');
}
