// BSD flock(2) over a dedicated lock side file, via fs-ext, exactly as the Python reference locks
// (docs/durable-state-store.md "Lock side files"): opened O_RDWR|O_CREAT 0600, one NUL byte
// written when empty, an exclusive flock, then the inode re-checked against the path (GC may
// have unlinked the file meanwhile) and the whole thing started over if it changed. It must be
// flock(2): Linux's POSIX and OFD record locks (fcntl, lockf) do not exclude flock holders on a
// local filesystem, so a reference process and ours would both "hold" the lock. The kernel
// drops the lock when the holder dies, even by kill -9. The event loop never blocks on a lock:
// the main thread only ever tries (LOCK_NB), and only on a local filesystem; contention, and
// every lock on a shared mount (where even a non-blocking flock is a network round trip that a
// hung server can stall), goes to one helper worker thread that retries with a short backoff.
// The fd is opened by the main thread; flock belongs to the open file description, so the
// worker locks the main thread's file. Closing the fd releases the lock.
import { constants, type FileHandle, open, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { flockSync } from 'fs-ext';
import type { Clock } from '../common/clock.js';
import { YacronError, describeError } from '../common/errors.js';
import { KeyedMutex } from './keyed-mutex.js';

/**
 * The one deliberate piece of module state in src/state: in-process queueing per lock file,
 * shared by every store object of the process. flock(2) excludes per open file description on
 * a local filesystem, but Linux emulates it with POSIX record locks on NFS, which exclude per
 * *process*: two store objects of one process (the state section and filesystem leadership may
 * share a directory) would both "hold" the same lock there. Queueing by absolute lock path
 * in-process gives the same exclusion everywhere.
 */
export const processLockQueue = new KeyedMutex();

/** A held lock; release() closes the lock file (which is what drops the flock). */
export interface HeldLock {
  readonly waitedMs: number;
  release(): Promise<void>;
}

// The worker is CommonJS source evaluated in the thread, so it needs no build step and works
// the same from src/ (tsx) and dist/. It polls every pending fd with a non-blocking flock,
// backing off from 1 ms to 16 ms while anything is contended.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { flockSync } = require(workerData.modulePath);
const pending = new Map();
let timer = null;
let delayMs = 1;
function attempt(id, fd) {
  try {
    try {
      flockSync(fd, 'exnb');
    } catch (error) {
      if (error && (error.code === 'EAGAIN' || error.code === 'EWOULDBLOCK')) return false;
      throw error;
    }
    parentPort.postMessage({ id, locked: true });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message || error), code: error && error.code });
  }
  pending.delete(id);
  return true;
}
function poll() {
  timer = null;
  for (const [id, fd] of pending) attempt(id, fd);
  if (pending.size > 0) {
    timer = setTimeout(poll, delayMs);
    delayMs = Math.min(delayMs * 2, 16);
  } else {
    delayMs = 1;
  }
}
parentPort.on('message', (message) => {
  if (message.type === 'lock') {
    pending.set(message.id, message.fd);
    if (!attempt(message.id, message.fd) && timer === null) {
      delayMs = 1;
      timer = setTimeout(poll, delayMs);
    }
  } else if (message.type === 'cancel') {
    pending.delete(message.id);
    parentPort.postMessage({ id: message.id, cancelled: true });
  }
});
`;

interface WorkerReply {
  readonly id: number;
  readonly locked?: true;
  readonly cancelled?: true;
  readonly error?: string;
  readonly code?: string;
}

interface PendingRequest {
  readonly resolve: (reply: WorkerReply) => void;
}

export interface FileLockerOptions {
  /** Never try on the main thread (shared mounts). */
  readonly workerOnly: boolean;
  readonly clock: Clock;
}

export class FileLocker {
  readonly #workerOnly: boolean;
  readonly #clock: Clock;
  #worker: Worker | undefined;
  #nextId = 1;
  readonly #pending = new Map<number, PendingRequest>();

  constructor(options: FileLockerOptions) {
    this.#workerOnly = options.workerOnly;
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
      try {
        // The reference's lock files hold one NUL byte; content is otherwise meaningless.
        if ((await handle.stat()).size === 0) await handle.write(NUL_BYTE, 0, 1, 0);
        await this.#lockFd(handle, remainingMs, lockPath);
      } catch (error) {
        await handle.close();
        throw error;
      }
      if (await sameFile(handle, lockPath)) {
        const waitedMs = this.#clock.monotonic() - startedMs;
        return { waitedMs, release: () => handle.close() };
      }
      await handle.close();
    }
  }

  /** Stop the helper thread (pending waits fail). */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker) await worker.terminate();
  }

  async #lockFd(handle: FileHandle, timeoutMs: number, lockPath: string): Promise<void> {
    if (!this.#workerOnly && tryFlock(handle.fd)) return;
    const worker = this.#ensureWorker();
    const id = this.#nextId++;
    const reply = new Promise<WorkerReply>((resolve) => this.#pending.set(id, { resolve }));
    worker.ref();
    worker.postMessage({ type: 'lock', id, fd: handle.fd });
    const timer = this.#clock.setTimer(
      () => worker.postMessage({ type: 'cancel', id }),
      Math.max(0, timeoutMs),
    );
    const answer = await reply.finally(() => {
      timer.cancel();
      if (this.#pending.size === 0) this.#worker?.unref();
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

  #ensureWorker(): Worker {
    if (this.#worker) return this.#worker;
    const modulePath = createRequire(import.meta.url).resolve('fs-ext');
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { modulePath },
      execArgv: [],
      stdout: false,
      stderr: false,
    });
    worker.on('message', (reply: WorkerReply) => {
      const request = this.#pending.get(reply.id);
      if (!request) return;
      this.#pending.delete(reply.id);
      request.resolve(reply);
    });
    const failAll = (reason: string): void => {
      if (this.#worker === worker) this.#worker = undefined;
      for (const [id, request] of this.#pending) {
        this.#pending.delete(id);
        request.resolve({ id, error: reason });
      }
    };
    worker.on('error', (error) => failAll(describeError(error)));
    worker.on('exit', () => failAll('the lock helper thread exited'));
    worker.unref();
    this.#worker = worker;
    return worker;
  }
}

const NUL_BYTE = new Uint8Array(1);

/** A non-blocking exclusive flock: false when another open file description holds it. */
function tryFlock(fd: number): boolean {
  try {
    flockSync(fd, 'exnb');
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return false;
    throw error;
  }
}

async function sameFile(handle: FileHandle, lockPath: string): Promise<boolean> {
  try {
    const [held, current] = await Promise.all([handle.stat(), stat(lockPath)]);
    return held.ino === current.ino && held.dev === current.dev;
  } catch {
    return false;
  }
}
