// The mTLS peer listener (docs/clustering.md "The peer endpoint"): HTTPS/1.1 with keep-alive on
// the configured address, a client certificate required and verified against the cluster CA,
// request bodies capped in size and time, large /peer bodies gzipped for pollers that ask, and
// connections budgeted so that unauthenticated ones cannot crowd out real peers.
// Must not: serve anything but the peer routes, read an unbounded body, or outlive close().
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { gzipSync } from 'node:zlib';
import { YacronError, describeError, type Clock } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { ClusterAddress } from '../config/index.js';
import {
  HandshakeBudget,
  PEER_HANDSHAKE_LIMITS,
  type HandshakeLimits,
} from './handshake-budget.js';
import { MAX_PEER_BODY_BYTES } from './payload-parse.js';
import type { TlsMaterial } from './tls-material.js';
import type { PeerListener, PeerRequestHandler, PeerResponse } from './transport.js';

/** Bodies at least this large are gzipped when the poller accepts gzip. */
const GZIP_MIN_BYTES = 1024;
const MAX_HEADER_BYTES = 16_384;
/**
 * A TLS handshake must finish this soon after the TCP accept, whatever connectTimeout says: a
 * peer on any sane link needs a few round trips, and a connection that proves nothing must not
 * sit on the listener's budget (docs/clustering.md "The peer endpoint").
 */
export const HANDSHAKE_TIMEOUT_MS = 3_000;

export interface TlsServerOptions {
  readonly listen: ClusterAddress;
  readonly material: TlsMaterial;
  readonly connectTimeoutMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Test seam: the connection budgets (default PEER_HANDSHAKE_LIMITS). */
  readonly handshakeLimits?: HandshakeLimits;
}

/** Where `listen` binds: the reference's wildcards, and loopback for a bare `:port`. */
export function bindTarget(listen: ClusterAddress): { host: string; ipv6Only: boolean } {
  switch (listen.host) {
    case '':
      return { host: '127.0.0.1', ipv6Only: false };
    case '*':
      return { host: '::', ipv6Only: false };
    case '::':
      return { host: '::', ipv6Only: true };
    default:
      return { host: listen.host, ipv6Only: false };
  }
}

