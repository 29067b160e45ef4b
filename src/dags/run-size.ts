// The run document's byte cap (docs/dags.md "Ending a run early"): every change of a run is
// measured before it is written. A change over the cap is a permanent failure, not store trouble
// to retry: the run is ended `too-large` instead (run-end.ts), from the document as it is stored.
// The cap is half the store's record cap: the ended run (the stored one plus a reason per entry
// it cut short) then still fits in the store, and so does a document of the old shape (items
// copied into every instance) that a Python node wrote, which is read and ended the same way.
// Must not: write (run-store.ts does, under the document's lock).
import { DEFAULT_MAX_RECORD_BYTES } from '../state/index.js';
import type { RunDocument } from './run-document.js';
import { runDocumentBody } from './run-document-wire.js';
import { endRun } from './run-end.js';

export const MAX_RUN_DOCUMENT_BYTES = DEFAULT_MAX_RECORD_BYTES / 2;

/** The document's size as stored (its body's JSON, UTF-8). */
export function runDocumentBytes(doc: RunDocument): number {
  return Buffer.byteLength(JSON.stringify(runDocumentBody(doc)), 'utf8');
}

/**
 * What to write instead of `next`, which measured `bytes` (over `limit`): `current` ended
 * `too-large`. Should even that be over the limit (a foreign document stored larger), the mapped
 * items are left out of it: the run is over, and its instances keep their states.
 */
export function oversizeEnd(
  current: RunDocument,
  bytes: number,
  limit: number,
  nowMs: number,
): RunDocument {
  const ended = endRun(current, { kind: 'too-large', bytes, limit, atMs: nowMs });
  if (runDocumentBytes(ended) <= limit) return ended;
  const mapped = Object.fromEntries(
    Object.entries(ended.mapped).map(([id, record]) => [id, { ...record, items: [] }]),
  );
  return { ...ended, mapped };
}
