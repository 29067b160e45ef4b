// One poll of one peer's `GET /peer`, turned into an outcome the state machine applies
// (docs/clustering.md "Polling a peer"): the conditional request with the cached ETag, the 304
// replay, HTTP and parse failures, and the ETag cache. Must not: follow redirects (a 3xx body is
// parsed like any other) or cache an ETag that is long or unprintable.
import { OVERSIZED_BODY, isGossipName, parsePeerBody } from './payload-parse.js';
import { NODE_STATS_HEADER, parseNodeStatsHeader } from './node-stats.js';
import type { PeerExchange, PeerTransport } from './transport.js';
import type { NodeStatsReading, PeerObservation } from './types.js';

export const UNSOLICITED_304 = 'unsolicited 304 to an unconditional /peer poll';
const MAX_ETAG_CHARS = 128;

export type PollOutcome =
  | {
      readonly kind: 'success';
      readonly observation: PeerObservation;
      readonly nodeStats: NodeStatsReading | null;
    }
  | { readonly kind: 'failure'; readonly error: string; readonly untrusted: boolean };

interface CachedObservation {
  readonly etag: string;
  readonly observation: PeerObservation;
}

/** The ETag cache of one manager's polls, keyed by configured host. */
export class PeerPollCache {
  readonly #entries = new Map<string, CachedObservation>();

  etagFor(host: string): string | undefined {
    return this.#entries.get(host)?.etag;
  }

  /** Decide what one exchange means for `host`, updating the cache. */
  interpret(host: string, exchange: PeerExchange, receivedAtMs: number): PollOutcome {
    if (exchange.kind === 'failure') {
      return {
        kind: 'failure',
        error: exchange.reason === 'oversized' ? OVERSIZED_BODY : exchange.message,
        untrusted: exchange.reason === 'tls',
      };
    }
    if (exchange.status >= 400) {
      return { kind: 'failure', error: `HTTP ${exchange.status}`, untrusted: false };
    }
    const nodeStats = parseNodeStatsHeader(exchange.headers[NODE_STATS_HEADER.toLowerCase()]);
    if (exchange.status === 304) {
      const cached = this.#entries.get(host);
      if (cached === undefined)
        return { kind: 'failure', error: UNSOLICITED_304, untrusted: false };
      return { kind: 'success', observation: cached.observation, nodeStats };
    }
    const parsed = parsePeerBody(exchange.body, receivedAtMs);
    if (!parsed.ok) return { kind: 'failure', error: parsed.error, untrusted: false };
    const etag = exchange.headers.etag;
    if (etag !== undefined && isGossipName(etag, MAX_ETAG_CHARS)) {
      this.#entries.set(host, { etag, observation: parsed.observation });
    } else {
      this.#entries.delete(host);
    }
    return { kind: 'success', observation: parsed.observation, nodeStats };
  }
}

/** Poll `host` once through `transport`; never rejects. */
export async function pollPeer(
  transport: PeerTransport,
  cache: PeerPollCache,
  host: string,
  signal: AbortSignal,
  now: () => number,
): Promise<PollOutcome> {
  const etag = cache.etagFor(host);
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (etag !== undefined) headers['If-None-Match'] = etag;
  const exchange = await transport.request(host, { method: 'GET', path: '/peer', headers, signal });
  return cache.interpret(host, exchange, now());
}
