// The filesystem StateStore in the Python reference's on-disk format (docs/durable-state-store.md):
// <path>/<enc(deploymentId or "default")>/ holding records/, docs/, blobs/, leases/, quarantine/
// and tmp/, plus the meta version stamp. It needs only atomic rename and advisory flock, so the
// same code serves a local directory and a shared NFS/EFS mount, and a Python node and ours can
// share one directory. This file wires the parts together and owns the lifecycle, the meta
// stamp, describe() and sweep(); the parts own their file formats.
import { lstat, readdir, rm, unlink } from 'node:fs/promises';
import * as path from 'node:path';
import { type Clock, YacronError } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import { FileLocker, processLockQueue } from './flock.js';
import { flockHelper } from './flock-helper.js';
import { FsBlobs } from './fs-blobs.js';
import { FsQuarantine, type FsContext } from './fs-context.js';
import { DOC_SUFFIX, FsDocs, LOCK_SUFFIX } from './fs-docs.js';
import {
  errorCode,
  layoutFor,
  namespaceName,
  syncDir as realSyncDir,
  writeAtomic,
  type FsLayout,
  type SyncDir,
} from './fs-files.js';
import { FsLeases, LEASE_SUFFIX } from './fs-leases.js';
import { prepareNamespace } from './fs-root.js';
import { FsStreams, META_STREAM } from './fs-streams.js';
import type { StateMetrics } from './metrics.js';
import { StoreSequence } from './record-format.js';
import { DEFAULT_MAX_RECORD_BYTES } from './store-checks.js';
import { resolveTopology, type TopologyProbeDeps } from './topology.js';
import {
  RECORD_SCHEMA_VERSION,
  type BlobInfo,
  type DeriveMaxOptions,
  type DerivedMax,
  type DescribeOptions,
  type DocumentDecision,
  type LeaseResult,
  type LeaseState,
  type ListOptions,
  type StateDocument,
  type StateRecord,
  type StateStore,
  type StateTopology,
  type StateTopologySetting,
  type StoreDescription,
  type StoreInventory,
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
   * false; documents and leases are always fsynced). See docs/durable-state-store.md "Fsync".
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
  /** The directory fsync (a seam: tests observe which directories are synced). */
  readonly syncDir?: SyncDir;
}

interface OpenParts {
  readonly streams: FsStreams;
  readonly docs: FsDocs;
  readonly leases: FsLeases;
  readonly blobs: FsBlobs;
  readonly locker: FileLocker;
  readonly quarantine: FsQuarantine;
  readonly syncDir: SyncDir;
}

export class FsStateStore implements StateStore {
  readonly #options: FsStateStoreOptions;
  readonly #deps: FsStateStoreDeps;
  readonly #layout: FsLayout;
  readonly #seq: StoreSequence;
  #parts: OpenParts | undefined;
  #topology: StateTopology = 'single-node';
  #stamped: string[] = [];
  #warnings: string[] = [];
  readonly #inflight = new Set<Promise<unknown>>();

  constructor(options: FsStateStoreOptions, deps: FsStateStoreDeps) {
    this.#options = options;
    this.#deps = deps;
    this.#layout = layoutFor(options.path, options.deploymentId);
    this.#seq = new StoreSequence(deps.clock);
  }

  /** The namespace directory. */
  get root(): string {
    return this.#layout.root;
  }

