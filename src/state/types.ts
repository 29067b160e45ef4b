// The durable store's contract (docs/durable-state-store.md): append-only streams of immutable
// records, documents changed under a lock, content-addressed blobs and fenced TTL leases.
// Every backend (FsStateStore, MemoryStateStore, wrappers) implements StateStore and is held to
// one contract suite (store.contract.ts). This file declares shapes only; it does no I/O.

/** The one record scheme this build writes and understands. */
export const RECORD_SCHEMA_VERSION = 'v1';

/** A JSON object as read back from the store: plain data, never class instances. */
export type JsonObject = { readonly [key: string]: unknown };

/** `single-node` = a local directory; `shared` = a mount several hosts use at once. */
export type StateTopology = 'single-node' | 'shared';

/** How the topology was chosen: `auto` probes /proc/mounts (src/state/topology.ts). */
export type StateTopologySetting = 'auto' | StateTopology;

// ---------------------------------------------------------------------------------------------
// Streams

/**
 * One immutable record of a stream. `id` is the record's file name without `.json` (unique
 * across processes and hosts; names sort by write time); `writtenAtMs` is the writer's wall clock
 * read from that name (+Infinity for a name without one: a foreign grammar). `data` is whatever the writer appended, round-tripped through JSON (so `undefined`
 * fields are gone and Dates are strings), and is NOT validated: readers check the shape.
 * Records read back may be shared with the store's cache and deeply frozen: never mutate them.
 */
export interface StateRecord {
  readonly stream: string;
  readonly id: string;
  readonly writtenAtMs: number;
  readonly data: JsonObject;
}

export interface ListOptions {
  /** At most this many records, newest first; undefined = every record of the stream. */
  readonly limit?: number;
  /**
   * Fail the whole read (YC_ERR_STATE_IO / YC_ERR_STATE_SCHEMA) on a record that cannot be read
   * or has a newer schemaVersion, instead of skipping it: for answers that must not under-count.
   */
  readonly strict?: boolean;
}

/** A value deriveMax compares: numbers numerically, strings by code unit (ISO-8601 sorts). */
export type MaxValue = number | string;

export interface DeriveMaxOptions {
  /** Only records for which this returns true take part (e.g. ignore `cancelled` runs). */
  readonly where?: (data: JsonObject) => boolean;
}

export interface DerivedMax {
  readonly value: MaxValue;
  /** The record carrying the maximum (the newest such record on a tie). */
  readonly record: StateRecord;
}

// ---------------------------------------------------------------------------------------------
// Documents (mutable; changed only by a read-modify-write under the document's lock)

/**
 * A mutable document (KV values, cursors, idempotency claims, dag_run documents): `body` is the
 * whole JSON object the writer stored, in the shape its consumer defines (the reference's
 * bodies, docs/durable-state-store.md "Documents"). There is no version field: writers
 * serialise on the document's lock (updateDocument), readers take no lock.
 */
export interface StateDocument {
  /** The document namespace (`kv/<scope>`, `cursor/<scope>`, `idem/<scope>`, `dagrun/<dag>`). */
  readonly ns: string;
  readonly key: string;
  readonly body: JsonObject;
  /** When the document file was last written (its mtime on the filesystem backend). */
  readonly modifiedAtMs: number;
}

/** What an updateDocument() decision does, and what the call then resolves to. */
export type DocumentChange<T> =
  | { readonly kind: 'keep'; readonly result: T }
  | { readonly kind: 'write'; readonly body: object; readonly result: T }
  | { readonly kind: 'delete'; readonly result: T };

/**
 * Decides the change from the current document (undefined = absent). Runs under the document's
 * lock, synchronously: it must not wait on anything. A throw aborts the update (nothing written).
 */
export type DocumentDecision<T> = (current: StateDocument | undefined) => DocumentChange<T>;

// ---------------------------------------------------------------------------------------------
// Blobs (content-addressed)

export interface BlobInfo {
  /** Lower-case hex sha256 of the content: the blob's name. */
  readonly sha256: string;
  readonly sizeBytes: number;
  /** Last time the blob was written or re-published (putBlob of identical bytes refreshes it). */
  readonly modifiedAtMs: number;
}

// ---------------------------------------------------------------------------------------------
// Leases (TTL claims with a monotonic fence)

/**
 * What a lease file holds. `fence` increases by one on every fresh acquisition (a new holder, or
 * the same holder after expiry or release) and is never reset, so a fence value identifies one
 * tenure for as long as the lease exists. A release keeps the holder and sets the expiry to 0.
 */
export interface LeaseState {
  readonly name: string;
  /** The current or last holder (kept on release). */
  readonly holder: string;
  readonly fence: number;
  /** Wall-clock expiry; 0 = released. A lease is held while `now < expiresAtMs`. */
  readonly expiresAtMs: number;
  /** Last write of the lease file (acquire, renew or release): its mtime on the filesystem. */
  readonly updatedAtMs: number;
}

