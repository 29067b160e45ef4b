// Captured output on its way into an archive record (docs/durable-state.md "Output archival"):
// first cut to what one store record can hold (the newest lines that fit; the others count as
// dropped), then redacted in chunks with a turn of the event loop between them. Redaction is
// linear but not free (16 MiB took 1.4 s in one piece); the cut comes first so no time goes into
// text that could never be stored.
// Must not: split a line or a PEM private key block between two chunks (every redaction rule
// but the PEM one works within a line, so chunked redaction equals redacting the whole text).
import { setImmediate as nextTurn } from 'node:timers/promises';
import { DEFAULT_MAX_RECORD_BYTES } from '../state/index.js';

/** JSON bytes the archived lines may take: a record, minus room for the other fields. */
export const ARCHIVE_LINES_MAX_BYTES = DEFAULT_MAX_RECORD_BYTES - 64 * 1024;
/** Characters redacted between two turns of the event loop (a chunk ends at a line end). */
export const REDACT_CHUNK_CHARS = 64 * 1024;

/** JSON bytes of one `{"line":…,"stream":"stdout"}` entry besides its text, with its comma. */
const LINE_ENTRY_BYTES = 32;

/** Bytes a UTF-16 code unit costs in a JSON string (UTF-8, escapes; a pair's halves 2 + 2). */
function jsonBytes(code: number): number {
  if (code < 0x20) return 6; // \u00XX (\n and friends are shorter: an upper bound is enough)
  if (code === 0x22 || code === 0x5c) return 2;
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  if (code >= 0xd800 && code <= 0xdfff) return 2;
  return 3;
}

function jsonTextBytes(text: string): number {
  let total = 0;
  for (let index = 0; index < text.length; index++) total += jsonBytes(text.charCodeAt(index));
  return total;
}

/**
 * The newest of `lines` (in order) whose JSON entries fit `maxBytes` together, and how many
 * older ones were cut. Scrubbing may lengthen a line a little (a marker for a short secret):
 * the bound is an upper bound on the escapes, which leaves room for that.
 */
export function fitArchivedLines<T extends { readonly line: string }>(
  lines: readonly T[],
  maxBytes = ARCHIVE_LINES_MAX_BYTES,
): { readonly lines: readonly T[]; readonly cut: number } {
  let total = 0;
  let start = lines.length;
  while (start > 0) {
    const cost = LINE_ENTRY_BYTES + jsonTextBytes((lines[start - 1] as T).line);
    if (total + cost > maxBytes) break;
    total += cost;
    start--;
  }
  return { lines: start === 0 ? lines : lines.slice(start), cut: start };
}

const PEM_PRIVATE_BEGIN = /-----BEGIN (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----/g;

/** Where the chunk starting at `start` ends: a line end, past any private key block it opens. */
function chunkEnd(text: string, start: number, chunkChars: number): number {
  if (start + chunkChars >= text.length) return text.length;
  let end = text.lastIndexOf('\n', start + chunkChars - 1) + 1;
  if (end <= start) {
    // One line longer than a chunk: the whole line.
    const lineEnd = text.indexOf('\n', start + chunkChars);
    end = lineEnd === -1 ? text.length : lineEnd + 1;
  }
  let openedAt = -1;
  PEM_PRIVATE_BEGIN.lastIndex = start;
  for (let match = PEM_PRIVATE_BEGIN.exec(text); match; match = PEM_PRIVATE_BEGIN.exec(text)) {
    if (match.index >= end) break;
    openedAt = match.index;
  }
  if (openedAt === -1) return end;
  const closedAt = text.indexOf('-----END ', openedAt);
  if (closedAt !== -1 && closedAt < end) return end;
  // The last block the chunk opens runs past its end: take it whole (to the rest of the text
  // when it is never closed, as truncated output can be).
  if (closedAt === -1) return text.length;
  const lineEnd = text.indexOf('\n', closedAt);
  return lineEnd === -1 ? text.length : lineEnd + 1;
}

/**
 * `redact(text)` chunk by chunk (chunks end at line ends, private key blocks whole), yielding to
 * the event loop between chunks. Equal to redacting the whole text at once.
 */
export async function redactInChunks(
  text: string,
  redact: (text: string) => string,
  yieldTurn: () => Promise<unknown> = () => nextTurn(),
  chunkChars = REDACT_CHUNK_CHARS,
): Promise<string> {
  if (text.length <= chunkChars) return redact(text);
  const parts: string[] = [];
  let start = 0;
  while (start < text.length) {
    const end = chunkEnd(text, start, chunkChars);
    parts.push(redact(text.slice(start, end)));
    start = end;
    if (start < text.length) await yieldTurn();
  }
  return parts.join('');
}
