// The filesystem StateStore (spec "The store model"): <path>/<deploymentId>/ holding records/,
// docs/, blobs/, leases/, tmp/ and quarantine/, plus the meta version stamp. It needs only
// atomic rename and advisory flock, so the same code serves a local directory and a shared
// NFS/EFS mount. This file wires the parts together and owns the lifecycle, the meta stamp,
// describe() and sweep(); the parts own their file formats.
import { lstat, readdir, rm, unlink } from 'node:fs/promises';
import * as path from 'node:path';
import type { Clock } from '../common/clock.js';
import { YacronError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import { FileLocker, processLockQueue } from './flock.js';
import { FsBlobs } from './fs-blobs.js';
import { FsQuarantine, type FsContext } from './fs-context.js';
import { FsDocs, LOCK_SUFFIX } from './fs-docs.js';
import {
  DEFAULT_NAMESPACE,
  ensureLayout,
  errorCode,
  layoutFor,
  writeAtomic,
  type FsLayout,
} from './fs-files.js';
import { FsLeases } from './fs-leases.js';
import { FsStreams, META_STREAM } from './fs-streams.js';
import type { StateMetrics } from './metrics.js';
import { RecordIdSource, newProcessId } from './record-format.js';
import { DEFAULT_MAX_RECORD_BYTES } from './store-checks.js';
import { resolveTopology, type TopologyProbeDeps } from './topology.js';
import {
  RECORD_SCHEMA_VERSION,
  type BlobInfo,
  type DeleteDocOptions,
  type DeriveMaxOptions,
  type DerivedMax,
  type DescribeOptions,
  type DocDeleteResult,
  type DocEntry,
  type DocWriteResult,
  type LeaseResult,
  type LeaseState,
  type ListOptions,
  type PutDocOptions,
  type StateRecord,
  type StateStore,
  type StateTopology,
  type StateTopologySetting,
  type StoreDescription,
  type SweepOptions,
  type SweepReport,
} from './types.js';

export interface FsStateStoreOptions {
  /** state.path: the store root (the namespace directory goes under it). */
  readonly path: string;
  /** state.deploymentId; null/undefined = the `default` namespace. */
  readonly deploymentId?: string | null;
  /** state.topology (default auto: probe /proc/mounts). */
  readonly topology?: StateTopologySetting;
  /** Cap on one record/document file, written or read (default 16 MiB). */
  readonly maxRecordBytes?: number;
  /**
   * fsync each record and blob (and its directory) before the write reports done (default
   * false; documents and leases are always fsynced). See docs/durable-state-store.md.
   */
  readonly fsyncRecords?: boolean;
  /** Longest wait for a contended flock before the operation fails (default 10 s). */
  readonly lockTimeoutMs?: number;
  /** Memory for parsed immutable records (default 16 MiB; 0 disables the cache). */
  readonly recordCacheBytes?: number;
}

export interface FsStateStoreDeps extends TopologyProbeDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  /** Lock contention is counted here (ops are counted by InstrumentedStateStore). */
  readonly metrics?: StateMetrics;
}

interface OpenParts {
  readonly streams: FsStreams;
  readonly docs: FsDocs;
  readonly leases: FsLeases;
  readonly blobs: FsBlobs;
  readonly locker: FileLocker;
  readonly quarantine: FsQuarantine;
}

export class FsStateStore implements StateStore {
  readonly #options: FsStateStoreOptions;
  readonly #deps: FsStateStoreDeps;
  readonly #layout: FsLayout;
  readonly #ids: RecordIdSource;
  #parts: OpenParts | undefined;
  #topology: StateTopology = 'single-node';
  #stamped: string[] = [];
  #warnings: string[] = [];
  readonly #inflight = new Set<Promise<unknown>>();

  constructor(options: FsStateStoreOptions, deps: FsStateStoreDeps) {
    this.#options = options;
    this.#deps = deps;
    this.#layout = layoutFor(options.path, options.deploymentId);
    this.#ids = new RecordIdSource(deps.clock, newProcessId());
  }

  /** The namespace directory. */
  get root(): string {
    return this.#layout.root;
  }

  /** The resolved topology (valid after open()). */
  get topology(): StateTopology {
    return this.#topology;
  }

