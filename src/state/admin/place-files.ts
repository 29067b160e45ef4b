// Writes files into a store's namespace the way the store itself does: each to a temp file under
// tmp/ (0600), then atomically renamed into place, so a reader never sees a torn file. With
// `merge`, an existing lease keeps its place unless the incoming one has a fence at least as
// high (fence-max: a fence must never move backwards), and lock side-files are never carried.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, utimes, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import {
  DATA_DIRS,
  DIR_MODE,
  FILE_MODE,
  LEASES_DIR,
  LOCK_SUFFIX,
  TMP_DIR,
  isMissing,
} from './layout.js';

export type PlaceOutcome = 'written' | 'kept-existing-lease' | 'skipped-lock';

export interface PlaceTally {
  written: number;
  keptLeases: number;
  skippedLocks: number;
}

export function emptyTally(): PlaceTally {
  return { written: 0, keptLeases: 0, skippedLocks: 0 };
}

export class FilePlacer {
  readonly #nsDir: string;
  readonly #merge: boolean;
  readonly tally: PlaceTally = emptyTally();

  constructor(nsDir: string, options: { readonly merge: boolean }) {
    this.#nsDir = nsDir;
    this.#merge = options.merge;
  }

  /** Create the namespace, its data directories and tmp/ (0700). */
  async prepare(): Promise<void> {
    for (const dir of [TMP_DIR, ...DATA_DIRS]) {
      await mkdir(path.join(this.#nsDir, dir), { recursive: true, mode: DIR_MODE });
    }
  }

  /**
   * Place `bytes` at `rel` (a `/`-separated path already checked to stay inside the store),
   * keeping the source's modification time when given (blob, temp and lock ages read it).
   */
  async place(rel: string, bytes: Uint8Array, mtime?: Date): Promise<PlaceOutcome> {
    if (rel.endsWith(LOCK_SUFFIX)) {
      this.tally.skippedLocks++;
      return 'skipped-lock';
    }
    const target = path.join(this.#nsDir, ...rel.split('/'));
    if (
      this.#merge &&
      rel.startsWith(`${LEASES_DIR}/`) &&
      !(await this.#incomingLeaseWins(target, bytes))
    ) {
      this.tally.keptLeases++;
      return 'kept-existing-lease';
    }
    await mkdir(path.dirname(target), { recursive: true, mode: DIR_MODE });
    const temp = path.join(this.#nsDir, TMP_DIR, `admin-${randomBytes(8).toString('hex')}.tmp`);
    try {
      await writeFile(temp, bytes, { flag: 'wx', mode: FILE_MODE });
      await chmod(temp, FILE_MODE);
      if (mtime !== undefined) await utimes(temp, mtime, mtime);
      await rename(temp, target);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    this.tally.written++;
    return 'written';
  }

  /** Fence-max: replace an existing lease only with one whose fence is not older. */
  async #incomingLeaseWins(target: string, incoming: Uint8Array): Promise<boolean> {
    let existingText: string;
    try {
      existingText = await readFile(target, 'utf8');
    } catch (error) {
      if (isMissing(error)) return true;
      throw error;
    }
    const existing = leaseFence(existingText);
    const candidate = leaseFence(Buffer.from(incoming).toString('utf8'));
    if (existing === undefined) return candidate !== undefined;
    return candidate !== undefined && candidate >= existing;
  }
}

/** The fence of a lease file (the store's `{schemaVersion, data}` envelope, or a bare lease). */
export function leaseFence(text: string): number | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const envelope = parsed as { data?: unknown; fence?: unknown };
  const lease = (
    typeof envelope.data === 'object' && envelope.data !== null ? envelope.data : envelope
  ) as {
    fence?: unknown;
  };
  return typeof lease.fence === 'number' && Number.isFinite(lease.fence) ? lease.fence : undefined;
}
