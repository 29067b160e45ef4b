// This node's side of the peer protocol, independent of the transport (docs/clustering.md "The
// peer endpoint"): `GET`/`HEAD /peer` with ETag/304 and the node-stats header, and
// `POST /reboot-ran`. Size and time caps on request bodies belong to the transport.
// Must not: throw for any request (a hostile peer gets a status, never a crash).
import type { Clock } from '../common/index.js';
import { parseRebootRanPayload } from './payload-parse.js';
import { PeerEtagMemo } from './peer-etag.js';
import type { PeerPayload, RebootRanPayload } from './peer-payload.js';
import { formatNodeStatsHeader, NODE_STATS_HEADER } from './node-stats.js';
import { parseStrictJson } from './strict-json.js';
import type { PeerRequest, PeerRequestHandler, PeerResponse } from './transport.js';
import type { NodeStatsReading } from './types.js';

export interface PeerHandlerDeps {
  readonly clock: Clock;
  /** The /peer body, built fresh for each request. */
  payload(): PeerPayload;
  /** This node's shared resources reading; null = no header. */
  nodeStats(): NodeStatsReading | null;
  /** A peer's `POST /reboot-ran` (the receiver checks the job-set id). */
  receiveRebootRan(payload: RebootRanPayload): void;
}

const EMPTY = new Uint8Array(0);
const encoder = new TextEncoder();

export function createPeerHandler(deps: PeerHandlerDeps): PeerRequestHandler {
  const etags = new PeerEtagMemo();
  return (request) => {
    const path = request.path.split('?', 1)[0];
    if (path === '/peer') {
      if (request.method !== 'GET' && request.method !== 'HEAD') return notAllowed('GET, HEAD');
      return servePeer(deps, etags, request);
    }
    if (path === '/reboot-ran') {
      if (request.method !== 'POST') return notAllowed('POST');
      return receiveRebootRan(deps, request);
    }
    return { status: 404, headers: {}, body: EMPTY };
  };
}

function servePeer(deps: PeerHandlerDeps, etags: PeerEtagMemo, request: PeerRequest): PeerResponse {
  const payload = deps.payload();
  const etag = etags.etag(payload, deps.clock.now());
  const headers: Record<string, string> = { ETag: etag };
  const stats = deps.nodeStats();
  if (stats !== null) headers[NODE_STATS_HEADER] = formatNodeStatsHeader(stats);
  if (request.headers['if-none-match'] === etag) return { status: 304, headers, body: EMPTY };
  headers['Content-Type'] = 'application/json; charset=utf-8';
  const body = encoder.encode(JSON.stringify(payload));
  return { status: 200, headers, body: request.method === 'HEAD' ? EMPTY : body };
}

function receiveRebootRan(deps: PeerHandlerDeps, request: PeerRequest): PeerResponse {
  const parsed = parseStrictJson(request.body);
  if (!parsed.ok) return { status: 400, headers: {}, body: EMPTY };
  const payload = parseRebootRanPayload(parsed.value);
  if (payload !== null) deps.receiveRebootRan(payload);
  return { status: 204, headers: {}, body: EMPTY };
}

function notAllowed(allow: string): PeerResponse {
  return { status: 405, headers: { Allow: allow }, body: EMPTY };
}
