// An in-process lease store and its LeaseClient: the same single-holder semantics as the real
// stores (a TTL claim renewed by its holder, taken over once it lapses, released at stop, a
// stored ran-set beside it), on the injected clock. Held to the same contract tests as the
// etcd, Kubernetes and filesystem clients, so elector and gate tests can run on a FakeClock.
// Must not: be built by the daemon from a config (no `backend: memory` exists).
import type { Clock } from '../../common/index.js';
import {
  decodeRanSet,
  encodeRanSet,
  type LeaseClient,
  type LeaseDetails,
  type RanSetMarks,
  type RoundOutcome,
  type RoundTiming,
} from '../lease-client.js';

/** What the store holds: one lease and one ran-set value. */
export class MemoryLeaseStore {
  readonly clock: Clock;
  holder: string | null = null;
  expiresAtMs = -Infinity;
  ranSet: string | null = null;
  /** While true every call fails (a store outage). */
  down = false;

  constructor(clock: Clock) {
    this.clock = clock;
  }

  /** Take or renew for `ttlMs`; the current holder otherwise. */
  claim(holder: string, ttlMs: number): { won: boolean; holder: string | null } {
    this.#check();
    const now = this.clock.monotonic();
    if (this.holder !== null && this.holder !== holder && now < this.expiresAtMs) {
      return { won: false, holder: this.holder };
    }
    this.holder = holder;
    this.expiresAtMs = now + ttlMs;
    return { won: true, holder };
  }

  release(holder: string): void {
    this.#check();
    if (this.holder === holder) {
      this.holder = null;
      this.expiresAtMs = -Infinity;
    }
  }

  readRanSet(): string | null {
    this.#check();
    return this.ranSet;
  }

  writeRanSet(value: string): void {
    this.#check();
    this.ranSet = value;
  }

  #check(): void {
    if (this.down) throw new Error('the memory lease store is down');
  }
}

export interface MemoryLeaseOptions {
  readonly identity: string;
  readonly ttlMs: number;
  /** The backend it stands in for (views and log labels); default etcd. */
  readonly backend?: LeaseClient['backend'];
}

export class MemoryLeaseClient implements LeaseClient {
  readonly backend: LeaseClient['backend'];
  readonly identity: string;
  readonly roundLabel = 'memory election round';
  readonly initialLabel = 'memory initial round';
  readonly #store: MemoryLeaseStore;
  readonly #ttlMs: number;
  #closed = false;

  constructor(store: MemoryLeaseStore, options: MemoryLeaseOptions) {
    this.#store = store;
    this.identity = options.identity;
    this.backend = options.backend ?? 'etcd';
    this.#ttlMs = options.ttlMs;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  timing(): RoundTiming {
    const periodMs = Math.max(1000, this.#ttlMs / 3);
    return { periodMs, roundDeadlineMs: Math.max(1000, this.#ttlMs - periodMs - 1000) };
  }

  round(marks: RanSetMarks): Promise<RoundOutcome> {
    if (this.#closed) return Promise.reject(new Error('the memory lease client is closed'));
    const clock = this.#store.clock;
    const sentMs = clock.monotonic();
    try {
      const claim = this.#store.claim(this.identity, this.#ttlMs);
      const stored = decodeRanSet(this.#store.readRanSet());
      const current = stored.jobSetId === marks.jobSetId ? stored.jobs : new Set<string>();
      const missing = [...marks.jobs].filter((job) => !current.has(job));
      let ranSet = stored;
      if (missing.length > 0) {
        const union = [...current, ...missing];
        this.#store.writeRanSet(encodeRanSet(marks.jobSetId, union));
        ranSet = { jobSetId: marks.jobSetId, jobs: new Set(union) };
      }
      const freshUntilMs = clock.monotonic() + this.#ttlMs;
      if (claim.won) {
        return Promise.resolve({
          kind: 'leader',
          holder: this.identity,
          fenceUntilMs: sentMs + this.#ttlMs - 1000,
          freshUntilMs,
          ranSet,
        });
      }
      return Promise.resolve({
        kind: 'follower',
        holder: claim.holder,
        freshUntilMs,
        leaseLost: false,
        ranSet,
      });
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  release(): Promise<void> {
    this.#store.release(this.identity);
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.#closed = true;
    return Promise.resolve();
  }

  details(leader: boolean, holder: string | null): LeaseDetails {
    return {
      identity: this.identity,
      holder,
      expiry: leader ? this.#store.expiresAtMs : null,
    };
  }

  startupLine(): string {
    return `cluster: memory lease backend, identity '${this.identity}'`;
  }
}
