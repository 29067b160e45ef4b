// A test seam ("a store wrapper that injects slowness and errors is the tool for
// onStoreUnavailable tests"): wraps any StateStore, passes calls through until told to hang or
// fail, and counts calls per operation. Holds no timers and never touches the clock, so a hang
// lasts exactly until the test releases it (a FakeClock drives any timeout in front of it).
//
// Semantics:
// - setFault(fault, ops) applies to calls made from then on, to the listed operations; without
//   `ops`, to every operation except close() (and asyncDispose, which is close()), so a test's
//   teardown still works; list 'close' to fault it too.
// - 'eio' | 'enospc' | 'eacces': the call rejects at once with a fresh Node-style system error
//   (code, negative errno, syscall, libuv message: "EIO: i/o error, read") and never reaches the
//   wrapped store.
// - 'hang': the call is held, unsettled and not yet issued. release() lets every held call
//   proceed to the wrapped store (a blocked syscall that finally returns), and so does clearing
//   the fault; switching a held call's operation to an error fault rejects it with that error
//   (an NFS mount that gives up). close() leaves held calls held.
import { constants as osConstants } from 'node:os';
import { getSystemErrorMap } from 'node:util';
import { createDeferred, type Deferred } from '../common/index.js';
import { DelegatingStateStore, type StoreMethod } from './delegating-store.js';
import type { StateStore } from './types.js';

export type StoreFault = 'none' | 'hang' | 'eio' | 'enospc' | 'eacces';
export type StoreErrorFault = Extract<StoreFault, 'eio' | 'enospc' | 'eacces'>;
/** A StateStore method by name; asyncDispose counts as close. */
/** An operation by method name (asyncDispose is close). */
export type StoreOpName = StoreMethod;

/** Every operation, checked against StateStore: a new method fails to compile until listed. */
const OP_TABLE = {
  open: true,
  close: true,
  append: true,
  list: true,
  getRecord: true,
  deriveMax: true,
  prune: true,
  deleteStream: true,
  listStreams: true,
  getDocument: true,
  updateDocument: true,
  listDocuments: true,
  listDocumentNamespaces: true,
  putBlob: true,
  getBlob: true,
  hasBlob: true,
  deleteBlob: true,
  listBlobs: true,
  acquireLease: true,
  renewLease: true,
  releaseLease: true,
  inspectLease: true,
  listLeases: true,
  deleteLease: true,
  describe: true,
  inventory: true,
  sweep: true,
} as const satisfies Record<StoreOpName, true>;
const ALL_OPS = Object.keys(OP_TABLE) as StoreOpName[];

const ERROR_CODES = { eio: 'EIO', enospc: 'ENOSPC', eacces: 'EACCES' } as const;
/** libuv's wording, should this platform's error map lack an entry. */
const FALLBACK_DESCRIPTIONS = {
  EIO: 'i/o error',
  ENOSPC: 'no space left on device',
  EACCES: 'permission denied',
} as const;

/** The system call the filesystem store would have failed in, for a realistic error. */
function syscallFor(op: StoreOpName, fault: StoreErrorFault): string {
  if (op.startsWith('list')) return 'scandir';
  if (op.startsWith('delete') || op === 'prune' || op === 'sweep') return 'unlink';
  if (op === 'close') return 'close';
  if (fault === 'eacces') return 'open';
  const writes: readonly StoreOpName[] = [
    'open',
    'append',
    'updateDocument',
    'putBlob',
    'acquireLease',
    'renewLease',
    'releaseLease',
  ];
  return writes.includes(op) ? 'write' : 'read';
}

/**
 * A fresh error shaped like the one node:fs rejects with: `code`, negative `errno` (libuv),
 * `syscall`, and the message `<CODE>: <description>, <syscall>`.
 */
export function storeFaultError(fault: StoreErrorFault, op: StoreOpName): NodeJS.ErrnoException {
  const code = ERROR_CODES[fault];
  const errno = -osConstants.errno[code];
  const description = getSystemErrorMap().get(errno)?.[1] ?? FALLBACK_DESCRIPTIONS[code];
  const syscall = syscallFor(op, fault);
  return Object.assign(new Error(`${code}: ${description}, ${syscall}`), { code, errno, syscall });
}

