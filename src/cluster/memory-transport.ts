// An in-process network for N-node cluster tests: each node gets a PeerTransport whose requests
// reach the other nodes' handlers directly, through links the test can cut (refused), poison
// (certificate failure), stall (until the caller's timeout) or partition. Held to the same
// PeerTransport contract as the mTLS transport. Must not: reach a node that is not listening.
import type {
  OutgoingPeerRequest,
  PeerExchange,
  PeerListener,
  PeerRequestHandler,
  PeerTransport,
} from './transport.js';

/** `down`: connection refused; `untrusted`: TLS verification fails; `stall`: never answers. */
export type LinkState = 'up' | 'down' | 'untrusted' | 'stall';

export class MemoryNetwork {
  readonly #owners = new Map<string, string>();
  readonly #handlers = new Map<string, PeerRequestHandler>();
  readonly #links = new Map<string, LinkState>();
  #groups: Map<string, number> | null = null;
  /** Requests delivered to a handler, per target node (tests count polls). */
  readonly delivered = new Map<string, number>();

  /** A node answering on `hosts` (a second host is a multi-homed address or a self alias). */
  transportFor(nodeId: string, hosts: readonly string[]): MemoryTransport {
    for (const host of hosts) this.#owners.set(host, nodeId);
    return new MemoryTransport(this, nodeId);
  }

  /** The link from node `from` to `host` (one direction). */
  setLink(from: string, host: string, state: LinkState): void {
    if (state === 'up') this.#links.delete(`${from}>${host}`);
    else this.#links.set(`${from}>${host}`, state);
  }

  /** Only nodes in the same group reach each other (both directions); unlisted nodes are isolated. */
  partition(groups: readonly (readonly string[])[]): void {
    this.#groups = new Map();
    groups.forEach((group, index) => {
      for (const node of group) this.#groups?.set(node, index);
    });
  }

  heal(): void {
    this.#groups = null;
  }

  /** @internal */
  register(nodeId: string, handler: PeerRequestHandler): () => void {
    this.#handlers.set(nodeId, handler);
    return () => {
      if (this.#handlers.get(nodeId) === handler) this.#handlers.delete(nodeId);
    };
  }

  /** @internal */
  async deliver(from: string, host: string, request: OutgoingPeerRequest): Promise<PeerExchange> {
    await Promise.resolve();
    const target = this.#owners.get(host);
    const link = this.#links.get(`${from}>${host}`) ?? 'up';
    const handler = target === undefined ? undefined : this.#handlers.get(target);
    const cut =
      this.#groups !== null &&
      target !== undefined &&
      target !== from &&
      (this.#groups.get(from) ?? -1) !== (this.#groups.get(target) ?? -2);
    if (request.signal.aborted) return timedOut(host);
    if (link === 'stall') {
      return new Promise((resolve) => {
        request.signal.addEventListener('abort', () => resolve(timedOut(host)), { once: true });
      });
    }
    if (cut || link === 'down' || handler === undefined || target === undefined)
      return refused(host);
    if (link === 'untrusted') {
      return {
        kind: 'failure',
        reason: 'tls',
        message: `Cannot connect to host ${host}: certificate verify failed: unable to get local issuer certificate`,
      };
    }
    this.delivered.set(target, (this.delivered.get(target) ?? 0) + 1);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers))
      headers[name.toLowerCase()] = value;
    const response = handler({
      method: request.method,
      path: request.path,
      headers,
      body: request.body ?? new Uint8Array(0),
    });
    const responseHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      responseHeaders[name.toLowerCase()] = value;
    }
    return {
      kind: 'response',
      status: response.status,
      headers: responseHeaders,
      body: response.body,
    };
  }
}

function refused(host: string): PeerExchange {
  return {
    kind: 'failure',
    reason: 'network',
    message: `Cannot connect to host ${host}: connection refused`,
  };
}

function timedOut(host: string): PeerExchange {
  return {
    kind: 'failure',
    reason: 'network',
    message: `Cannot reach host ${host}: no answer in time`,
  };
}

export class MemoryTransport implements PeerTransport {
  readonly #network: MemoryNetwork;
  readonly #nodeId: string;

  constructor(network: MemoryNetwork, nodeId: string) {
    this.#network = network;
    this.#nodeId = nodeId;
  }

  listen(handler: PeerRequestHandler): Promise<PeerListener> {
    const unregister = this.#network.register(this.#nodeId, handler);
    return Promise.resolve({
      address: `memory:${this.#nodeId}`,
      close: () => {
        unregister();
        return Promise.resolve();
      },
    });
  }

  request(host: string, request: OutgoingPeerRequest): Promise<PeerExchange> {
    return this.#network.deliver(this.#nodeId, host, request);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
