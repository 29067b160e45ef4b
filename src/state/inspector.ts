// The state inspector (docs/http-api.md "State inspector"): a read-only, metadata-oriented view
// of the store for operators: what the store is, how it is doing (op counters, lock and
// throttle waits, the write queue), what it holds (streams and documents by prefix, leases,
// quarantine), and one namespace's documents or one stream's newest records on request.
// Every store read is bounded by the scheduling read timeout; the inventory is cached for a few
// seconds and shared by concurrent requests, so a dashboard polling it costs the store little.
// Must not: hand out a KV value (reduced to its size and type here, before it leaves the store
// layer); throw for store trouble (the overview degrades to health only, lists come back empty).
import { type Clock, describeError } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { StateMetrics, StateStatsSnapshot } from './metrics.js';
import type { JsonObject, LeaseState, StateStore, StateTopology, StoreInventory } from './types.js';
import { SCHEDULING_READ_TIMEOUT_MS, withTimeout } from './with-timeout.js';
import type { StateWriteQueue, WriteQueueStats } from './write-queue.js';

/** What the store is (the `view` of GET /state). */
export interface StoreView {
  readonly backend: 'filesystem' | 'memory';
  /** The configured state.path. */
  readonly path: string;
  /** The deploymentId, or `default`. */
  readonly namespace: string;
  readonly topology: StateTopology;
}

/** A cluster-scope concurrency slot this node holds. */
export interface ConcurrencyHoldRow {
  readonly slot: string;
  readonly holder: string;
  readonly fence: number;
  readonly expiresAtMs: number;
  /** Running instances sharing the hold. */
  readonly refs: number;
}

export interface StateOverview {
  readonly view: StoreView & {
    /** Advisory locks coordinate across hosts only on a shared mount. */
    readonly sharedLocking: boolean;
  };
  /** null without metrics (a store built without a registry). */
  readonly stats: StateStatsSnapshot | null;
  readonly writeQueue: WriteQueueStats | null;
  /** null when the inventory failed or timed out: the overview is health only. */
  readonly contents: {
    readonly inventory: StoreInventory;
    readonly leases: readonly LeaseState[];
  } | null;
  readonly node: { readonly host: string; readonly slots: readonly ConcurrencyHoldRow[] };
}

export interface StateInspector {
  overview(): Promise<StateOverview>;
  /** A namespace's document bodies, sorted by key, at most `limit`; KV values reduced. */
  documents(ns: string, limit: number): Promise<{ bodies: JsonObject[]; truncated: boolean }>;
  /** A stream's newest `limit` record bodies, newest first. */
  records(stream: string, limit: number): Promise<JsonObject[]>;
}

export interface StateInspectorDeps {
  readonly store: StateStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly view: () => StoreView;
  readonly host: string;
  readonly metrics?: StateMetrics | undefined;
  readonly writes?: StateWriteQueue | undefined;
  /** The cluster-scope slots this node holds (none without such jobs). */
  readonly slots?: () => readonly ConcurrencyHoldRow[];
  readonly readTimeoutMs?: number;
}

/** How long an inventory is served again before the store is walked anew. */
export const INVENTORY_CACHE_MS = 5_000;

/** Python's type names, as the reference reports a KV value's type. */
export function pythonTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (Array.isArray(value)) return 'list';
  return 'dict';
}

/**
 * A KV document with its value reduced to `valueSize` (bytes of its compact JSON, the measure
 * of state.jobApi.maxValueBytes; null when the body has no value) and `valueType`.
 */
export function redactKvBody(body: JsonObject): JsonObject {
  const { value, ...rest } = body;
  return {
    ...rest,
    valueSize: value === undefined ? null : Buffer.byteLength(JSON.stringify(value), 'utf8'),
    valueType: pythonTypeName(value),
  };
}

export function createStateInspector(deps: StateInspectorDeps): StateInspector {
  const { store, clock, logger } = deps;
  const timeoutMs = deps.readTimeoutMs ?? SCHEDULING_READ_TIMEOUT_MS;
  let cached: {
    readonly atMs: number;
    readonly contents: Promise<StateOverview['contents']>;
  } | null = null;

  const bounded = <T>(work: Promise<T>, what: string): Promise<T> =>
    withTimeout(work, timeoutMs, clock, what);

  const readContents = async (): Promise<StateOverview['contents']> => {
    try {
      const [inventory, leases] = await Promise.all([
        bounded(store.inventory(), 'take the state store inventory'),
        bounded(store.listLeases(), 'list the state store leases'),
      ]);
      return { inventory, leases };
    } catch (error) {
      logger.warn(
        { err: error },
        `Cannot take the state store inventory: ${describeError(error)}; showing its health only`,
      );
      return null;
    }
  };

  const contents = (): Promise<StateOverview['contents']> => {
    const nowMs = clock.monotonic();
    if (cached === null || nowMs - cached.atMs >= INVENTORY_CACHE_MS) {
      cached = { atMs: nowMs, contents: readContents() };
    }
    return cached.contents;
  };

  return {
    async overview() {
      const view = deps.view();
      const [stats, listed] = await Promise.all([
        deps.metrics?.snapshot() ?? Promise.resolve(null),
        contents(),
      ]);
      return {
        view: { ...view, sharedLocking: view.topology === 'shared' },
        stats,
        writeQueue: deps.writes?.stats() ?? null,
        contents: listed,
        node: { host: deps.host, slots: deps.slots?.() ?? [] },
      };
    },

    async documents(ns, limit) {
      try {
        const docs = await bounded(store.listDocuments(ns), `list the documents of ${ns}`);
        const kv = ns.startsWith('kv/');
        const bodies = docs.slice(0, limit).map((doc) => (kv ? redactKvBody(doc.body) : doc.body));
        return { bodies, truncated: docs.length > limit };
      } catch (error) {
        logger.warn({ err: error }, `Cannot list the documents of ${ns}: ${describeError(error)}`);
        return { bodies: [], truncated: false };
      }
    },

    async records(stream, limit) {
      try {
        const records = await bounded(
          store.list(stream, { limit }),
          `list the records of ${stream}`,
        );
        return records.map((record) => record.data);
      } catch (error) {
        logger.warn(
          { err: error },
          `Cannot list the records of ${stream}: ${describeError(error)}`,
        );
        return [];
      }
    },
  };
}
