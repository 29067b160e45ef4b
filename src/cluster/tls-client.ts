// The mTLS poller client (docs/clustering.md "Polling a peer"): one keep-alive agent per manager
// presenting this node's certificate, the peer verified against the cluster CA and against the
// host it was reached at (DNS or IP SAN), redirects never followed, gzip/deflate bodies decoded
// under the 256 KiB cap while streaming. TLS failures are `tls` (the peer is untrusted).
// Must not: read more than the cap, or outlive the caller's abort signal.
import { Agent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';
import { describeError } from '../common/index.js';
import { MAX_PEER_BODY_BYTES } from './payload-parse.js';
import type { TlsMaterial } from './tls-material.js';
import type { OutgoingPeerRequest, PeerExchange } from './transport.js';

/** OpenSSL's certificate verification results as Node reports them. */
const VERIFY_ERRORS = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_CRL',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CRL_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CRL_NOT_YET_VALID',
  'CRL_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
]);

/** A failure during the TLS handshake or certificate verification (ours or the peer's alert). */
export function isTlsFailure(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== 'string') return false;
  return VERIFY_ERRORS.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_');
}

/** `host:port` / `[v6]:port` split for the request (the config has already checked the grammar). */
export function splitHost(host: string): { hostname: string; port: number } {
  const at = host.lastIndexOf(':');
  const name = host.slice(0, at);
  return {
    hostname: name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name,
    port: Number(host.slice(at + 1)),
  };
}

export class PeerClient {
  readonly #agent: Agent;

  constructor(material: TlsMaterial) {
    this.#agent = new Agent({
      keepAlive: true,
      maxSockets: 4,
      maxFreeSockets: 1,
      ca: material.ca,
      cert: material.cert,
      key: material.key,
      minVersion: 'TLSv1.2',
    });
  }

  request(host: string, outgoing: OutgoingPeerRequest): Promise<PeerExchange> {
    return this.#attempt(host, outgoing, true);
  }

  /**
   * One request. A GET that fails on a reused keep-alive connection before any answer
   * (the peer closed it while idle: after this process was paused, or the peer restarted) is
   * retried once on a fresh connection, so a stale socket is not taken for an unreachable peer.
   */
  #attempt(host: string, outgoing: OutgoingPeerRequest, mayRetry: boolean): Promise<PeerExchange> {
    const { hostname, port } = splitHost(host);
    return new Promise<PeerExchange>((resolve) => {
      let settled = false;
      const settle = (exchange: PeerExchange): void => {
        if (settled) return;
        settled = true;
        outgoing.signal.removeEventListener('abort', onAbort);
        resolve(exchange);
      };
      const fail = (error: unknown): void => {
        const code = (error as NodeJS.ErrnoException | null)?.code;
        settle({
          kind: 'failure',
          reason: isTlsFailure(error) ? 'tls' : 'network',
          message: `Cannot connect to host ${host}: ${describeError(error)}${code ? ` (${code})` : ''}`,
        });
      };
      const headers: Record<string, string> = {
        ...outgoing.headers,
        'Accept-Encoding': 'gzip, deflate',
      };
      if (outgoing.body !== undefined) headers['Content-Length'] = String(outgoing.body.byteLength);
      const request = httpsRequest({
        agent: this.#agent,
        host: hostname,
        port,
        method: outgoing.method,
        path: outgoing.path,
        headers,
        // SNI for names only; the certificate is checked against `host` either way.
        servername: isIP(hostname) === 0 ? hostname : '',
      });
      const onAbort = (): void => {
        request.destroy();
        settle({
          kind: 'failure',
          reason: 'network',
          message: `Cannot reach host ${host}: no answer in time`,
        });
      };
      if (outgoing.signal.aborted) {
        onAbort();
        return;
      }
      outgoing.signal.addEventListener('abort', onAbort, { once: true });
      let answered = false;
      request.on('error', (error: unknown) => {
        if (mayRetry && !answered && request.reusedSocket && isStaleSocket(error, outgoing)) {
          if (settled) return;
          settled = true;
          outgoing.signal.removeEventListener('abort', onAbort);
          resolve(this.#attempt(host, outgoing, false));
          return;
        }
        fail(error);
      });
      request.on('response', (response) => {
        answered = true;
        readBounded(response).then(
          (body) =>
            settle(
              body === 'oversized'
                ? { kind: 'failure', reason: 'oversized', message: 'oversized' }
                : {
                    kind: 'response',
                    status: response.statusCode ?? 0,
                    headers: flattenHeaders(response),
                    body,
                  },
            ),
          (error: unknown) => {
            request.destroy();
            fail(error);
          },
        );
      });
      request.end(outgoing.body === undefined ? undefined : Buffer.from(outgoing.body));
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}

/** A reset of a GET (idempotent): what a keep-alive socket the peer closed while idle gives. */
function isStaleSocket(error: unknown, outgoing: OutgoingPeerRequest): boolean {
  if (outgoing.method !== 'GET') return false;
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}

function flattenHeaders(response: IncomingMessage): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** The decoded body, or 'oversized' as soon as it passes the cap (the stream is destroyed). */
async function readBounded(response: IncomingMessage): Promise<Uint8Array | 'oversized'> {
  const encoding = (response.headers['content-encoding'] ?? '').trim().toLowerCase();
  let stream: Readable = response;
  if (encoding === 'gzip' || encoding === 'x-gzip') stream = response.pipe(createGunzip());
  else if (encoding === 'deflate') stream = response.pipe(createInflate());
  // pipe() does not forward a reset mid-body: end the decoder with the same error.
  if (stream !== response) response.on('error', (error) => stream.destroy(error));
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_PEER_BODY_BYTES) {
      response.destroy();
      stream.destroy();
      return 'oversized';
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}