/**
 * acquire/renew/release outcome. `acquired` = the caller holds the lease now (for renew: the
 * renewal landed). When it does not, `holder`/`fence`/`expiresAtMs` describe the lease as it
 * is (holder null = no lease file yet).
 */
export interface LeaseResult {
  readonly acquired: boolean;
  readonly holder: string | null;
  readonly fence: number;
  readonly expiresAtMs: number;
  /** acquire only: true when this call started a new tenure (the fence moved). */
  readonly fresh: boolean;
  /** acquire only, fresh only: the lapsed tenure's holder when it was someone else's. */
  readonly previousHolder?: string;
}

// ---------------------------------------------------------------------------------------------
// Inventory

export interface StoreCounts {
  readonly streams: number;
  readonly records: number;
  readonly docs: number;
  readonly blobs: number;
  readonly leases: number;
  /** Files moved to quarantine/ (by any process) and still there. */
  readonly quarantined: number;
  /** Write-temps left in tmp/ (a crash between write and rename leaves one). */
  readonly tempFiles: number;
}

/** A stream and how many records it holds. */
export interface StreamSize {
  readonly name: string;
  readonly records: number;
}

/** A document namespace and how many documents it holds. */
export interface NamespaceSize {
  readonly ns: string;
  readonly documents: number;
}

/**
 * The store's contents by name, counted without reading a record or a document (on the
 * filesystem: file names). Both lists sorted by name (code point order).
 */
export interface StoreInventory {
  readonly streams: readonly StreamSize[];
  readonly documentNamespaces: readonly NamespaceSize[];
  /** Files in quarantine/ (moved there by any process) and still there. */
  readonly quarantined: number;
}

/** What `yacron2 state check` prints. */
export interface StoreDescription {
  readonly backend: 'filesystem' | 'memory';
  /** The deploymentId, or `default`. */
  readonly namespace: string;
  readonly topology: StateTopology;
  readonly topologySetting: StateTopologySetting;
  /** The namespace directory (filesystem backend only). */
  readonly root?: string;
  /** The scheme this build writes. */
  readonly schemaVersion: string;
  /** Schemes named by the store's meta stamp (more than one after a rolling up/downgrade). */
  readonly stampedSchemaVersions: readonly string[];
  readonly counts: StoreCounts;
  /** Quarantines this process performed since open (by reason). */
  readonly quarantinedThisProcess: Readonly<Record<QuarantineReason, number>>;
  /** True when a probe write and delete succeeded (only when describe({probeWrite: true})). */
  readonly writable?: boolean;
  /** Human-readable problems found (e.g. a newer scheme stamp). */
  readonly warnings: readonly string[];
}

/**
 * Why a file was moved to quarantine/: a record that is not a JSON object envelope
 * (`malformed`), or a blob whose path is not a regular file or whose bytes do not match its name.
 */
export type QuarantineReason = 'malformed' | 'not-a-file' | 'digest-mismatch';

export interface DescribeOptions {
  /** Also write and delete a probe record to prove the store is writable. */
  readonly probeWrite?: boolean;
}

export interface SweepOptions {
  /** Delete write-temps in tmp/ older than this (the seed: a day). */
  readonly tempOlderThanMs?: number;
  /** Delete quarantined files older than this (the seed: the GC grace). */
  readonly quarantineOlderThanMs?: number;
  /**
   * Delete lock side-files idle this long whose document or lease is gone (the seed: the GC
   * grace). Never deletes a lease's own file.
   */
  readonly orphanLocksIdleMs?: number;
}

export interface SweepReport {
  readonly tempFiles: number;
  readonly quarantined: number;
  readonly orphanLocks: number;
}

// ---------------------------------------------------------------------------------------------
// The store

/**
 * The durable store. Every method may reject on a store that cannot answer (an I/O error, a
 * closed store); expected outcomes (a lease held by someone else, a missing document)
 * are values, not errors. Records a build cannot read are quarantined or skipped, never thrown:
 * list/deriveMax return what is readable.
 *
 * Names (streams, doc keys, lease names) are free-form non-empty strings (well-formed UTF-16, so
 * no lone surrogates); slashes are just characters (`runs/backup`). Backends map them to files
 * injectively.
 */
export interface StateStore extends AsyncDisposable {
  /** Create the layout (idempotent), stamp the scheme, resolve the topology. */
  open(): Promise<void>;
  /** Stop accepting operations and release resources; idempotent. */
  close(): Promise<void>;

