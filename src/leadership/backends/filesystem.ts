// The filesystem lease client (docs/clustering.md "Filesystem"): election over a private instance
// of the state store on a shared mount, through its flock-guarded fenced lease
// `leases/<enc(electionName)>.lease`, in the reference's file format so Python nodes can elect on
// the same directory. A holder renews its own tenure (holder and fence must match); a follower
// reads without the lock and only acquires once the foreign lease is past its expiry by the 1 s
// skew margin and it has itself seen the lease record unchanged for a full TTL on its monotonic
// clock (so a fast wall clock cannot take a lease its holder still renews). The @reboot ran-set is the append-only stream `cluster/reboot-ran`.
// Must not: grant a fence from an unlocked read, or treat a timed-out call as an answer.
import type { Clock } from '../../common/index.js';
import type { Logger } from '../../logging/index.js';
import { formatIsoUtc } from '../../common/index.js';
import type { ResolvedFilesystemBlock } from '../../config/index.js';
import {
  FsStateStore,
  newInstanceToken,
  probeLockFidelity,
  withTimeout,
  type LeaseResult,
  type LeaseState,
  type StateStore,
} from '../../state/index.js';
import {
  displayHolder,
  type LeaseClient,
  type LeaseDetails,
  type RanSetMarks,
  type RoundOutcome,
  type RoundTiming,
  type StoredRanSet,
} from '../lease-client.js';

export const RAN_SET_STREAM = 'cluster/reboot-ran';
const RAN_SET_KEEP = 512;
const RAN_SET_REREAD_MS = 60_000;

export interface FilesystemLeaseOptions extends ResolvedFilesystemBlock {
  readonly nodeName: string;
  readonly connectTimeoutMs: number;
}

export interface FilesystemLeaseDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  /** The store (a seam for tests); default: a private FsStateStore at the path. */
  readonly store?: StateStore & { readonly root?: string; readonly topology?: string };
  /** The lock-fidelity probe (a seam for tests). */
  readonly probe?: (root: string, timeoutMs: number) => Promise<void>;
}

export class FilesystemLeaseClient implements LeaseClient {
  readonly backend = 'filesystem' as const;
  readonly identity: string;
  readonly roundLabel = 'filesystem election round';
  readonly initialLabel = 'filesystem initial round';
  /** What this node writes as the lease holder: `<nodeName>#<12 hex>`. */
  readonly holder: string;
  readonly #options: FilesystemLeaseOptions;
  readonly #deps: FilesystemLeaseDeps;
  readonly #fs: FsStateStore | null;
  readonly #store: StateStore;
  /** Our tenure's fence, when we hold (or adopted) the lease. */
  #fence: number | null = null;
  #lastFence: number | null = null;
  #expiryWallMs: number | null = null;
  #stored: StoredRanSet = { jobSetId: null, jobs: new Set() };
  #readAtMs = -Infinity;
  #synced = false;
  #readFailureAtMs = -Infinity;
  /** The foreign lease record last inspected, and since when (monotonic) it has been the same. */
  #seen: { readonly version: string; readonly sinceMs: number } | null = null;

  constructor(options: FilesystemLeaseOptions, deps: FilesystemLeaseDeps) {
    this.#options = options;
    this.#deps = deps;
    this.identity = options.nodeName;
    this.holder = `${options.nodeName}#${newInstanceToken()}`;
    this.#fs =
      deps.store === undefined
        ? new FsStateStore(
            {
              path: options.path,
              deploymentId: options.deploymentId,
              topology: options.topology,
              lockTimeoutMs: options.connectTimeoutMs,
            },
            { clock: deps.clock, logger: deps.logger },
          )
        : null;
    this.#store = deps.store ?? this.#fs!;
  }