interface HeldCall {
  readonly op: StoreOpName;
  readonly gate: Deferred<void>;
}

interface HeldWaiter {
  readonly count: number;
  readonly gate: Deferred<void>;
}

export class FaultyStateStore extends DelegatingStateStore {
  #fault: StoreFault = 'none';
  #faultedOps: ReadonlySet<StoreOpName> = new Set();
  readonly #calls = new Map<StoreOpName, number>();
  readonly #faultedCalls = new Map<StoreOpName, number>();
  readonly #held = new Set<HeldCall>();
  #waiters: HeldWaiter[] = [];

  constructor(inner: StateStore) {
    super(inner);
  }

  get fault(): StoreFault {
    return this.#fault;
  }

  /** Calls currently held by a 'hang' fault. */
  get held(): number {
    return this.#held.size;
  }

  /**
   * Fault the listed operations (default: all but close) from now on; 'none' clears it. Held
   * calls are re-decided under the new setting: proceed, reject, or stay held.
   */
  setFault(fault: StoreFault, ops?: readonly (keyof StateStore)[]): void {
    this.#fault = fault;
    this.#faultedOps = new Set(
      ops === undefined
        ? ALL_OPS.filter((op) => op !== 'close')
        : ops.map((op) => (op === Symbol.asyncDispose ? 'close' : op)),
    );
    for (const call of [...this.#held]) {
      const now = this.#faultFor(call.op);
      if (now === 'hang') continue;
      this.#held.delete(call);
      if (now === 'none') call.gate.resolve();
      else call.gate.reject(storeFaultError(now, call.op));
    }
  }

  /** Let every held call proceed to the wrapped store; the fault stays. Returns how many. */
  release(): number {
    const released = this.#held.size;
    for (const call of this.#held) call.gate.resolve();
    this.#held.clear();
    return released;
  }

  /** Resolves once at least `count` calls are held (for calls issued in the background). */
  untilHeld(count = 1): Promise<void> {
    if (this.#held.size >= count) return Promise.resolve();
    const gate = createDeferred();
    this.#waiters.push({ count, gate });
    return gate.promise;
  }

  /** Calls made to `op` (all operations when omitted), faulted or not, since the last reset. */
  calls(op?: StoreOpName): number {
    return op === undefined ? sum(this.#calls) : (this.#calls.get(op) ?? 0);
  }

  /** Calls to `op` (all when omitted) that a fault rejected or held. */
  faultedCalls(op?: StoreOpName): number {
    return op === undefined ? sum(this.#faultedCalls) : (this.#faultedCalls.get(op) ?? 0);
  }

  /** Zero the call counters (held calls stay held). */
  resetCalls(): void {
    this.#calls.clear();
    this.#faultedCalls.clear();
  }

  #faultFor(op: StoreOpName): StoreFault {
    return this.#faultedOps.has(op) ? this.#fault : 'none';
  }

  protected around<T>(op: StoreOpName, work: () => Promise<T>): Promise<T> {
    this.#calls.set(op, (this.#calls.get(op) ?? 0) + 1);
    const fault = this.#faultFor(op);
    if (fault === 'none') return work();
    this.#faultedCalls.set(op, (this.#faultedCalls.get(op) ?? 0) + 1);
    if (fault !== 'hang') return Promise.reject(storeFaultError(fault, op));
    const call: HeldCall = { op, gate: createDeferred() };
    this.#held.add(call);
    this.#wakeWaiters();
    return call.gate.promise.then(work);
  }

  #wakeWaiters(): void {
    const ready = this.#waiters.filter((waiter) => this.#held.size >= waiter.count);
    if (ready.length === 0) return;
    this.#waiters = this.#waiters.filter((waiter) => this.#held.size < waiter.count);
    for (const waiter of ready) waiter.gate.resolve();
  }
}

function sum(counts: ReadonlyMap<StoreOpName, number>): number {
  let total = 0;
  for (const count of counts.values()) total += count;
  return total;
}
