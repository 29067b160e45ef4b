// A StateStore wrapper that meters every operation (yacron2_state_ops_total, _op_errors_total,
// _op_seconds_total by op) and passes all but lease operations through the maxOpsPerSecond token
// bucket. Leases bypass the bucket on purpose (spec "Rate limiting"): a renew queued behind bulk
// writes could overshoot its TTL and expire a live holder. Throttle waits are counted too.
import type { Clock } from '../common/index.js';
import type { StateMetrics, StateOp } from './metrics.js';
import { TokenBucket } from './rate-limiter.js';
import { DelegatingStateStore, type StoreMethod } from './delegating-store.js';
import type { StateStore } from './types.js';

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

/** The metric label of each forwarded operation (open and close are not metered). */
const OP_LABELS: Readonly<Record<Exclude<StoreMethod, 'open' | 'close'>, StateOp>> = {
  append: 'append',
  list: 'list',
  getRecord: 'get-record',
  deriveMax: 'derive-max',
  prune: 'prune',
  deleteStream: 'delete-stream',
  listStreams: 'list-streams',
  getDocument: 'doc-read',
  updateDocument: 'doc-mutate',
  listDocuments: 'doc-list',
  listDocumentNamespaces: 'doc-list',
  putBlob: 'put-blob',
  getBlob: 'get-blob',
  hasBlob: 'has-blob',
  deleteBlob: 'delete-blob',
  listBlobs: 'list-blobs',
  acquireLease: 'lease-acquire',
  renewLease: 'lease-renew',
  releaseLease: 'lease-release',
  inspectLease: 'lease-inspect',
  listLeases: 'lease-list',
  deleteLease: 'lease-delete',
  describe: 'describe',
  inventory: 'inventory',
  sweep: 'sweep',
};

export class InstrumentedStateStore extends DelegatingStateStore {
  readonly #clock: Clock;
  readonly #metrics: StateMetrics | undefined;
  readonly #onOpened: (() => void) | undefined;
  readonly #ratePerSecond: number;
  #bucket: TokenBucket | undefined;

  constructor(inner: StateStore, options: InstrumentedStoreOptions, deps: InstrumentedStoreDeps) {
    super(inner);
    this.#clock = deps.clock;
    this.#metrics = deps.metrics;
    this.#onOpened = deps.onOpened;
    this.#ratePerSecond = options.maxOpsPerSecond ?? 0;
  }

  override async open(): Promise<void> {
    await this.inner.open();
    if (this.#ratePerSecond > 0 && !this.#bucket) {
      this.#bucket = new TokenBucket(this.#ratePerSecond, this.#clock);
    }
    this.#onOpened?.();
  }

  override async close(): Promise<void> {
    this.#bucket?.close();
    this.#bucket = undefined;
    await this.inner.close();
  }

  protected async around<T>(method: StoreMethod, work: () => Promise<T>): Promise<T> {
    if (method === 'open' || method === 'close') return work();
    const op = OP_LABELS[method];
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
}