  async start(): Promise<void> {
    const timeoutMs = this.#options.connectTimeoutMs;
    await withTimeout(this.#store.open(), timeoutMs, this.#deps.clock, 'open the election store');
    try {
      const root = this.#fs?.root ?? this.#options.path;
      const probe =
        this.#deps.probe ??
        ((dir: string, ms: number) =>
          probeLockFidelity(dir, this.#fs?.instance ?? 'probe', ms, this.#deps.clock));
      await probe(root, timeoutMs);
    } catch (error) {
      await this.#store.close().catch(() => undefined);
      throw new Error(
        `cluster.backend filesystem: refusing to elect over ${this.#options.path}: ${String((error as Error).message)}`,
      );
    }
    if (this.#fs !== null && this.#fs.topology !== 'shared') {
      this.#deps.logger.warn(
        `cluster: filesystem election at ${this.#options.path} resolved topology '${this.#fs.topology}': its locks exclude only processes of this host (set cluster.filesystem.topology: shared for a mount several hosts share)`,
      );
    }
  }

  timing(): RoundTiming {
    const ttl = this.#options.ttlSeconds;
    const period = Math.max(1, ttl / 3);
    return { periodMs: period * 1000, roundDeadlineMs: Math.max(1, ttl - period - 1) * 1000 };
  }

  async round(marks: RanSetMarks): Promise<RoundOutcome> {
    const clock = this.#deps.clock;
    const ttlMs = this.#options.ttlSeconds * 1000;
    const name = this.#options.electionName;
    let leaseLost = false;
    if (this.#fence !== null) {
      const sentMs = clock.monotonic();
      const renewed = await this.#op(this.#store.renewLease(name, this.holder, this.#fence, ttlMs));
      if (renewed.acquired) return this.#leader(renewed, sentMs, marks);
      leaseLost = true;
      this.#fence = null;
    }
    const state = await this.#op(this.#store.inspectLease(name));
    const freshUntilMs = clock.monotonic() + ttlMs;
    if (state !== undefined && state.expiresAtMs > 0 && state.holder === this.holder) {
      this.#fence = state.fence; // adopt: the next locked renew decides
      return this.#follower(this.#options.nodeName, freshUntilMs, leaseLost, marks);
    }
    if (state !== undefined && state.expiresAtMs > 0 && !this.#mayTakeOver(state, ttlMs)) {
      this.#lastFence = state.fence;
      return this.#follower(displayHolder(state.holder), freshUntilMs, leaseLost, marks);
    }
    const sentMs = clock.monotonic();
    const acquired = await this.#op(this.#store.acquireLease(name, this.holder, ttlMs));
    if (acquired.acquired) {
      this.#synced = false; // gaining leadership forces a re-read first
      return this.#leader(acquired, sentMs, marks);
    }
    const confirm = await this.#op(this.#store.inspectLease(name));
    if (confirm?.holder === this.holder && confirm.expiresAtMs > 0) this.#fence = confirm.fence;
    this.#lastFence = acquired.fence;
    return this.#follower(
      displayHolder(acquired.holder),
      clock.monotonic() + ttlMs,
      leaseLost,
      marks,
    );
  }

  async release(): Promise<void> {
    const fence = this.#fence;
    if (fence === null) return;
    this.#fence = null;
    await this.#op(this.#store.releaseLease(this.#options.electionName, this.holder, fence));
  }

  async close(): Promise<void> {
    await this.#store.close();
  }

  details(leader: boolean, holder: string | null): LeaseDetails {
    return {
      path: this.#options.path,
      electionName: this.#options.electionName,
      identity: this.holder,
      holder,
      fence: leader ? this.#fence : this.#lastFence,
      expiry: leader && this.#expiryWallMs !== null ? formatIsoUtc(this.#expiryWallMs) : null,
    };
  }

  startupLine(): string {
    const o = this.#options;
    return `cluster: filesystem election ready at ${o.path} (election=${o.electionName}, identity=${this.holder}, ttl=${o.ttlSeconds}s)`;
  }

  /**
   * Whether a foreign, unreleased lease may be taken: the reference's rule (its `expiresAt` is
   * 1 s behind our wall clock) **and** ours (we have seen this very record — holder, fence,
   * expiry — unchanged for a full TTL on our own monotonic clock, the rule client-go uses). The
   * second makes takeover independent of wall-clock skew: a holder that still renews changes
   * the record every period, and one that stopped renewing stopped acting on its tenure
   * (fenceUntilMs) before a TTL had passed since its last renewal was sent, which was before we
   * saw it (docs/clustering.md "Clock skew").
   */
  #mayTakeOver(state: LeaseState, ttlMs: number): boolean {
    const clock = this.#deps.clock;
    const version = `${state.holder}\u0000${state.fence}\u0000${state.expiresAtMs}`;
    if (this.#seen?.version !== version) {
      this.#seen = { version, sinceMs: clock.monotonic() };
    }
    const expiredByWall = state.expiresAtMs <= clock.now() - 1000;
    const quietForTtl = clock.monotonic() - this.#seen.sinceMs >= ttlMs;
    return expiredByWall && quietForTtl;
  }

