// A StateStore that forwards every operation to an inner store through one `around` hook: the
// shared skeleton of the store wrappers (metering and rate limiting, fault injection), so each
// wrapper states only what it adds. Must not: change arguments or results on its own.
import type {
  BlobInfo,
  DeriveMaxOptions,
  DerivedMax,
  DescribeOptions,
  DocumentDecision,
  LeaseResult,
  LeaseState,
  ListOptions,
  StateDocument,
  StateRecord,
  StateStore,
  StoreDescription,
  StoreInventory,
  SweepOptions,
  SweepReport,
} from './types.js';

/** A StateStore operation by method name (asyncDispose is close). */
export type StoreMethod = Exclude<keyof StateStore, typeof Symbol.asyncDispose>;

export abstract class DelegatingStateStore implements StateStore {
  /** The wrapped store. */
  readonly inner: StateStore;

  constructor(inner: StateStore) {
    this.inner = inner;
  }

  /** Run one forwarded call; `call` performs it on the inner store. */
  protected abstract around<T>(method: StoreMethod, call: () => Promise<T>): Promise<T>;

  open(): Promise<void> {
    return this.around('open', () => this.inner.open());
  }

  close(): Promise<void> {
    return this.around('close', () => this.inner.close());
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  append(stream: string, data: object): Promise<StateRecord> {
    return this.around('append', () => this.inner.append(stream, data));
  }

  list(stream: string, options?: ListOptions): Promise<StateRecord[]> {
    return this.around('list', () => this.inner.list(stream, options));
  }

  getRecord(stream: string, id: string): Promise<StateRecord | undefined> {
    return this.around('getRecord', () => this.inner.getRecord(stream, id));
  }

  deriveMax(
    stream: string,
    field: string,
    options?: DeriveMaxOptions,
  ): Promise<DerivedMax | undefined> {
    return this.around('deriveMax', () => this.inner.deriveMax(stream, field, options));
  }

  prune(stream: string, keep: number): Promise<number> {
    return this.around('prune', () => this.inner.prune(stream, keep));
  }

  deleteStream(stream: string): Promise<boolean> {
    return this.around('deleteStream', () => this.inner.deleteStream(stream));
  }

  listStreams(prefix?: string): Promise<string[]> {
    return this.around('listStreams', () => this.inner.listStreams(prefix));
  }

  getDocument(ns: string, key: string): Promise<StateDocument | undefined> {
    return this.around('getDocument', () => this.inner.getDocument(ns, key));
  }

  updateDocument<T>(ns: string, key: string, decide: DocumentDecision<T>): Promise<T> {
    return this.around('updateDocument', () => this.inner.updateDocument(ns, key, decide));
  }

  listDocuments(ns: string): Promise<StateDocument[]> {
    return this.around('listDocuments', () => this.inner.listDocuments(ns));
  }

  listDocumentNamespaces(prefix?: string): Promise<string[]> {
    return this.around('listDocumentNamespaces', () => this.inner.listDocumentNamespaces(prefix));
  }

  putBlob(bytes: Uint8Array): Promise<string> {
    return this.around('putBlob', () => this.inner.putBlob(bytes));
  }

  getBlob(sha256: string): Promise<Uint8Array | undefined> {
    return this.around('getBlob', () => this.inner.getBlob(sha256));
  }

  hasBlob(sha256: string): Promise<boolean> {
    return this.around('hasBlob', () => this.inner.hasBlob(sha256));
  }

  deleteBlob(sha256: string): Promise<boolean> {
    return this.around('deleteBlob', () => this.inner.deleteBlob(sha256));
  }

  listBlobs(): Promise<BlobInfo[]> {
    return this.around('listBlobs', () => this.inner.listBlobs());
  }

  acquireLease(name: string, holder: string, ttlMs: number): Promise<LeaseResult> {
    return this.around('acquireLease', () => this.inner.acquireLease(name, holder, ttlMs));
  }

  renewLease(name: string, holder: string, fence: number, ttlMs: number): Promise<LeaseResult> {
    return this.around('renewLease', () => this.inner.renewLease(name, holder, fence, ttlMs));
  }

  releaseLease(name: string, holder: string, fence: number): Promise<boolean> {
    return this.around('releaseLease', () => this.inner.releaseLease(name, holder, fence));
  }

  inspectLease(name: string): Promise<LeaseState | undefined> {
    return this.around('inspectLease', () => this.inner.inspectLease(name));
  }

  listLeases(prefix?: string): Promise<LeaseState[]> {
    return this.around('listLeases', () => this.inner.listLeases(prefix));
  }

  deleteLease(name: string): Promise<boolean> {
    return this.around('deleteLease', () => this.inner.deleteLease(name));
  }

  describe(options?: DescribeOptions): Promise<StoreDescription> {
    return this.around('describe', () => this.inner.describe(options));
  }

  inventory(): Promise<StoreInventory> {
    return this.around('inventory', () => this.inner.inventory());
  }

  sweep(options: SweepOptions): Promise<SweepReport> {
    return this.around('sweep', () => this.inner.sweep(options));
  }
}
