// The one helper thread of the process that calls flock(2) (via fs-ext). fs-ext keeps V8 handles
// in C statics, so loading it into more than one JavaScript context (the main thread and a
// worker, or a second worker after the first ended) crashes the process; it is therefore loaded
// here only, into a worker started once per process and never terminated (it is unref'd while
// idle, so it never keeps the process alive). The main thread never blocks on a lock: a request
// is tried at once in the helper and, while contended, retried there with a backoff from 1 ms to
// 16 ms. flock belongs to the open file description, so the helper locks the caller's fd.
// This is, with processLockQueue (flock.ts), the deliberate module state of src/state.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { describeError } from '../common/index.js';

// CommonJS source evaluated in the thread, so it needs no build step and works the same from
// src/ (tsx) and dist/.
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
    if (pending.delete(message.id)) parentPort.postMessage({ id: message.id, cancelled: true });
  }
});
`;

export interface FlockReply {
  readonly id: number;
  readonly locked?: true;
  readonly cancelled?: true;
  readonly error?: string;
  readonly code?: string;
}

class FlockHelper {
  #worker: Worker | undefined;
  #nextId = 1;
  readonly #pending = new Map<number, (reply: FlockReply) => void>();

  /** Start the thread now (a store about to lock soon need not wait for it on its first lock). */
  warm(): void {
    this.#ensureWorker();
  }

  /** Ask for an exclusive flock of `fd`; `cancel()` withdraws a request still waiting. */
  lock(fd: number): { readonly id: number; readonly reply: Promise<FlockReply> } {
    const worker = this.#ensureWorker();
    const id = this.#nextId++;
    const reply = new Promise<FlockReply>((resolve) => this.#pending.set(id, resolve));
    worker.ref();
    worker.postMessage({ type: 'lock', id, fd });
    return { id, reply };
  }

  cancel(id: number): void {
    this.#worker?.postMessage({ type: 'cancel', id });
  }

  /** Settle a request locally (its caller gave up); a late grant is then released by the caller. */
  forget(id: number, reason: string): void {
    const resolve = this.#pending.get(id);
    if (resolve === undefined) return;
    this.#pending.delete(id);
    this.#worker?.postMessage({ type: 'cancel', id });
    resolve({ id, error: reason });
    this.#idle();
  }

  #idle(): void {
    if (this.#pending.size === 0) this.#worker?.unref();
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
    worker.on('message', (reply: FlockReply) => {
      const resolve = this.#pending.get(reply.id);
      if (!resolve) return;
      this.#pending.delete(reply.id);
      resolve(reply);
      this.#idle();
    });
    const failAll = (reason: string): void => {
      // A helper that died cannot be restarted (fs-ext may not load into a second context).
      for (const [id, resolve] of this.#pending) {
        this.#pending.delete(id);
        resolve({ id, error: reason });
      }
    };
    worker.on('error', (error) => failAll(describeError(error)));
    worker.on('exit', () => failAll('the lock helper thread exited'));
    worker.unref();
    this.#worker = worker;
    return worker;
  }
}

/** The process's flock helper. */
export const flockHelper = new FlockHelper();
