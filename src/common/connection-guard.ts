// How many sockets an HTTP server of the daemon holds, and for how long one may hold a place
// without asking anything (docs/http-api.md "Connection limits"): every accepted socket is a file
// descriptor of the daemon, the one budget its job spawns need too, so a client that opens
// sockets and sends nothing must not be able to make a spawn fail with EMFILE. Node's server does
// the global cap (maxConnections: one more is closed at accept) and the header and request
// deadlines once a request has begun (headersTimeout, requestTimeout, checked every
// connectionsCheckingInterval); this module adds what Node lacks: a cap per client address, and a
// deadline for a socket that never begins its first request (Node's headersTimeout starts only at
// the first byte). Both deadlines are the sockets' own I/O timeouts, as Node's are, not the
// injected Clock's timers: nothing about them is scheduling.
// Must not: close a socket once its first request's headers are in (streams and waits that
// legitimately stay open are the routes' business), or log more than the first refusal of a kind.
import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  /** Sockets open at once on one server; one more is closed as it is accepted. */
  readonly maxConnections: number;
  /** Sockets open at once from one remote address; null = no cap of its own (see the docs). */
  readonly maxConnectionsPerClient: number | null;
  /** From accept (or a request's first byte) to its complete headers; then the socket is closed. */
  readonly headersTimeoutMs: number;
  /** From a request's first byte to its complete body. */
  readonly requestTimeoutMs: number;
}

/**
 * Where the refusal warnings go: any Logger (src/logging) is one. Declared here because common/
 * sits below logging/ in the layer order and imports nothing above it.
 */
export interface WarningSink {
  warn(message: string): void;
}

/** How often Node looks for requests past their header or request deadline. */
const CHECK_INTERVAL_MS = 1_000;

/** The node:http server options that carry `limits` (pass them at createServer). */
export function serverTimeouts(limits: ConnectionLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: Math.min(CHECK_INTERVAL_MS, limits.headersTimeoutMs),
  };
}

/**
 * Apply the connection caps and the first-request deadline to `server` (before it listens);
 * `label` prefixes the one warning logged per kind of refusal.
 */
export function guardConnections(
  server: Server,
  limits: ConnectionLimits,
  logger: WarningSink,
  label: string,
): void {
  server.maxConnections = limits.maxConnections;
  let serverFullLogged = false;
  server.on('drop', () => {
    if (serverFullLogged) return;
    serverFullLogged = true;
    logger.warn(
      `${label}: refused a connection: ${limits.maxConnections} are open, the most one server keeps. Later refusals are not logged`,
    );
  });

  const perClient = new Map<string, number>();
  let clientFullLogged = false;
  /** Sockets whose first request has not begun, with their deadline's listener. */
  const waiting = new WeakMap<Socket, () => void>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    // A unix-socket peer has no address: it counts towards the server's cap only.
    if (limits.maxConnectionsPerClient !== null && address !== undefined) {
      const open = perClient.get(address) ?? 0;
      if (open >= limits.maxConnectionsPerClient) {
        socket.destroy();
        if (!clientFullLogged) {
          clientFullLogged = true;
          logger.warn(
            `${label}: refused a connection from ${address}: it has ${open} open, the most one client address may. Later refusals are not logged`,
          );
        }
        return;
      }
      perClient.set(address, open + 1);
      socket.once('close', () => {
        const left = (perClient.get(address) ?? 1) - 1;
        if (left <= 0) perClient.delete(address);
        else perClient.set(address, left);
      });
    }
    // Until its first request's headers are in; Node's headersTimeout covers the later ones.
    const idle = (): void => {
      socket.destroy();
    };
    waiting.set(socket, idle);
    socket.once('timeout', idle);
    socket.setTimeout(limits.headersTimeoutMs);
  });
  // Not 'upgrade' or 'connect': a listener there would keep Node from closing such sockets
  // itself; they stay under the deadline until they close.
  server.on('request', (request: { socket: Socket }) => {
    const socket = request.socket;
    const idle = waiting.get(socket);
    if (idle === undefined) return;
    waiting.delete(socket);
    socket.off('timeout', idle);
    socket.setTimeout(server.timeout);
  });
}
