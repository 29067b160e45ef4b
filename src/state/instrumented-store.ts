// A StateStore wrapper that meters every operation (yacron2_state_ops_total, _op_errors_total,
// _op_seconds_total by op) and passes all but lease operations through the maxOpsPerSecond token
// bucket. Leases bypass the bucket on purpose (spec "Rate limiting"): a renew queued behind bulk
// writes could overshoot its TTL and expire a live holder. Throttle waits are counted too.
import type { Clock } from '../common/clock.js';
import type { StateMetrics, StateOp } from './metrics.js';
import { TokenBucket } from './rate-limiter.js';
import type {
  BlobInfo,
  DeleteDocOptions,
  DeriveMaxOptions,
  DerivedMax,
  DescribeOptions,
  DocDeleteResult,
  DocEntry,
  DocWriteResult,
  LeaseResult,
  LeaseState,
  ListOptions,
  PutDocOptions,
  StateRecord,
  StateStore,
  StoreDescription,
  SweepOptions,
  SweepReport,
} from './types.js';

export interface InstrumentedStoreOptions {
  /** state.maxOpsPerSecond; 0 or undefined = no limiter. */
  readonly maxOpsPerSecond?: number;
}

export interface InstrumentedStoreDeps {
  readonly clock: Clock;
  readonly metrics?: StateMetrics;
  /** Called after each successful open() (sets yacron2_state_info). */
  readonly onOpened?: () => void;
}

export class InstrumentedStateStore implements StateStore {
  readonly #inner: StateStore;
  readonly #clock: Clock;
  readonly #metrics: StateMetrics | undefined;
  readonly #onOpened: (() => void) | undefined;
  readonly #ratePerSecond: number;
  #bucket: TokenBucket | undefined;

  constructor(inner: StateStore, options: InstrumentedStoreOptions, deps: InstrumentedStoreDeps) {
    this.#inner = inner;
    this.#clock = deps.clock;
    this.#metrics = deps.metrics;
    this.#onOpened = deps.onOpened;
    this.#ratePerSecond = options.maxOpsPerSecond ?? 0;
  }

  /** The wrapped store. */
  get inner(): StateStore {
    return this.#inner;
  }

  async open(): Promise<void> {
    await this.#inner.open();
    if (this.#ratePerSecond > 0 && !this.#bucket) {
      this.#bucket = new TokenBucket(this.#ratePerSecond, this.#clock);
    }
    this.#onOpened?.();
  }

  async close(): Promise<void> {
    this.#bucket?.close();
    this.#bucket = undefined;
    await this.#inner.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #run<T>(op: StateOp, work: () => Promise<T>): Promise<T> {
    const bucket = op.startsWith('lease-') ? undefined : this.#bucket;
    if (bucket) {
      const waitedMs = await bucket.take();
      if (waitedMs > 0) this.#metrics?.throttled(waitedMs / 1000);
    }
    const startedMs = this.#clock.monotonic();
    try {
      const result = await work();
      this.#metrics?.observeOp(op, (this.#clock.monotonic() - startedMs) / 1000, false);
      return result;
    } catch (error) {
      this.#metrics?.observeOp(op, (this.#clock.monotonic() - startedMs) / 1000, true);
      throw error;
    }
  }

  append(stream: string, data: object): Promise<StateRecord> {
    return this.#run('append', () => this.#inner.append(stream, data));
  }

  list(stream: string, options?: ListOptions): Promise<StateRecord[]> {
    return this.#run('list', () => this.#inner.list(stream, options));
  }

  deriveMax(
    stream: string,
    field: string,
    options?: DeriveMaxOptions,
  ): Promise<DerivedMax | undefined> {
    return this.#run('derive-max', () => this.#inner.deriveMax(stream, field, options));
  }

  prune(stream: string, keep: number): Promise<number> {
    return this.#run('prune', () => this.#inner.prune(stream, keep));
  }

  deleteStream(stream: string): Promise<boolean> {
    return this.#run('delete-stream', () => this.#inner.deleteStream(stream));
  }

  listStreams(prefix?: string): Promise<string[]> {
    return this.#run('list-streams', () => this.#inner.listStreams(prefix));
  }

  getDoc(key: string): Promise<DocEntry | undefined> {
    return this.#run('get-doc', () => this.#inner.getDoc(key));
  }

  putDoc(key: string, value: unknown, options?: PutDocOptions): Promise<DocWriteResult> {
    return this.#run('put-doc', () => this.#inner.putDoc(key, value, options));
  }

  deleteDoc(key: string, options?: DeleteDocOptions): Promise<DocDeleteResult> {
    return this.#run('delete-doc', () => this.#inner.deleteDoc(key, options));
  }

  listDocs(prefix?: string): Promise<string[]> {
    return this.#run('list-docs', () => this.#inner.listDocs(prefix));
  }

  putBlob(bytes: Uint8Array): Promise<string> {
    return this.#run('put-blob', () => this.#inner.putBlob(bytes));
  }

  getBlob(sha256: string): Promise<Uint8Array | undefined> {
    return this.#run('get-blob', () => this.#inner.getBlob(sha256));
  }

  hasBlob(sha256: string): Promise<boolean> {
    return this.#run('has-blob', () => this.#inner.hasBlob(sha256));
  }

  deleteBlob(sha256: string): Promise<boolean> {
    return this.#run('delete-blob', () => this.#inner.deleteBlob(sha256));
  }

  listBlobs(): Promise<BlobInfo[]> {
    return this.#run('list-blobs', () => this.#inner.listBlobs());
  }

  acquireLease(name: string, holder: string, ttlMs: number): Promise<LeaseResult> {
    return this.#run('lease-acquire', () => this.#inner.acquireLease(name, holder, ttlMs));
  }

  renewLease(name: string, holder: string, fence: number, ttlMs: number): Promise<LeaseResult> {
    return this.#run('lease-renew', () => this.#inner.renewLease(name, holder, fence, ttlMs));
  }

  releaseLease(name: string, holder: string, fence: number): Promise<boolean> {
    return this.#run('lease-release', () => this.#inner.releaseLease(name, holder, fence));
  }

  inspectLease(name: string): Promise<LeaseState | undefined> {
    return this.#run('lease-inspect', () => this.#inner.inspectLease(name));
  }

  listLeases(prefix?: string): Promise<LeaseState[]> {
    return this.#run('lease-list', () => this.#inner.listLeases(prefix));
  }

  deleteLease(name: string): Promise<boolean> {
    return this.#run('lease-delete', () => this.#inner.deleteLease(name));
  }

  describe(options?: DescribeOptions): Promise<StoreDescription> {
    return this.#run('describe', () => this.#inner.describe(options));
  }

  sweep(options: SweepOptions): Promise<SweepReport> {
    return this.#run('sweep', () => this.#inner.sweep(options));
  }
}
