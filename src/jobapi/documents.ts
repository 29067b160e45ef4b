// The job API's documents in the Python reference's bodies and with its semantics
// (docs/durable-state-store.md "Documents"), so a reference node and ours read and change the
// same KV values, cursors and idempotency claims:
//   kv/<scope>      {"key": str, "updatedAt": float epoch s, "value": any JSON}
//   cursor/<scope>  {"name": str, "updatedAt": float, "value": int | float | str}
//   idem/<scope>    {"claimedAt": float, "key": str[, "expiresAt": float]}
// Every change is a decision taken under the document's lock (StateStore.updateDocument).
// Pure: no I/O, no clock (the caller passes `nowMs`).
import { pyFloat, type PyFloat } from '../common/index.js';
import type { DocumentChange, JsonObject, StateDocument } from '../state/index.js';
import { compareCursor, type CursorComparison } from './cursor-order.js';

/** Epoch seconds from a body field the reference writes as a float, else from the file's mtime. */
function epochField(body: JsonObject, field: string, doc: StateDocument): number {
  const value = body[field];
  return typeof value === 'number' && Number.isFinite(value) ? value : doc.modifiedAtMs / 1000;
}

/** A stored value as a job reads it: `value` (a stored null counts) and `updatedAt` seconds. */
export interface StoredValue {
  readonly value: unknown;
  readonly updatedAt: number;
}

/** KV values and cursors: a document without a `value` field holds nothing a job can use. */
export function readStoredValue(doc: StateDocument | undefined): StoredValue | undefined {
  if (doc === undefined || !Object.hasOwn(doc.body, 'value')) return undefined;
  return { value: doc.body.value, updatedAt: epochField(doc.body, 'updatedAt', doc) };
}

// ---------------------------------------------------------------------------------------------
// KV: last writer wins; delete reports whether the document existed.

/** A `kv/<scope>` document as stored (a store body, not an HTTP response). */
export interface KvDocumentBody {
  readonly key: string;
  readonly updatedAt: PyFloat;
  readonly value: unknown;
}

export function kvBody(key: string, value: unknown, nowMs: number): KvDocumentBody {
  return { key, updatedAt: pyFloat(nowMs / 1000), value };
}

export function setKv(key: string, value: unknown, nowMs: number): DocumentChange<number> {
  return { kind: 'write', body: kvBody(key, value, nowMs), result: nowMs / 1000 };
}

export function deleteDocument(current: StateDocument | undefined): DocumentChange<boolean> {
  return current === undefined ? { kind: 'keep', result: false } : { kind: 'delete', result: true };
}

// ---------------------------------------------------------------------------------------------
// Cursors: new = max(current, value) unless forced; an unchanged value writes nothing.

export type AdvanceOutcome =
  | { readonly kind: 'advanced'; readonly value: unknown }
  | { readonly kind: 'unchanged'; readonly value: unknown }
  | { readonly kind: 'incomparable'; readonly current: unknown };

/** A `cursor/<scope>` document as stored. */
export interface CursorDocumentBody {
  readonly name: string;
  readonly updatedAt: PyFloat;
  readonly value: unknown;
}

export function cursorBody(name: string, value: unknown, nowMs: number): CursorDocumentBody {
  return { name, updatedAt: pyFloat(nowMs / 1000), value };
}

export function advanceCursor(
  current: StateDocument | undefined,
  name: string,
  value: unknown,
  force: boolean,
  nowMs: number,
): DocumentChange<AdvanceOutcome> {
  const write: DocumentChange<AdvanceOutcome> = {
    kind: 'write',
    body: cursorBody(name, value, nowMs),
    result: { kind: 'advanced', value },
  };
  const stored = readStoredValue(current);
  if (force || stored === undefined) return write;
  const order: CursorComparison = compareCursor(value, stored.value);
  switch (order) {
    case 'greater':
      return write;
    case 'not-greater':
      return { kind: 'keep', result: { kind: 'unchanged', value: stored.value } };
    case 'incomparable':
      return { kind: 'keep', result: { kind: 'incomparable', current: stored.value } };
  }
}

// ---------------------------------------------------------------------------------------------
// Idempotency claims: won iff there is no claim or its `expiresAt` has passed (a claim without
// `expiresAt` is permanent); release deletes the document.

export interface ClaimOutcome {
  readonly fresh: boolean;
  /** Epoch seconds of the claim in force (ours when fresh). */
  readonly claimedAt: number;
}

/** An `idem/<scope>` claim as stored; without `expiresAt` it is permanent. */
export interface ClaimDocumentBody {
  readonly claimedAt: PyFloat;
  readonly expiresAt?: PyFloat;
  readonly key: string;
}

export function claimBody(key: string, nowMs: number, ttlSeconds: number): ClaimDocumentBody {
  const claimedAt = nowMs / 1000;
  return ttlSeconds > 0
    ? { claimedAt: pyFloat(claimedAt), expiresAt: pyFloat(claimedAt + ttlSeconds), key }
    : { claimedAt: pyFloat(claimedAt), key };
}

/** In force at `nowMs`: no `expiresAt` (or one that is not a number) means permanent. */
export function claimInForce(body: JsonObject, nowMs: number): boolean {
  const expiresAt = body.expiresAt;
  return typeof expiresAt !== 'number' || expiresAt > nowMs / 1000;
}

export function claimKey(
  current: StateDocument | undefined,
  key: string,
  ttlSeconds: number,
  nowMs: number,
): DocumentChange<ClaimOutcome> {
  if (current !== undefined && claimInForce(current.body, nowMs)) {
    return {
      kind: 'keep',
      result: { fresh: false, claimedAt: epochField(current.body, 'claimedAt', current) },
    };
  }
  return {
    kind: 'write',
    body: claimBody(key, nowMs, ttlSeconds),
    result: { fresh: true, claimedAt: nowMs / 1000 },
  };
}
