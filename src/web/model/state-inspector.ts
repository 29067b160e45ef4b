// The state inspector's model (docs/dashboard.md "State inspector"): `GET /state` read into what
// the panel lists — the store's identity and health (operation counts, errors, mean latency, lock
// and throttle waits), what it holds by prefix, the leases with their time left, quarantine, this
// node's retries and slots — and which namespaces and streams can be opened (`/state/documents`
// for `kv/`, `cursor/`, `idem/`; `/state/records` for any stream but `logs`). Read-only, pure.
// Must not: read the clock (callers pass `nowMs`).

import type { PrefixWire, StateOverviewWire, StateWire } from '../../http/wire/index.js';

export type {
  PrefixWire,
  StateDocumentsWire,
  StateOverviewWire,
  StateRecordsWire,
  StateWire,
} from '../../http/wire/index.js';

export interface OpRow {
  readonly op: string;
  readonly count: number;
  readonly errors: number;
  /** Mean latency of one call, ms; null when never called. */
  readonly meanMs: number | null;
}

/** One openable namespace or stream: `kind` says which route lists it. */
export interface StateEntry {
  readonly kind: 'documents' | 'records';
  /** `kv/backup`, `runs/nightly`, … */
  readonly name: string;
  readonly count: number;
  /** False for `logs/…` streams: archived output never leaves through the inspector. */
  readonly openable: boolean;
}

export interface StateSummary {
  readonly identity: readonly (readonly [string, string])[];
  readonly ops: readonly OpRow[];
  readonly waits: string;
  readonly enumerable: boolean;
  readonly entries: readonly StateEntry[];
  readonly leases: readonly {
    readonly name: string;
    readonly holder: string;
    readonly fence: number;
    /** Negative once expired. */
    readonly leftMs: number;
    readonly expired: boolean;
  }[];
  readonly quarantine: number;
  readonly retries: StateOverviewWire['node']['retries'];
  readonly slots: StateOverviewWire['node']['slots'];
  readonly host: string;
}

const DOCUMENT_PREFIXES = ['kv', 'cursor', 'idem'];

function entriesOf(
  kind: StateEntry['kind'],
  prefixes: Readonly<Record<string, PrefixWire>>,
): StateEntry[] {
  const out: StateEntry[] = [];
  for (const prefix of Object.keys(prefixes).sort()) {
    for (const { scope, count } of prefixes[prefix]!.scopes) {
      const name = scope === '' ? prefix : `${prefix}/${scope}`;
      const openable =
        kind === 'documents'
          ? DOCUMENT_PREFIXES.includes(prefix) && scope !== ''
          : prefix !== 'logs';
      out.push({ kind, name, count, openable });
    }
  }
  return out;
}

/** Reads `/state`; null when the daemon has no `state:` section. */
export function summarizeState(wire: StateWire, nowMs: number): StateSummary | null {
  if (!wire.enabled) return null;
  const { view, stats } = wire;
  const identity: [string, string][] = [
    ['backend', view.backend],
    ['path', view.path],
    ['namespace', view.namespace],
    ['topology', view.topology],
    ['shared locking', view.shared_locking ? 'yes' : 'no'],
    ['job set', view.job_set_id],
  ];
  return {
    identity,
    ops: Object.keys(stats.ops)
      .sort()
      .map((op) => {
        const { count, errors, seconds } = stats.ops[op]!;
        return { op, count, errors, meanMs: count === 0 ? null : (seconds * 1000) / count };
      }),
    waits: `lock: ${stats.lock.acquisitions} acquisitions, ${stats.lock.wait_seconds.toFixed(3)} s waited · throttle: ${stats.throttle.count}, ${stats.throttle.wait_seconds.toFixed(3)} s waited`,
    enumerable: wire.enumerable,
    entries: [...entriesOf('documents', wire.documents), ...entriesOf('records', wire.records)],
    leases: wire.leases.map((lease) => ({
      name: lease.name,
      holder: lease.holder,
      fence: lease.fence,
      leftMs: lease.expiresAt * 1000 - nowMs,
      expired: lease.expired,
    })),
    quarantine: wire.quarantine,
    retries: wire.node.retries,
    slots: wire.node.slots,
    host: wire.node.host,
  };
}

/** The route that lists an entry (the name is one query value, encoded). */
export function entryPath(entry: StateEntry, limit = 100): string {
  return entry.kind === 'documents'
    ? `/state/documents?ns=${encodeURIComponent(entry.name)}`
    : `/state/records?stream=${encodeURIComponent(entry.name)}&limit=${limit}`;
}

/** One listed document as table cells: its key, and KV size/type or its JSON (bounded). */
export function describeDocument(doc: Readonly<Record<string, unknown>>): {
  readonly key: string;
  readonly detail: string;
} {
  const key =
    typeof doc['key'] === 'string' ? doc['key'] : typeof doc['id'] === 'string' ? doc['id'] : '';
  if ('valueType' in doc) {
    const size = typeof doc['valueSize'] === 'number' ? `${doc['valueSize']} B` : 'size unknown';
    return { key, detail: `${String(doc['valueType'])} · ${size} (value not shown)` };
  }
  return { key, detail: boundedJson(doc) };
}

/** JSON of a record or document, cut at `max` characters. */
export function boundedJson(value: unknown, max = 400): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