  #op<T>(work: Promise<T>): Promise<T> {
    const round = this.timing().roundDeadlineMs;
    const timeoutMs = Math.min(this.#options.connectTimeoutMs, Math.max(500, round / 4));
    return withTimeout(work, timeoutMs, this.#deps.clock, 'reach the election store');
  }

  async #leader(result: LeaseResult, sentMs: number, marks: RanSetMarks): Promise<RoundOutcome> {
    const clock = this.#deps.clock;
    const ttlMs = this.#options.ttlSeconds * 1000;
    this.#fence = result.fence;
    this.#lastFence = result.fence;
    this.#expiryWallMs = result.expiresAtMs;
    const ranSet = await this.#syncRanSet(marks, true);
    return {
      kind: 'leader',
      holder: this.#options.nodeName,
      fenceUntilMs: sentMs + ttlMs - 1000,
      freshUntilMs: clock.monotonic() + ttlMs,
      ...(ranSet && { ranSet }),
    };
  }

  async #follower(
    holder: string | null,
    freshUntilMs: number,
    leaseLost: boolean,
    marks: RanSetMarks,
  ): Promise<RoundOutcome> {
    this.#expiryWallMs = null;
    const ranSet = await this.#syncRanSet(marks, false);
    return { kind: 'follower', holder, freshUntilMs, leaseLost, ...(ranSet && { ranSet }) };
  }

  /**
   * Append this node's unpersisted marks, then read the newest records under the live id: every
   * round while a holder is unsynced, else at most once a minute. undefined = not read now.
   */
  async #syncRanSet(marks: RanSetMarks, holder: boolean): Promise<StoredRanSet | undefined> {
    const clock = this.#deps.clock;
    try {
      const known = this.#stored.jobSetId === marks.jobSetId ? this.#stored.jobs : new Set();
      const missing = [...marks.jobs].filter((job) => !known.has(job));
      for (const job of missing) {
        await this.#op(this.#store.append(RAN_SET_STREAM, { jobSetId: marks.jobSetId, job }));
      }
      if (missing.length > 0) await this.#op(this.#store.prune(RAN_SET_STREAM, RAN_SET_KEEP));
      const due = clock.monotonic() - this.#readAtMs >= RAN_SET_REREAD_MS;
      if (!due && missing.length === 0 && (this.#synced || !holder)) return undefined;
      const records = await this.#op(this.#store.list(RAN_SET_STREAM, { limit: RAN_SET_KEEP }));
      const jobs = new Set<string>();
      for (const record of records) {
        const data = record.data as { jobSetId?: unknown; job?: unknown };
        if (data.jobSetId === marks.jobSetId && typeof data.job === 'string') jobs.add(data.job);
      }
      this.#readAtMs = clock.monotonic();
      this.#synced = true;
      this.#stored = { jobSetId: marks.jobSetId, jobs };
      return this.#stored;
    } catch (error) {
      if (clock.monotonic() - this.#readFailureAtMs >= RAN_SET_REREAD_MS) {
        this.#readFailureAtMs = clock.monotonic();
        this.#deps.logger.warn(
          `cluster: filesystem election could not read the @reboot record ${RAN_SET_STREAM}; deferring pending @reboot one-shots: ${String((error as Error).message)}`,
        );
      }
      return undefined;
    }
  }
}