  async open(): Promise<void> {
    if (this.#parts) return;
    const setting = this.#options.topology ?? 'auto';
    const resolution = await resolveTopology(setting, this.#options.path, this.#deps);
    this.#topology = resolution.topology;
    await ensureLayout(this.#layout);
    const { clock, logger } = this.#deps;
    const quarantine = new FsQuarantine(this.#layout, logger, this.#ids);
    const locker = new FileLocker({ workerOnly: this.#topology === 'shared', clock });
    const ctx: FsContext = {
      layout: this.#layout,
      clock,
      logger,
      ids: this.#ids,
      quarantine,
      maxRecordBytes: this.#options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES,
      fsyncRecords: this.#options.fsyncRecords ?? false,
      withLock: (lockPath, work) => this.#withLock(locker, lockPath, work),
    };
    const streams = new FsStreams(ctx, this.#options.recordCacheBytes ?? 16 * 1024 * 1024);
    this.#parts = {
      streams,
      docs: new FsDocs(ctx),
      leases: new FsLeases(ctx),
      blobs: new FsBlobs(ctx),
      locker,
      quarantine,
    };
    try {
      await this.#stamp(streams);
    } catch (error) {
      this.#parts = undefined;
      await locker.close();
      throw error;
    }
    logger.info(
      {
        root: this.#layout.root,
        topology: this.#topology,
        topologySetting: setting,
        ...(resolution.fsType !== undefined && { fsType: resolution.fsType }),
      },
      `State store open at ${this.#layout.root} (${this.#topology})`,
    );
  }

  async close(): Promise<void> {
    const parts = this.#parts;
    if (!parts) return;
    this.#parts = undefined;
    while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight]);
    await parts.locker.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Write the meta stamp once; warn when the store was stamped by a newer record scheme. */
  async #stamp(streams: FsStreams): Promise<void> {
    const stamps = await streams.readMetaStamps();
    const versions = new Set<string>();
    for (const stamp of stamps) {
      versions.add(stamp.schemaVersion);
      const scheme = (stamp.data as { recordSchema?: unknown } | null)?.recordSchema;
      if (typeof scheme === 'string') versions.add(scheme);
    }
    if (versions.size === 0) {
      await streams.append(META_STREAM, {
        recordSchema: RECORD_SCHEMA_VERSION,
        stampedAtMs: this.#deps.clock.now(),
        stampedBy: 'yacron2',
      });
      versions.add(RECORD_SCHEMA_VERSION);
    }
    this.#stamped = [...versions].sort();
    this.#warnings = [];
    const unknown = this.#stamped.filter((version) => version !== RECORD_SCHEMA_VERSION);
    if (unknown.length > 0) {
      const message =
        `The state store at ${this.#layout.root} is stamped by record scheme ${unknown.join(', ')}, ` +
        `newer than this build understands (${RECORD_SCHEMA_VERSION}): records of the newer ` +
        'scheme will be quarantined on read. Upgrade this node, or see `yacron2 state migrate-schema`.';
      this.#warnings.push(message);
      this.#deps.logger.warn({ root: this.#layout.root, stamped: this.#stamped }, message);
    }
  }

  async #withLock<T>(
    locker: FileLocker,
    lockPath: string,
    work: () => Promise<T>,
    timeoutMs?: number,
  ): Promise<T> {
    return processLockQueue.run(lockPath, async () => {
      const held = await locker.acquire(
        lockPath,
        timeoutMs ?? this.#options.lockTimeoutMs ?? 10_000,
      );
      this.#deps.metrics?.lockAcquired(held.waitedMs / 1000);
      try {
        return await work();
      } finally {
        await held.release();
      }
    });
  }

  /** Run one operation on the open store, tracked so close() waits for it. */
  #op<T>(work: (parts: OpenParts) => Promise<T>): Promise<T> {
    const parts = this.#parts;
    if (!parts) {
      return Promise.reject(
        new YacronError(
          'YC_ERR_STATE_CLOSED',
          `Cannot use the state store at ${this.#layout.root}: not open`,
        ),
      );
    }
    const running = (async () => work(parts))();
    this.#inflight.add(running);
    void running.then(
      () => this.#inflight.delete(running),
      () => this.#inflight.delete(running),
    );
    return running;
  }

  append(stream: string, data: object): Promise<StateRecord> {
    return this.#op((parts) => parts.streams.append(stream, data));
  }

  list(stream: string, options?: ListOptions): Promise<StateRecord[]> {
    return this.#op((parts) => parts.streams.list(stream, options));
  }

  deriveMax(
    stream: string,
    field: string,
    options?: DeriveMaxOptions,
  ): Promise<DerivedMax | undefined> {
    return this.#op((parts) => parts.streams.deriveMax(stream, field, options));
  }

  prune(stream: string, keep: number): Promise<number> {
    return this.#op((parts) => parts.streams.prune(stream, keep));
  }

  deleteStream(stream: string): Promise<boolean> {
    return this.#op((parts) => parts.streams.deleteStream(stream));
  }

  listStreams(prefix?: string): Promise<string[]> {
    return this.#op((parts) => parts.streams.listStreams(prefix));
  }

  getDoc(key: string): Promise<DocEntry | undefined> {
    return this.#op((parts) => parts.docs.get(key));
  }

  putDoc(key: string, value: unknown, options?: PutDocOptions): Promise<DocWriteResult> {
    return this.#op((parts) => parts.docs.put(key, value, options));
  }

  deleteDoc(key: string, options?: DeleteDocOptions): Promise<DocDeleteResult> {
    return this.#op((parts) => parts.docs.delete(key, options));
  }

  listDocs(prefix?: string): Promise<string[]> {
    return this.#op((parts) => parts.docs.list(prefix));
  }

  putBlob(bytes: Uint8Array): Promise<string> {
    return this.#op((parts) => parts.blobs.put(bytes));
  }

  getBlob(sha256: string): Promise<Uint8Array | undefined> {
    return this.#op((parts) => parts.blobs.get(sha256));
  }

  hasBlob(sha256: string): Promise<boolean> {
    return this.#op((parts) => parts.blobs.has(sha256));
  }

  deleteBlob(sha256: string): Promise<boolean> {
    return this.#op((parts) => parts.blobs.delete(sha256));
  }

  listBlobs(): Promise<BlobInfo[]> {
    return this.#op((parts) => parts.blobs.list());
  }

  acquireLease(name: string, holder: string, ttlMs: number): Promise<LeaseResult> {
    return this.#op((parts) => parts.leases.acquire(name, holder, ttlMs));
  }

  renewLease(name: string, holder: string, fence: number, ttlMs: number): Promise<LeaseResult> {
    return this.#op((parts) => parts.leases.renew(name, holder, fence, ttlMs));
  }

  releaseLease(name: string, holder: string, fence: number): Promise<boolean> {
    return this.#op((parts) => parts.leases.release(name, holder, fence));
  }

  inspectLease(name: string): Promise<LeaseState | undefined> {
    return this.#op((parts) => parts.leases.inspect(name));
  }

  listLeases(prefix?: string): Promise<LeaseState[]> {
    return this.#op((parts) => parts.leases.list(prefix));
  }

  deleteLease(name: string): Promise<boolean> {
    return this.#op((parts) => parts.leases.delete(name));
  }

  describe(options: DescribeOptions = {}): Promise<StoreDescription> {
    return this.#op(async (parts) => {
      const { streams, records } = await parts.streams.count();
      const counts = {
        streams,
        records,
        docs: await parts.docs.count(),
        blobs: await parts.blobs.count(),
        leases: await parts.leases.count(),
        quarantined: (await walkFiles(this.#layout.quarantine)).length,
        tempFiles: (await readdir(this.#layout.tmp)).length,
      };
      const description: StoreDescription = {
        backend: 'filesystem',
        namespace: this.#options.deploymentId ?? DEFAULT_NAMESPACE,
        topology: this.#topology,
        topologySetting: this.#options.topology ?? 'auto',
        root: this.#layout.root,
        schemaVersion: RECORD_SCHEMA_VERSION,
        stampedSchemaVersions: [...this.#stamped],
        counts,
        quarantinedThisProcess: { ...parts.quarantine.tally },
        warnings: [...this.#warnings],
      };
      if (!options.probeWrite) return description;
      return { ...description, writable: await this.#probeWrite() };
    });
  }

  /** Place and remove a probe document file: proves tmp/ and docs/ take writes and renames. */
  async #probeWrite(): Promise<boolean> {
    const token = this.#ids.token();
    const target = path.join(this.#layout.docs, `.probe-${token}`);
    try {
      await writeAtomic(this.#layout.tmp, `${token}.probe.tmp`, target, 'probe', { durable: true });
      await unlink(target);
      return true;
    } catch (error) {
      this.#deps.logger.warn(
        { root: this.#layout.root, code: errorCode(error) },
        `State store ${this.#layout.root} is not writable`,
      );
      return false;
    }
  }

  sweep(options: SweepOptions): Promise<SweepReport> {
    return this.#op(async (parts) => {
      const nowMs = this.#deps.clock.now();
      let tempFiles = 0;
      let quarantined = 0;
      let orphanLocks = 0;
      if (options.tempOlderThanMs !== undefined) {
        for (const entry of await readdir(this.#layout.tmp)) {
          const entryPath = path.join(this.#layout.tmp, entry);
          if (await olderThan(entryPath, nowMs - options.tempOlderThanMs)) {
            await rm(entryPath, { recursive: true, force: true });
            tempFiles += 1;
          }
        }
      }
      if (options.quarantineOlderThanMs !== undefined) {
        for (const file of await walkFiles(this.#layout.quarantine)) {
          if (await olderThan(file, nowMs - options.quarantineOlderThanMs)) {
            await rm(file, { recursive: true, force: true });
            quarantined += 1;
          }
        }
      }
      if (options.orphanLocksIdleMs !== undefined) {
        const cutoffMs = nowMs - options.orphanLocksIdleMs;
        for (const dir of [this.#layout.docs, this.#layout.leases]) {
          orphanLocks += await this.#sweepOrphanLocks(parts.locker, dir, cutoffMs);
        }
      }
      return { tempFiles, quarantined, orphanLocks };
    });
  }

  /**
   * Remove `<x>.lock` files whose `<x>.json` is gone and which are older than the cutoff. Each is
   * taken with a try-lock first (a lock in use is skipped) and the data file re-checked under it;
   * a waiter that opened the old inode notices the swap and re-opens (FileLocker.acquire).
   */
  async #sweepOrphanLocks(locker: FileLocker, dir: string, cutoffMs: number): Promise<number> {
    let removed = 0;
    const entries = await readdir(dir);
    const present = new Set(entries);
    for (const entry of entries) {
      if (!entry.endsWith(LOCK_SUFFIX)) continue;
      const dataFile = `${entry.slice(0, -LOCK_SUFFIX.length)}.json`;
      const lockPath = path.join(dir, entry);
      if (present.has(dataFile) || !(await olderThan(lockPath, cutoffMs))) continue;
      try {
        removed += await this.#withLock(
          locker,
          lockPath,
          async () => {
            if (await exists(path.join(dir, dataFile))) return 0;
            await unlink(lockPath);
            return 1;
          },
          0,
        );
      } catch {
        // Held by someone right now: not idle, not ours to remove.
      }
    }
    return removed;
  }
}

async function olderThan(filePath: string, cutoffMs: number): Promise<boolean> {
  try {
    return (await lstat(filePath)).mtimeMs < cutoffMs;
  } catch {
    return false;
  }
}

async function exists(filePath: string): Promise<boolean> {
  try {
    await lstat(filePath);
    return true;
  } catch {
    return false;
  }
}

/** Every non-directory entry under `dir`, recursively (missing dir = none). */
async function walkFiles(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return [];
    throw error;
  }
  const files: string[] = [];
  for (const entry of entries) {
    const entryPath = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      // A quarantined record directory counts as one quarantined item, not its contents.
      if (/\.[0-9a-f]{12}-[0-9a-z]+-[0-9a-f]{6}$/.test(entry.name)) files.push(entryPath);
      else files.push(...(await walkFiles(entryPath)));
    } else {
      files.push(entryPath);
    }
  }
  return files;
}
