// The PeerTransport seam: how one node serves its peer endpoint and reaches its peers' endpoints.
// The real one is mTLS over node:https (tls-transport.ts); MemoryTransport routes the same
// requests in-process, with partitions, for N-node tests on a FakeClock. Types only.

/** A request as the handler sees it; header names are lower case. */
export interface PeerRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The request body, already read within the transport's size and time caps. */
  readonly body: Uint8Array;
}

export interface PeerResponse {
  readonly status: number;
  /** Canonical header names (`ETag`, `Content-Type`, …). */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

/** The node's side of the peer protocol; transport-independent (peer-handler.ts). */
export type PeerRequestHandler = (request: PeerRequest) => PeerResponse;

/**
 * What came back from a peer. Failures are values: `tls` (handshake or certificate
 * verification failed on our side: the peer is `untrusted`), `oversized` (the decompressed body
 * passed the cap while streaming), `network` (everything else: refused, reset, timeout, …).
 */
export type PeerExchange =
  | {
      readonly kind: 'response';
      readonly status: number;
      /** Lower-case names. */
      readonly headers: Readonly<Record<string, string | undefined>>;
      /** Decompressed. */
      readonly body: Uint8Array;
    }
  | {
      readonly kind: 'failure';
      readonly reason: 'tls' | 'network' | 'oversized';
      readonly message: string;
    };

export interface OutgoingPeerRequest {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Uint8Array;
  /** Aborted when the per-request budget (connectTimeout) runs out. */
  readonly signal: AbortSignal;
}

export interface PeerListener {
  /** Where it listens, for logs (`host:port`). */
  readonly address: string;
  close(): Promise<void>;
}

export interface PeerTransport {
  /** Start serving `handler`; rejects when the listener cannot start (bad address, port taken). */
  listen(handler: PeerRequestHandler): Promise<PeerListener>;
  /** One request to a configured peer host (`host:port` / `[v6]:port`). Never rejects. */
  request(host: string, request: OutgoingPeerRequest): Promise<PeerExchange>;
  /** Drop the client session (pooled connections). */
  close(): Promise<void>;
}
