// What the filesystem store's parts (streams, docs, leases, blobs) share: the layout, the clock,
// id source, the lock path discipline, and the quarantine rule — a file this build cannot
// understand is moved aside to quarantine/ with a warning; a plain I/O error leaves it in place
// and is skipped for this read only (warned once per file, so an NFS blip does not flood logs).
import { mkdir, rename } from 'node:fs/promises';
import * as path from 'node:path';
import type { Clock } from '../common/clock.js';
import type { Logger } from '../common/logger.js';
import { DIR_MODE, errorCode, type FsLayout } from './fs-files.js';
import type { RecordIdSource } from './record-format.js';
import { emptyQuarantineTally } from './store-checks.js';
import type { QuarantineReason } from './types.js';

export type QuarantineArea = 'records' | 'docs' | 'leases' | 'blobs';

/** Files already warned about (bounded, so a huge unreadable store cannot grow it forever). */
const MAX_WARNED_PATHS = 1000;

export class FsQuarantine {
  readonly #layout: FsLayout;
  readonly #logger: Logger;
  readonly #ids: RecordIdSource;
  readonly tally: Record<QuarantineReason, number> = emptyQuarantineTally();
  readonly #warned = new Set<string>();

  constructor(layout: FsLayout, logger: Logger, ids: RecordIdSource) {
    this.#layout = layout;
    this.#logger = logger;
    this.#ids = ids;
  }

  /**
   * Move `area/group/fileName` to quarantine/area/group/fileName.<token>. A file already moved
   * by another reader (ENOENT) is fine; a failed move is warned and the file left in place.
   */
  async move(
    area: QuarantineArea,
    group: string,
    fileName: string,
    reason: QuarantineReason,
    detail: string,
  ): Promise<void> {
    const source = path.join(this.#layout[area], group, fileName);
    const targetDir = path.join(this.#layout.quarantine, area, group);
    const target = path.join(targetDir, `${fileName}.${this.#ids.token()}`);
    try {
      await mkdir(targetDir, { recursive: true, mode: DIR_MODE });
      await rename(source, target);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return;
      this.warnOnce(
        source,
        `Cannot quarantine ${source} (${detail}): ${errorCode(error) ?? String(error)}; skipping it`,
      );
      return;
    }
    this.tally[reason] += 1;
    this.#logger.warn(
      { path: source, quarantinedTo: target, reason, detail },
      `Quarantined ${source}: ${reason} (${detail}); it is skipped and kept in ${targetDir}`,
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
}

/** Everything the store's parts need. */
export interface FsContext {
  readonly layout: FsLayout;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly ids: RecordIdSource;
  readonly quarantine: FsQuarantine;
  readonly maxRecordBytes: number;
  /** fsync each record (and its directory) before reporting the append done. */
  readonly fsyncRecords: boolean;
  /** Run `work` holding the flock of `lockPath` (in-process queueing included). */
  readonly withLock: <T>(lockPath: string, work: () => Promise<T>) => Promise<T>;
}
