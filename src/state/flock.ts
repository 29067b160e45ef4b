// BSD flock(2) over a dedicated lock side file, exactly as the Python reference locks
// (docs/durable-state-store.md "Lock side files"): opened O_RDWR|O_CREAT 0600, an exclusive
// flock, then the inode re-checked against the path (GC may have unlinked the file meanwhile)
// and the whole thing started over if it changed; an empty lock file gets the reference's one
// NUL byte (written once locked, from the stat the re-check takes anyway). It must be
// flock(2): Linux's POSIX and OFD record locks (fcntl, lockf) do not exclude flock holders on a
// local filesystem, so a reference process and ours would both "hold" the lock. The kernel
// drops the lock when the holder dies, even by kill -9. The flock calls run in the process's
// helper thread (flock-helper.ts), so the event loop never blocks on a lock, and a wait is
// bounded by the caller's timeout. Closing the fd releases the lock.
import type { Stats } from 'node:fs';
import { constants, type FileHandle, open, stat } from 'node:fs/promises';
import { type Clock, YacronError } from '../common/index.js';
import { flockHelper } from './flock-helper.js';
import { KeyedMutex } from './keyed-mutex.js';

/**
 * In-process queueing per lock file, shared by every store object of the process. flock(2)
 * excludes per open file description on a local filesystem, but Linux emulates it with POSIX
 * record locks on NFS, which exclude per *process*: two store objects of one process (the
 * state section and filesystem leadership may share a directory) would both "hold" the same
 * lock there. Queueing by absolute lock path in-process gives the same exclusion everywhere.
 */
export const processLockQueue = new KeyedMutex();

/** A held lock; release() closes the lock file (which is what drops the flock). */
export interface HeldLock {
  readonly waitedMs: number;
  release(): Promise<void>;
}

export interface FileLockerOptions {
  readonly clock: Clock;
}

export class FileLocker {
  readonly #clock: Clock;
  /** Requests of this locker still waiting in the helper (failed by close()). */
  readonly #waiting = new Set<number>();

  constructor(options: FileLockerOptions) {
    this.#clock = options.clock;
  }

  /**
   * Open (creating 0600, one NUL byte when empty) and exclusively flock `lockPath`, waiting at
   * most `timeoutMs`. Retries when the lock file was replaced while we waited (a deleted lock
   * file must not split the lock between two inodes).
   */
  async acquire(lockPath: string, timeoutMs: number): Promise<HeldLock> {
    const startedMs = this.#clock.monotonic();
    for (;;) {
      const remainingMs = timeoutMs - (this.#clock.monotonic() - startedMs);
      const handle = await open(
        lockPath,
        constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW,
        0o600,
      );
      let held: Stats | undefined;
      try {
        await this.#lockFd(handle, remainingMs, lockPath);
        held = await heldFile(handle, lockPath);
        // The reference's lock files hold one NUL byte; content is otherwise meaningless.
        if (held?.size === 0) await handle.write(NUL_BYTE, 0, 1, 0);
      } catch (error) {
        await handle.close();
        throw error;
      }
      if (held !== undefined) {
        const waitedMs = this.#clock.monotonic() - startedMs;
        return { waitedMs, release: () => handle.close() };
      }
      await handle.close();
    }
  }

  /** Fail this locker's pending waits (the process's helper thread stays for other lockers). */
  close(): Promise<void> {
    for (const id of [...this.#waiting]) flockHelper.forget(id, 'the lock owner closed');
    return Promise.resolve();
  }

  async #lockFd(handle: FileHandle, timeoutMs: number, lockPath: string): Promise<void> {
    const { id, reply } = flockHelper.lock(handle.fd);
    this.#waiting.add(id);
    const timer = this.#clock.setTimer(() => flockHelper.cancel(id), Math.max(0, timeoutMs));
    const answer = await reply.finally(() => {
      timer.cancel();
      this.#waiting.delete(id);
    });
    if (answer.locked) return;
    if (answer.cancelled) {
      throw new YacronError(
        'YC_ERR_STATE_TIMEOUT',
        `Cannot lock ${lockPath}: still held by another process after ${Math.round(timeoutMs)} ms`,
      );
    }
    throw new YacronError(
      'YC_ERR_STATE_IO',
      `Cannot lock ${lockPath}: ${answer.error ?? 'the lock helper stopped'}`,
    );
  }
}

const NUL_BYTE = new Uint8Array(1);

/** The locked file's stats when it is still the file at `lockPath`, else undefined. */
async function heldFile(handle: FileHandle, lockPath: string): Promise<Stats | undefined> {
  try {
    const [held, current] = await Promise.all([handle.stat(), stat(lockPath)]);
    return held.ino === current.ino && held.dev === current.dev ? held : undefined;
  } catch {
    return undefined;
  }
}
