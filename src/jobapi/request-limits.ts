// How much of the daemon the job API lets runs hold (docs/http-api.md "Job API limits"): requests
// in flight per run, a request rate per run, JSON body bytes being read across the daemon, and
// artifact uploads streaming at once. A request past a count is refused (429 with Retry-After:
// the job commands retry); one past the rate waits its turn, and waiting counts as in flight,
// so nothing queues without bound. Must not: let one chatty run starve the others' store calls.
import type { Clock, ConnectionLimits } from '../common/index.js';
import { TokenBucket } from '../state/index.js';

export interface JobApiLimits {
  /** Requests of one run being served or waiting at once. */
  readonly maxRequestsPerRun: number;
  /** Requests per second one run may make (the burst is one second's worth). */
  readonly requestsPerSecondPerRun: number;
  /** JSON request-body bytes being read at once across all runs. */
  readonly jsonBodyBytesInFlight: number;
  /** Artifact uploads streaming to temp files at once across all runs. */
  readonly uploadsInFlight: number;
  /** Bytes of keys and values one kv/list reply may carry. */
  readonly kvListMaxBytes: number;
}

export const DEFAULT_JOB_API_LIMITS: JobApiLimits = Object.freeze({
  maxRequestsPerRun: 8,
  requestsPerSecondPerRun: 1000,
  jsonBodyBytesInFlight: 32 * 1024 * 1024,
  uploadsInFlight: 4,
  kvListMaxBytes: 8 * 1024 * 1024,
});

/**
 * The sockets of the job API (docs/http-api.md "Connection limits"). Its clients all connect
 * from the loopback address, so an address says nothing about who is asking: there is no cap per
 * address. The client is the run, known by its token once a request's headers are in (then the
 * per-run bounds above apply, and a request without a valid token gets its 401 and the socket
 * closed); before that a socket is bounded by the server's cap and the header deadline.
 */
export const JOB_API_CONNECTION_LIMITS: ConnectionLimits = Object.freeze({
  maxConnections: 1024,
  maxConnectionsPerClient: null,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 300_000,
});

interface RunState {
  inFlight: number;
  readonly bucket: TokenBucket;
}

export class RequestLimits {
  readonly limits: JobApiLimits;
  readonly #clock: Clock;
  readonly #runs = new Map<string, RunState>();
  #jsonBytes = 0;
  #uploads = 0;

  constructor(limits: JobApiLimits, clock: Clock) {
    this.limits = limits;
    this.#clock = clock;
  }

  /** A place among the run's requests in flight; null when they are all taken. */
  enter(runId: string): (() => void) | null {
    let state = this.#runs.get(runId);
    if (state === undefined) {
      state = {
        inFlight: 0,
        bucket: new TokenBucket(this.limits.requestsPerSecondPerRun, this.#clock),
      };
      this.#runs.set(runId, state);
    }
    if (state.inFlight >= this.limits.maxRequestsPerRun) return null;
    state.inFlight += 1;
    const entered = state;
    return once(() => {
      entered.inFlight -= 1;
    });
  }

  /** Resolves when the run may go on at its rate (at once within the burst). */
  async pace(runId: string): Promise<void> {
    await this.#runs.get(runId)?.bucket.take();
  }

  /** Room for `bytes` of JSON body being read; null when the daemon-wide budget is spent. */
  reserveJsonBytes(bytes: number): (() => void) | null {
    if (this.#jsonBytes > 0 && this.#jsonBytes + bytes > this.limits.jsonBodyBytesInFlight) {
      return null;
    }
    this.#jsonBytes += bytes;
    return once(() => {
      this.#jsonBytes -= bytes;
    });
  }

  /** A permit for one artifact upload; null when all are taken. */
  uploadPermit(): (() => void) | null {
    if (this.#uploads >= this.limits.uploadsInFlight) return null;
    this.#uploads += 1;
    return once(() => {
      this.#uploads -= 1;
    });
  }

  /** The run ended: its rate waiters go on (to meet a revoked token), its state is dropped. */
  forget(runId: string): void {
    this.#runs.get(runId)?.bucket.close();
    this.#runs.delete(runId);
  }

  close(): void {
    for (const runId of [...this.#runs.keys()]) this.forget(runId);
  }
}

function once(release: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    release();
  };
}