  /** This backend object's instance token (in its record, temp and quarantine names). */
  get instance(): string {
    return this.#seq.instance;
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
    const { clock, logger } = this.#deps;
    flockHelper.warm();
    const syncDir = this.#deps.syncDir ?? realSyncDir;
    const dirWarnings = await prepareNamespace(this.#layout, this.#seq.instance, {
      logger,
      syncDir,
      euid: process.geteuid?.(),
    });
    const quarantine = new FsQuarantine(this.#layout, logger, clock, this.#seq.instance);
    const locker = new FileLocker({ clock });
    const ctx: FsContext = {
      layout: this.#layout,
      clock,
      logger,
      seq: this.#seq,
      quarantine,
      maxRecordBytes: this.#options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES,
      fsyncRecords: this.#options.fsyncRecords ?? false,
      syncDir,
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
      syncDir,
    };
    try {
      await this.#stamp(streams);
      await streams.learnExistingDirs();
    } catch (error) {
      this.#parts = undefined;
      await locker.close();
      throw error;
    }
    this.#warnings.unshift(...dirWarnings);
    logger.info(
      {
        root: this.#layout.root,
        topology: this.#topology,
        topologySetting: setting,
        instance: this.#seq.instance,
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

  /**
   * Write the meta stamp `{storeVersion: "v1"}` once: when no meta record parses to an object
   * with a schemaVersion. A newest stamp of another scheme only logs a warning.
   */
  async #stamp(streams: FsStreams): Promise<void> {
    const stamps = await streams.readMetaStamps();
    if (stamps.length === 0) {
      await streams.append(META_STREAM, { storeVersion: RECORD_SCHEMA_VERSION });
    }
    const versions = new Set<string>([RECORD_SCHEMA_VERSION]);
    if (stamps.length > 0) versions.clear();
    for (const stamp of stamps) {
      versions.add(stamp.schemaVersion);
      const declared = (stamp.data as { storeVersion?: unknown } | null)?.storeVersion;
      if (typeof declared === 'string') versions.add(declared);
    }
    this.#stamped = [...versions].sort();
    this.#warnings = [];
    const newest = stamps[0]?.schemaVersion;
    if (newest !== undefined && newest !== RECORD_SCHEMA_VERSION) {
      const message =
        `The state store at ${this.#layout.root} is stamped by record scheme ${newest}, ` +
        `newer than this build understands (${RECORD_SCHEMA_VERSION}): records of the newer ` +
        'scheme are skipped and left in place. Upgrade this node, or see `yacron2 state migrate-schema`.';
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

  getRecord(stream: string, id: string): Promise<StateRecord | undefined> {
    return this.#op((parts) => parts.streams.get(stream, id));
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

  getDocument(ns: string, key: string): Promise<StateDocument | undefined> {
    return this.#op((parts) => parts.docs.get(ns, key));
  }

  updateDocument<T>(ns: string, key: string, decide: DocumentDecision<T>): Promise<T> {
    return this.#op((parts) => parts.docs.update(ns, key, decide));
  }

  listDocuments(ns: string): Promise<StateDocument[]> {
    return this.#op((parts) => parts.docs.list(ns));
  }

  listDocumentNamespaces(prefix?: string): Promise<string[]> {
    return this.#op((parts) => parts.docs.namespaces(prefix));
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
        namespace: namespaceName(this.#options.deploymentId),
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
      return { ...description, writable: await this.#probeWrite(parts.syncDir) };
    });
  }

  inventory(): Promise<StoreInventory> {
    return this.#op(async (parts) => ({
      streams: await parts.streams.sizes(),
      documentNamespaces: await parts.docs.sizes(),
      quarantined: (await walkFiles(this.#layout.quarantine)).length,
    }));
  }

  /** Write, fsync and remove a probe file: proves tmp/ takes writes and renames. */
  async #probeWrite(syncDir: SyncDir): Promise<boolean> {
    const temp = this.#seq.nextTemp();
    const target = path.join(this.#layout.tmp, `startup-${this.#seq.instance}.probe`);
    try {
      await writeAtomic(this.#layout.tmp, temp, target, 'probe', { durable: true, syncDir });
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
        tempFiles = await removeOldTopLevel(this.#layout.tmp, nowMs - options.tempOlderThanMs, {
          ownDirs: /^deleted-/,
        });
      }
      if (options.quarantineOlderThanMs !== undefined) {
        quarantined = await removeOldTopLevel(
          this.#layout.quarantine,
          nowMs - options.quarantineOlderThanMs,
          {},
        );
      }
      if (options.orphanLocksIdleMs !== undefined) {
        const cutoffMs = nowMs - options.orphanLocksIdleMs;
        for (const dir of await parts.docs.namespaceDirs()) {
          orphanLocks += await this.#sweepOrphanLocks(parts.locker, dir, DOC_SUFFIX, cutoffMs);
        }
        orphanLocks += await this.#sweepOrphanLocks(
          parts.locker,
          this.#layout.leases,
          LEASE_SUFFIX,
          cutoffMs,
        );
      }
      return { tempFiles, quarantined, orphanLocks };
    });
  }

  /**
   * Remove `<x>.lock` files whose `<x><dataSuffix>` is gone and which have been idle since the
   * cutoff. Each is taken with a try-lock first (a lock in use is skipped) and the data file
   * re-checked under it; a waiter that opened the old inode notices the swap and re-opens.
   */
  async #sweepOrphanLocks(
    locker: FileLocker,
    dir: string,
    dataSuffix: string,
    cutoffMs: number,
  ): Promise<number> {
    let removed = 0;
    let entries: string[];
    try {
      entries = await readdir(dir);
    } catch (error) {
      if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return 0;
      throw error;
    }
    const present = new Set(entries);
    for (const entry of entries) {
      if (!entry.endsWith(LOCK_SUFFIX)) continue;
      const dataFile = `${entry.slice(0, -LOCK_SUFFIX.length)}${dataSuffix}`;
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

/**
 * Remove the top-level regular files of `dir` last modified before the cutoff (and directories
 * whose names match `ownDirs`: this build's own litter); subdirectories are left alone.
 */
async function removeOldTopLevel(
  dir: string,
  cutoffMs: number,
  options: { readonly ownDirs?: RegExp },
): Promise<number> {
  let removed = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const removable = entry.isFile() || (entry.isDirectory() && options.ownDirs?.test(entry.name));
    const entryPath = path.join(dir, entry.name);
    if (!removable || !(await olderThan(entryPath, cutoffMs))) continue;
    await rm(entryPath, { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}

/** Every regular file under `dir`, recursively (missing dir = none). */
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
    if (entry.isDirectory()) files.push(...(await walkFiles(entryPath)));
    else files.push(entryPath);
  }
  return files;
}
