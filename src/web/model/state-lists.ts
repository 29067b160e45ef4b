// The state inspector's separate lists (docs/dashboard.md "State inspector"): cursors
// (`cursor/<scope>` documents `{name, value, updatedAt}`), idempotency claims (`idem/<scope>`
// documents `{key, claimedAt[, expiresAt]}`) and artifacts (`artifacts/<scope>` records
// `{at, name, sha256, size}`, newest first): which scopes hold some, from `GET /state`, and each
// listing read into table rows. Bodies are read defensively (a field of the wrong type shows as
// unknown, never breaks the list). Pure.
// Must not: read the clock (callers pass `nowMs`).
import { boundedJson, type StateOverviewWire } from './state-inspector.js';

export type ListKind = 'cursors' | 'claims' | 'artifacts';

export interface ScopeEntry {
  readonly kind: ListKind;
  readonly scope: string;
  readonly count: number;
  /** The route that lists it. */
  readonly path: string;
}

export const ARTIFACT_RECORDS_LIMIT = 100;

function scopesOf(
  kind: ListKind,
  prefix: string,
  wire: StateOverviewWire,
  path: (name: string) => string,
): ScopeEntry[] {
  const source = kind === 'artifacts' ? wire.records[prefix] : wire.documents[prefix];
  return (source?.scopes ?? [])
    .filter(({ scope }) => scope !== '')
    .map(({ scope, count }) => ({ kind, scope, count, path: path(`${prefix}/${scope}`) }));
}

export function scopeLists(wire: StateOverviewWire): Readonly<Record<ListKind, ScopeEntry[]>> {
  const documents = (name: string): string => `/state/documents?ns=${encodeURIComponent(name)}`;
  return {
    cursors: scopesOf('cursors', 'cursor', wire, documents),
    claims: scopesOf('claims', 'idem', wire, documents),
    artifacts: scopesOf(
      'artifacts',
      'artifacts',
      wire,
      (name) => `/state/records?stream=${encodeURIComponent(name)}&limit=${ARTIFACT_RECORDS_LIMIT}`,
    ),
  };
}

type Body = Readonly<Record<string, unknown>>;

const text = (value: unknown): string => (typeof value === 'string' ? value : '?');
const epochMs = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value * 1000 : null;

export interface CursorRow {
  readonly name: string;
  /** The value as JSON, cut to a readable length. */
  readonly value: string;
  readonly updatedMs: number | null;
}

export function cursorRows(docs: readonly Body[]): CursorRow[] {
  return docs.map((doc) => ({
    name: text(doc['name']),
    value: boundedJson(doc['value'], 200),
    updatedMs: epochMs(doc['updatedAt']),
  }));
}

export interface ClaimRow {
  readonly key: string;
  readonly claimedMs: number | null;
  /** null: a permanent claim. */
  readonly expiresMs: number | null;
  /** The ttl has passed: the next claim of this key wins it afresh. */
  readonly expired: boolean;
}

export function claimRows(docs: readonly Body[], nowMs: number): ClaimRow[] {
  return docs.map((doc) => {
    const expiresMs = epochMs(doc['expiresAt']);
    return {
      key: text(doc['key']),
      claimedMs: epochMs(doc['claimedAt']),
      expiresMs,
      expired: expiresMs !== null && expiresMs <= nowMs,
    };
  });
}

export interface ArtifactRow {
  readonly name: string;
  readonly size: number | null;
  /** The first 12 hex digits. */
  readonly sha256: string;
  readonly atMs: number | null;
  /** The newest record of its name in the listing: the version a read returns. */
  readonly current: boolean;
}

/** Artifact records, newest first (as the route lists them). */
export function artifactRows(records: readonly unknown[]): ArtifactRow[] {
  const seen = new Set<string>();
  return records.map((record) => {
    const body: Body = typeof record === 'object' && record !== null ? (record as Body) : {};
    const name = text(body['name']);
    const current = !seen.has(name);
    seen.add(name);
    return {
      name,
      size: typeof body['size'] === 'number' ? body['size'] : null,
      sha256: text(body['sha256']).slice(0, 12),
      atMs: epochMs(body['at']),
      current,
    };
  });
}
