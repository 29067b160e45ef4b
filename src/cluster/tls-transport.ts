// The real PeerTransport: the mTLS listener and the mTLS poller client over one set of loaded
// certificates (docs/clustering.md "Certificates"). A certificate rotation builds a new transport
// (and a new manager); contexts are never swapped in place.
import type { Clock } from '../common/index.js';
import type { Logger } from '../logging/index.js';
import type { ClusterAddress } from '../config/index.js';
import { PeerClient } from './tls-client.js';
import type { TlsMaterial } from './tls-material.js';
import { startPeerServer } from './tls-server.js';
import type {
  OutgoingPeerRequest,
  PeerExchange,
  PeerListener,
  PeerRequestHandler,
  PeerTransport,
} from './transport.js';

export interface TlsTransportOptions {
  readonly listen: ClusterAddress;
  readonly material: TlsMaterial;
  readonly connectTimeoutMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
}

export class TlsPeerTransport implements PeerTransport {
  readonly #options: TlsTransportOptions;
  readonly #client: PeerClient;

  constructor(options: TlsTransportOptions) {
    this.#options = options;
    this.#client = new PeerClient(options.material);
  }

  listen(handler: PeerRequestHandler): Promise<PeerListener> {
    return startPeerServer(this.#options, handler);
  }

  request(host: string, request: OutgoingPeerRequest): Promise<PeerExchange> {
    return this.#client.request(host, request);
  }

  close(): Promise<void> {
    this.#client.close();
    return Promise.resolve();
  }
}
