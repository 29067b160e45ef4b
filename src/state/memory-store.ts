// The in-memory StateStore: the fake of docs/architecture.md "Seams", held to the same contract
// suite as the filesystem store, so tests of durable features run without disks. Values are JSON
// round-tripped exactly like the real store's, and leases expire by the injected clock. One process
// only.
import { createHash } from 'node:crypto';
import { type Clock, YacronError } from '../common/index.js';
import { maxOverRecords } from './derive.js';
import {
  assertDecideInputs,
  emptyQuarantineTally,
  filterPrefix,
  isRecordId,
  validateLeaseName,
  validateStreamName,
} from './store-checks.js';
import { decideAcquire, decideRelease, decideRenew } from './lease-logic.js';
import {
  StoreSequence,
  assertKeep,
  assertPlainObject,
  assertSha256,
  jsonRoundTrip,
  serializeEnvelope,
} from './record-format.js';
import {
  RECORD_SCHEMA_VERSION,
  type BlobInfo,
  type DeriveMaxOptions,
  type DerivedMax,
  type DocumentDecision,
  type LeaseResult,
  type LeaseState,
  type ListOptions,
  type StateDocument,
  type StateRecord,
  type StateStore,
  type StoreDescription,
  type StoreInventory,
  type SweepReport,
} from './types.js';

export interface MemoryStateStoreOptions {
  readonly clock: Clock;
  /** Reported by describe(); default `default`. */
  readonly namespace?: string;
}

export class MemoryStateStore implements StateStore {
  readonly #clock: Clock;
  readonly #namespace: string;
  readonly #seq: StoreSequence;
  /** Per stream, records oldest first (ids grow, so appends stay sorted). */
  readonly #streams = new Map<string, StateRecord[]>();
  /** Per document namespace, documents by key. */
  readonly #docs = new Map<string, Map<string, StateDocument>>();
  readonly #blobs = new Map<string, { bytes: Uint8Array; modifiedAtMs: number }>();
  readonly #leases = new Map<string, LeaseState>();
  #open = false;

  constructor(options: MemoryStateStoreOptions) {
    this.#clock = options.clock;
    this.#namespace = options.namespace ?? 'default';
    this.#seq = new StoreSequence(options.clock);
  }

  /** Like the filesystem store, the first open writes the `meta` version stamp. */
  async open(): Promise<void> {
    this.#open = true;
    if (!this.#streams.has('meta')) {
      await this.append('meta', { storeVersion: RECORD_SCHEMA_VERSION });
    }
  }

  close(): Promise<void> {
    this.#open = false;
    return Promise.resolve();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #check(): void {
    if (!this.#open) {
      throw new YacronError('YC_ERR_STATE_CLOSED', 'Cannot use the memory state store: not open');
    }
  }

