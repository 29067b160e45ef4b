// The state inspector's model (docs/dashboard.md "State inspector"): `GET /state` read into what
// the panel lists — the store's identity and health (operation counts, errors, mean latency, lock
// and throttle waits), what it holds by prefix, the leases with their time left, quarantine, this
// node's retries and slots — and which namespaces and streams can be opened (`/state/documents`
// for `kv/`, `cursor/`, `idem/`; `/state/records` for any stream but `logs`). Read-only, pure.
// Must not: read the clock (callers pass `nowMs`).

export interface PrefixWire {
  readonly count: number;
  readonly streams: number;
  readonly scopes: readonly { readonly scope: string; readonly count: number }[];
}

export interface StateOverviewWire {
  readonly enabled: true;
  readonly view: {
    readonly backend: string;
    readonly path: string | null;
    readonly namespace: string | null;
    readonly topology: string | null;
    readonly shared_locking: boolean | null;
    readonly job_set_id: string;
  };
  readonly stats: {
    readonly ops: Readonly<
      Record<string, { readonly count: number; readonly errors: number; readonly seconds: number }>
    >;
    readonly lock: { readonly acquisitions: number; readonly wait_seconds: number };
    readonly throttle: { readonly count: number; readonly wait_seconds: number };
    readonly workers: Readonly<Record<string, Readonly<Record<string, number>>>>;
  };
  readonly enumerable: boolean;
  readonly records: Readonly<Record<string, PrefixWire>>;
  readonly documents: Readonly<Record<string, PrefixWire>>;
  readonly leases: readonly {
    readonly name: string;
    readonly holder: string | null;
    readonly fence: number;
    readonly expiresAt: number;
    readonly expired: boolean;
  }[];
  readonly quarantine: number;
  readonly node: {
    readonly host: string;
    readonly retries: readonly {
      readonly job: string;
      readonly attempt: number;
      readonly nextRetryAt: string | null;
      readonly delaySeconds: number | null;
    }[];
    readonly slots: readonly {
      readonly slot: string;
      readonly holder: string;
      readonly fence: number;
      readonly expiresAt: number;
      readonly refs: number;
    }[];
  };
}

export type StateWire = { readonly enabled: false } | StateOverviewWire;

/** `GET /state/documents?ns=`: KV values arrive as `valueSize` / `valueType`, never the value. */
export interface StateDocumentsWire {
  readonly namespace: string;
  readonly documents: readonly Readonly<Record<string, unknown>>[];
  readonly truncated?: boolean;
}

export interface StateRecordsWire {
  readonly stream: string;
  readonly records: readonly unknown[];
}

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
  const identity: [string, string][] = [['backend', view.backend]];
  if (view.path !== null) identity.push(['path', view.path]);
  if (view.namespace !== null) identity.push(['namespace', view.namespace]);
  if (view.topology !== null) identity.push(['topology', view.topology]);
  if (view.shared_locking !== null)
    identity.push(['shared locking', view.shared_locking ? 'yes' : 'no']);
  identity.push(['job set', view.job_set_id]);
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
      holder: lease.holder ?? '—',
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