export async function startPeerServer(
  options: TlsServerOptions,
  handler: PeerRequestHandler,
): Promise<PeerListener> {
  const { material, connectTimeoutMs } = options;
  const server: Server = createServer(
    {
      ca: material.ca,
      cert: material.cert,
      key: material.key,
      requestCert: true,
      rejectUnauthorized: true,
      minVersion: 'TLSv1.2',
      handshakeTimeout: Math.min(connectTimeoutMs, HANDSHAKE_TIMEOUT_MS),
      maxHeaderSize: MAX_HEADER_BYTES,
      requestTimeout: connectTimeoutMs,
      headersTimeout: connectTimeoutMs,
    },
    (request, response) => serve(request, response, handler, options),
  );
  // Pending handshakes and established peers are budgeted apart (handshake-budget.ts); the
  // server's own cap only backs that up (it would refuse a real poller once idle sockets fill it).
  const limits = options.handshakeLimits ?? PEER_HANDSHAKE_LIMITS;
  server.maxConnections = limits.pendingTotal + limits.established + 1;
  const budget = new HandshakeBudget<Socket>(limits);
  // Every TCP connection, from accept on, so close() ends them all: the HTTP layer only knows a
  // connection once its handshake is done (its closeAllConnections() misses one mid-handshake,
  // which can then finish and serve a keep-alive poller from a listener that was closed).
  const sockets = new Set<Socket>();
  /** The pending TCP sockets by remote address and port, to find one from its TLS socket. */
  const byRemote = new Map<string, Socket>();
  server.on('connection', (socket: Socket) => {
    const remote = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    sockets.add(socket);
    byRemote.set(remote, socket);
    socket.once('close', () => {
      sockets.delete(socket);
      if (byRemote.get(remote) === socket) byRemote.delete(remote);
      budget.closed(socket);
    });
    for (const evicted of budget.admit(socket, socket.remoteAddress ?? '?')) evicted.destroy();
  });
  server.on('secureConnection', (tlsSocket: TLSSocket) => {
    const remote = `${tlsSocket.remoteAddress ?? '?'}:${tlsSocket.remotePort ?? '?'}`;
    const socket = byRemote.get(remote);
    byRemote.delete(remote);
    if (socket === undefined || !budget.established(socket)) tlsSocket.destroy();
  });
  // A client that fails the handshake (no or untrusted certificate) is the peer's problem to log.
  server.on('tlsClientError', () => undefined);
  const target = bindTarget(options.listen);
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error): void => {
      reject(
        new YacronError(
          'YC_ERR_CLUSTER_LISTEN',
          `Cannot listen on ${options.listen.text}: ${describeError(error)}`,
          { cause: error },
        ),
      );
    };
    server.once('error', onError);
    server.listen(
      { host: target.host, port: options.listen.port, ipv6Only: target.ipv6Only },
      () => {
        server.off('error', onError);
        resolve();
      },
    );
  });
  server.on('error', (error) =>
    options.logger.error(`cluster: peer listener error: ${describeError(error)}`),
  );
  const bound = server.address();
  return {
    // The configured text, except that port 0 (tests) shows the port the system chose.
    address:
      options.listen.port === 0 && bound !== null && typeof bound === 'object'
        ? `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`
        : options.listen.text,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

function serve(
  request: IncomingMessage,
  response: ServerResponse,
  handler: PeerRequestHandler,
  options: TlsServerOptions,
): void {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > MAX_PEER_BODY_BYTES) {
    finish(response, { status: 413, headers: {}, body: new Uint8Array(0) }, request, true);
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  const settle = (outcome: PeerResponse, close: boolean): void => {
    if (settled) return;
    settled = true;
    timer.cancel();
    finish(response, outcome, request, close);
  };
  const timer = options.clock.setTimer(
    () => settle({ status: 408, headers: {}, body: new Uint8Array(0) }, true),
    options.connectTimeoutMs,
  );
  request.on('data', (chunk: Buffer) => {
    if (settled) return;
    size += chunk.length;
    if (size > MAX_PEER_BODY_BYTES) {
      settle({ status: 413, headers: {}, body: new Uint8Array(0) }, true);
      return;
    }
    chunks.push(chunk);
  });
  request.on('error', () => settle({ status: 400, headers: {}, body: new Uint8Array(0) }, true));
  request.on('end', () => {
    if (settled) return;
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    let outcome: PeerResponse;
    try {
      outcome = handler({
        method: request.method ?? 'GET',
        path: request.url ?? '/',
        headers,
        body: Buffer.concat(chunks),
      });
    } catch (error) {
      options.logger.error(`cluster: peer request failed: ${describeError(error)}`);
      outcome = { status: 500, headers: {}, body: new Uint8Array(0) };
    }
    settle(outcome, false);
  });
}

function finish(
  response: ServerResponse,
  outcome: PeerResponse,
  request: IncomingMessage,
  close: boolean,
): void {
  let body = Buffer.from(outcome.body);
  const headers: Record<string, string> = { ...outcome.headers };
  const acceptsGzip = /\bgzip\b/i.test(request.headers['accept-encoding'] ?? '');
  if (body.length >= GZIP_MIN_BYTES && acceptsGzip) {
    body = gzipSync(body);
    headers['Content-Encoding'] = 'gzip';
    headers.Vary = 'Accept-Encoding';
  }
  if (close) headers.Connection = 'close';
  headers['Content-Length'] = String(body.length);
  response.writeHead(outcome.status, headers);
  response.end(request.method === 'HEAD' ? undefined : body);
  if (close) request.socket.destroySoon();
}