  /** Run `work` as one async operation, turning synchronous throws into rejections. */
  async #op<T>(work: () => T): Promise<T> {
    await Promise.resolve();
    this.#check();
    return work();
  }

  append(stream: string, data: object): Promise<StateRecord> {
    return this.#op(() => {
      validateStreamName(stream);
      assertPlainObject(data, `record of ${stream}`);
      const text = serializeEnvelope(data, `record of ${stream}`);
      const { id, writtenAtMs } = this.#seq.nextRecord();
      const stored = (JSON.parse(text) as { data: StateRecord['data'] }).data;
      const record: StateRecord = { stream, id, writtenAtMs, data: stored };
      let records = this.#streams.get(stream);
      if (!records) {
        records = [];
        this.#streams.set(stream, records);
      }
      records.push(record);
      return jsonRoundTrip(record);
    });
  }

  list(stream: string, options: ListOptions = {}): Promise<StateRecord[]> {
    return this.#op(() => {
      validateStreamName(stream);
      const records = this.#streams.get(stream) ?? [];
      const limit = options.limit ?? records.length;
      return jsonRoundTrip(records.slice(Math.max(0, records.length - limit)).reverse());
    });
  }

  getRecord(stream: string, id: string): Promise<StateRecord | undefined> {
    return this.#op(() => {
      validateStreamName(stream);
      if (!isRecordId(id)) return undefined;
      const record = this.#streams.get(stream)?.find((candidate) => candidate.id === id);
      return record && jsonRoundTrip(record);
    });
  }

  deriveMax(
    stream: string,
    field: string,
    options: DeriveMaxOptions = {},
  ): Promise<DerivedMax | undefined> {
    return this.#op(() => {
      validateStreamName(stream);
      assertDecideInputs(field);
      const records = [...(this.#streams.get(stream) ?? [])].reverse();
      const best = maxOverRecords(records, field, options);
      return best && jsonRoundTrip(best);
    });
  }

  prune(stream: string, keep: number): Promise<number> {
    return this.#op(() => {
      validateStreamName(stream);
      assertKeep(keep);
      const records = this.#streams.get(stream);
      if (!records || records.length <= keep) return 0;
      const removed = records.length - keep;
      records.splice(0, removed);
      if (records.length === 0) this.#streams.delete(stream);
      return removed;
    });
  }

  deleteStream(stream: string): Promise<boolean> {
    return this.#op(() => {
      validateStreamName(stream);
      return this.#streams.delete(stream);
    });
  }

  listStreams(prefix?: string): Promise<string[]> {
    return this.#op(() => filterPrefix(this.#streams.keys(), prefix));
  }

  getDocument(ns: string, key: string): Promise<StateDocument | undefined> {
    return this.#op(() => {
      validateStreamName(ns, 'document namespace');
      validateStreamName(key, 'document');
      const doc = this.#docs.get(ns)?.get(key);
      return doc && jsonRoundTrip(doc);
    });
  }

  updateDocument<T>(ns: string, key: string, decide: DocumentDecision<T>): Promise<T> {
    return this.#op(() => {
      validateStreamName(ns, 'document namespace');
      validateStreamName(key, 'document');
      const docs = this.#docs.get(ns) ?? new Map<string, StateDocument>();
      const current = docs.get(key);
      const change = decide(current && jsonRoundTrip(current));
      switch (change.kind) {
        case 'keep':
          break;
        case 'write': {
          const what = `document ${key} of ${ns}`;
          assertPlainObject(change.body, what);
          const text = serializeEnvelope(change.body, what);
          const body = (JSON.parse(text) as { data: StateDocument['body'] }).data;
          docs.set(key, { ns, key, body, modifiedAtMs: this.#clock.now() });
          this.#docs.set(ns, docs);
          break;
        }
        case 'delete':
          docs.delete(key);
          if (docs.size === 0) this.#docs.delete(ns);
          break;
      }
      return change.result;
    });
  }

  listDocuments(ns: string): Promise<StateDocument[]> {
    return this.#op(() => {
      validateStreamName(ns, 'document namespace');
      const docs = this.#docs.get(ns);
      if (!docs) return [];
      return filterPrefix(docs.keys(), undefined).map((key) => jsonRoundTrip(docs.get(key)!));
    });
  }

  listDocumentNamespaces(prefix?: string): Promise<string[]> {
    return this.#op(() => filterPrefix(this.#docs.keys(), prefix));
  }

  putBlob(bytes: Uint8Array): Promise<string> {
    return this.#op(() => {
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      const existing = this.#blobs.get(sha256);
      this.#blobs.set(sha256, {
        bytes: existing?.bytes ?? Uint8Array.from(bytes),
        modifiedAtMs: this.#clock.now(),
      });
      return sha256;
    });
  }

  getBlob(sha256: string): Promise<Uint8Array | undefined> {
    return this.#op(() => {
      assertSha256(sha256);
      const blob = this.#blobs.get(sha256);
      return blob && Uint8Array.from(blob.bytes);
    });
  }

  hasBlob(sha256: string): Promise<boolean> {
    return this.#op(() => {
      assertSha256(sha256);
      return this.#blobs.has(sha256);
    });
  }

  deleteBlob(sha256: string): Promise<boolean> {
    return this.#op(() => {
      assertSha256(sha256);
      return this.#blobs.delete(sha256);
    });
  }

  listBlobs(): Promise<BlobInfo[]> {
    return this.#op(() =>
      [...this.#blobs.entries()]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([sha256, blob]) => ({
          sha256,
          sizeBytes: blob.bytes.byteLength,
          modifiedAtMs: blob.modifiedAtMs,
        })),
    );
  }

  acquireLease(name: string, holder: string, ttlMs: number): Promise<LeaseResult> {
    return this.#op(() => {
      validateLeaseName(name, holder, ttlMs);
      const decision = decideAcquire(
        name,
        this.#leases.get(name),
        holder,
        ttlMs,
        this.#clock.now(),
      );
      if (decision.next) this.#leases.set(name, decision.next);
      return decision.result;
    });
  }

  renewLease(name: string, holder: string, fence: number, ttlMs: number): Promise<LeaseResult> {
    return this.#op(() => {
      validateLeaseName(name, holder, ttlMs);
      const decision = decideRenew(this.#leases.get(name), holder, fence, ttlMs, this.#clock.now());
      if (decision.next) this.#leases.set(name, decision.next);
      return decision.result;
    });
  }

  releaseLease(name: string, holder: string, fence: number): Promise<boolean> {
    return this.#op(() => {
      validateLeaseName(name, holder, 1);
      const decision = decideRelease(this.#leases.get(name), holder, fence, this.#clock.now());
      if (decision.next) this.#leases.set(name, decision.next);
      return decision.released;
    });
  }

  inspectLease(name: string): Promise<LeaseState | undefined> {
    return this.#op(() => {
      validateStreamName(name, 'lease');
      const lease = this.#leases.get(name);
      return lease && { ...lease };
    });
  }

  listLeases(prefix?: string): Promise<LeaseState[]> {
    return this.#op(() =>
      filterPrefix(this.#leases.keys(), prefix).map((name) => ({ ...this.#leases.get(name)! })),
    );
  }

  deleteLease(name: string): Promise<boolean> {
    return this.#op(() => {
      validateStreamName(name, 'lease');
      return this.#leases.delete(name);
    });
  }

  describe(): Promise<StoreDescription> {
    return this.#op(() => {
      let records = 0;
      for (const stream of this.#streams.values()) records += stream.length;
      return {
        backend: 'memory',
        namespace: this.#namespace,
        topology: 'single-node',
        topologySetting: 'single-node',
        schemaVersion: RECORD_SCHEMA_VERSION,
        stampedSchemaVersions: [RECORD_SCHEMA_VERSION],
        counts: {
          streams: this.#streams.size,
          records,
          docs: [...this.#docs.values()].reduce((sum, docs) => sum + docs.size, 0),
          blobs: this.#blobs.size,
          leases: this.#leases.size,
          quarantined: 0,
          tempFiles: 0,
        },
        quarantinedThisProcess: emptyQuarantineTally(),
        warnings: [],
      } satisfies StoreDescription;
    });
  }

  inventory(): Promise<StoreInventory> {
    return this.#op(() => ({
      streams: filterPrefix(this.#streams.keys(), undefined).map((name) => ({
        name,
        records: this.#streams.get(name)?.length ?? 0,
      })),
      documentNamespaces: filterPrefix(this.#docs.keys(), undefined).map((ns) => ({
        ns,
        documents: this.#docs.get(ns)?.size ?? 0,
      })),
      quarantined: 0,
    }));
  }

  sweep(): Promise<SweepReport> {
    return this.#op(() => ({ tempFiles: 0, quarantined: 0, orphanLocks: 0 }));
  }
}
