// What the filesystem store's parts (streams, docs, leases, blobs) share: the layout, the clock,
// the instance sequence, the fsync seam, the lock discipline, and the quarantine rule — a record
// that is not a JSON object envelope is moved to `quarantine/<file name>.<instance>.bad` (flat,
// as the reference does) with a warning; anything else unreadable is left in place and skipped
// for this read only (warned once per file, so an NFS blip does not flood logs).
import { rename, utimes } from 'node:fs/promises';
import * as path from 'node:path';
import type { Clock } from '../common/index.js';
import type { Logger } from '../logging/index.js';
import { errorCode, type FsLayout, type SyncDir } from './fs-files.js';
import type { StoreSequence } from './record-format.js';
import { emptyQuarantineTally } from './store-checks.js';
import type { QuarantineReason } from './types.js';

/** Files already warned about (bounded, so a huge unreadable store cannot grow it forever). */
const MAX_WARNED_PATHS = 1000;

export class FsQuarantine {
  readonly #layout: FsLayout;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #instance: string;
  readonly tally: Record<QuarantineReason, number> = emptyQuarantineTally();
  readonly #warned = new Set<string>();

  constructor(layout: FsLayout, logger: Logger, clock: Clock, instance: string) {
    this.#layout = layout;
    this.#logger = logger;
    this.#clock = clock;
    this.#instance = instance;
  }

  /**
   * Move `source` to quarantine/<its file name>.<instance>.bad and set its mtime to now (the
   * sweep's age). A file already moved by another reader (ENOENT) is fine; a failed move is
   * warned and the file left in place.
   */
  async move(source: string, reason: QuarantineReason, detail: string): Promise<void> {
    const target = path.join(
      this.#layout.quarantine,
      `${path.basename(source)}.${this.#instance}.bad`,
    );
    try {
      await rename(source, target);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return;
      this.warnOnce(
        source,
        `Cannot quarantine ${source} (${detail}): ${errorCode(error) ?? String(error)}; skipping it`,
      );
      return;
    }
    const nowSeconds = this.#clock.now() / 1000;
    await utimes(target, nowSeconds, nowSeconds).catch(() => undefined);
    this.tally[reason] += 1;
    this.#logger.warn(
      { path: source, quarantinedTo: target, reason, detail },
      `Quarantined ${source}: ${reason} (${detail}); it is skipped and kept as ${target}`,
    );
  }

  /** Warn about `filePath` once per process. */
  warnOnce(filePath: string, message: string, fields: object = {}): void {
    if (this.#warned.has(filePath)) return;
    if (this.#warned.size >= MAX_WARNED_PATHS) this.#warned.clear();
    this.#warned.add(filePath);
    this.#logger.warn({ path: filePath, ...fields }, message);
  }

  /** The warning for a read that failed with a plain I/O error: the file stays, this read skips it. */
  warnIoError(filePath: string, code: string, detail: string): void {
    const hint =
      code === 'EACCES' || code === 'EPERM'
        ? '; every node sharing a store must run yacron2 as the same user (records are 0600)'
        : '';
    this.warnOnce(filePath, `Cannot read ${filePath}: ${detail}; skipped for this read${hint}`, {
      code,
    });
  }

  /** The warning for a file of a newer record scheme: left for the build that wrote it. */
  warnNewerSchema(filePath: string, version: string): void {
    this.warnOnce(
      filePath,
      `Skipping ${filePath}: schemaVersion ${version} is newer than this build understands (v1); it is left in place`,
      { schemaVersion: version },
    );
  }
}

/** Everything the store's parts need. */
export interface FsContext {
  readonly layout: FsLayout;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The backend's instance token and the sequence of its record and temp names. */
  readonly seq: StoreSequence;
  readonly quarantine: FsQuarantine;
  readonly maxRecordBytes: number;
  /** fsync each record and blob (and its directory) before reporting the write done. */
  readonly fsyncRecords: boolean;
  /** fsync a directory (the seam tests observe). */
  readonly syncDir: SyncDir;
  /** Run `work` holding the flock of `lockPath` (in-process queueing included). */
  readonly withLock: <T>(lockPath: string, work: () => Promise<T>) => Promise<T>;
}