  // Streams: append-only sequences of immutable records.
  /** Append one record; `data` must be a plain JSON object. */
  append(stream: string, data: object): Promise<StateRecord>;
  /** Records newest first (byte order of their file names, i.e. write time), at most `limit`. */
  list(stream: string, options?: ListOptions): Promise<StateRecord[]>;
  /**
   * One record by its id, without listing the stream (on the filesystem: the one file
   * `<id>.json`, read within the record size cap); undefined when absent. An id no record can
   * have (empty, over MAX_RECORD_ID_BYTES, holding `/`, `\` or NUL, or a lone surrogate) is
   * absent, never a path. A strict read of that one record: one that cannot be read (a link, a
   * directory, over the cap) fails with YC_ERR_STATE_CORRUPT, an I/O error with YC_ERR_STATE_IO,
   * a newer scheme with YC_ERR_STATE_SCHEMA; one that is not a JSON object envelope is
   * quarantined (as list() does) and absent.
   */
  getRecord(stream: string, id: string): Promise<StateRecord | undefined>;
  /**
   * Max of `data[field]` over the stream's records; undefined when no record has one. A strict
   * read: an unreadable record or a newer schema fails it rather than under-count.
   */
  deriveMax(
    stream: string,
    field: string,
    options?: DeriveMaxOptions,
  ): Promise<DerivedMax | undefined>;
  /** Delete all but the `keep` newest records; returns how many were deleted. */
  prune(stream: string, keep: number): Promise<number>;
  /** Delete a whole stream; false when it did not exist. */
  deleteStream(stream: string): Promise<boolean>;
  /** Names of the streams that exist, optionally only those starting with `prefix`, sorted. */
  listStreams(prefix?: string): Promise<string[]>;

  // Documents: mutable JSON objects, changed by read-modify-write under the document's lock.
  /** The document, or undefined when absent or unreadable as a document (no lock taken). */
  getDocument(ns: string, key: string): Promise<StateDocument | undefined>;
  /**
   * Read the document strictly under its lock (a corrupt or unreadable one fails the call with
   * YC_ERR_STATE_CORRUPT / YC_ERR_STATE_IO rather than reading as absent), apply `decide`, and
   * write or delete what it says. Resolves to the decision's result.
   */
  updateDocument<T>(ns: string, key: string, decide: DocumentDecision<T>): Promise<T>;
  /** Every readable document of one namespace, sorted by key (code point order). */
  listDocuments(ns: string): Promise<StateDocument[]>;
  /** Document namespaces that exist, optionally only those starting with `prefix`, sorted. */
  listDocumentNamespaces(prefix?: string): Promise<string[]>;

  // Blobs: content-addressed payloads.
  /** Store bytes; returns their sha256 hex. Identical bytes are stored once (and refreshed). */
  putBlob(bytes: Uint8Array): Promise<string>;
  getBlob(sha256: string): Promise<Uint8Array | undefined>;
  hasBlob(sha256: string): Promise<boolean>;
  deleteBlob(sha256: string): Promise<boolean>;
  listBlobs(): Promise<BlobInfo[]>;

  // Leases: TTL claims with a monotonic fence. Exempt from the rate limiter.
  /** Take the lease if free, expired, or already ours (then it is extended, same fence). */
  acquireLease(name: string, holder: string, ttlMs: number): Promise<LeaseResult>;
  /** Extend our tenure; fails (acquired: false) when the holder or fence no longer match. */
  renewLease(name: string, holder: string, fence: number, ttlMs: number): Promise<LeaseResult>;
  /** End our tenure early (expiry 0, holder and fence kept); false when it was not ours. */
  releaseLease(name: string, holder: string, fence: number): Promise<boolean>;
  inspectLease(name: string): Promise<LeaseState | undefined>;
  /** Lease states, optionally by name prefix, sorted by name. */
  listLeases(prefix?: string): Promise<LeaseState[]>;
  /**
   * Delete a lease and its lock side-file, RESETTING its fence. Only for uniquely named
   * per-run leases whose fences nothing persists (the seed's dagadvance/ GC rule).
   */
  deleteLease(name: string): Promise<boolean>;

  // Inventory and housekeeping.
  describe(options?: DescribeOptions): Promise<StoreDescription>;
  /**
   * Every stream with its record count and every document namespace with its document count.
   * Cheap next to listing: nothing is read or parsed, so an unreadable file still counts.
   */
  inventory(): Promise<StoreInventory>;
  /** Remove crash litter (old write-temps, old quarantined files, orphaned lock side-files). */
  sweep(options: SweepOptions): Promise<SweepReport>;
}

// ---------------------------------------------------------------------------------------------
// Background writes

/** The `kind` label of yacron2_state_dropped_writes_total (the seed's list, plus job-api). */
export type DroppedWriteKind =
  | 'run-record'
  | 'checkpoint'
  | 'retry'
  | 'reboot-marker'
  | 'inflight'
  | 'counters'
  | 'manifest'
  | 'archive'
  | 'other';
