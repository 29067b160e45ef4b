// The job API's HTTP handling over node:http (chosen over fastify for the KV round trip's
// latency budget; bench/groups/jobapi.ts): authenticate first (401 before any body is read or
// any store is touched), route, take a place among the run's requests in flight and its rate,
// read the body under the route's cap (an upload streams to a temp file), run the route, and
// write its reply. Response conventions (docs/http-api.md "The job API"): JSON `{"error"}`
// bodies, except 401, 404, 405 and a body-cap 413, which are plain `<status>: <reason>`.
import { rm } from 'node:fs/promises';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { describeError } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import { ApiError, isApiError } from './api-error.js';
import {
  declaredLength,
  readBody,
  receiveUpload,
  type BodyCaps,
  type Upload,
} from './request-body.js';
import type { RequestLimits } from './request-limits.js';
import type { Route, RouteReply } from './route-types.js';
import type { RunRegistry } from './run-registry.js';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const TEXT_TYPE = 'text/plain; charset=utf-8';

export interface RequestHandlerDeps {
  readonly registry: RunRegistry;
  readonly routes: ReadonlyMap<string, Route>;
  readonly logger: Logger;
  readonly caps: BodyCaps;
  readonly limits: RequestLimits;
  /** Where uploads are streamed (a private directory of the API). */
  readonly uploadDir: string;
}

const EMPTY = Buffer.alloc(0);

/** The `(req, res)` listener of the job API's server. */
export function createRequestHandler(
  deps: RequestHandlerDeps,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    void serve(deps, req, res);
  };
}

function busy(message: string): ApiError {
  return new ApiError('YC_ERR_REQUEST_RATE_LIMITED', message, {
    closeConnection: true,
    retryAfterSeconds: 1,
  });
}

async function serve(
  deps: RequestHandlerDeps,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const releases: (() => void)[] = [];
  let upload: Upload | null = null;
  try {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    const run = deps.registry.authenticate(req.headers.authorization);
    // Not a run's request: its socket is not kept for another one
    // (docs/http-api.md "Connection limits").
    if (run === undefined) return sendBare(res, 401, { connection: 'close' });
    const route = deps.routes.get(path);
    if (route === undefined) return sendBare(res, 404);
    const method = req.method ?? 'GET';
    const allowed =
      route.method === 'GET' ? method === 'GET' || method === 'HEAD' : method === 'POST';
    if (!allowed)
      return sendBare(res, 405, { allow: route.method === 'GET' ? 'GET, HEAD' : 'POST' });
    const runId = run.context.runId;
    const entered = deps.limits.enter(runId);
    if (entered === null) {
      throw busy(
        `too many requests of this run in flight (at most ${deps.limits.limits.maxRequestsPerRun})`,
      );
    }
    releases.push(entered);
    await deps.limits.pace(runId);
    let body: Buffer = EMPTY;
    switch (route.body) {
      case 'none':
        break;
      case 'json':
      case 'json-value': {
        const cap = deps.caps[route.body];
        const declared = declaredLength(req);
        const reserve = cap === null ? (declared ?? 0) : Math.min(declared ?? cap, cap + 1);
        const reserved = deps.limits.reserveJsonBytes(reserve);
        if (reserved === null) throw busy('the job API is reading too many request bodies');
        releases.push(reserved);
        body = await readBody(req, cap);
        break;
      }
      case 'upload': {
        const permit = deps.limits.uploadPermit();
        if (permit === null) throw busy('the job API is receiving too many uploads');
        releases.push(permit);
        upload = await receiveUpload(req, deps.uploadDir, deps.caps.upload);
        break;
      }
    }
    const clientGone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) clientGone.abort();
    });
    const reply = await route.handle({
      run,
      query: new URLSearchParams(queryAt === -1 ? '' : url.slice(queryAt + 1)),
      body,
      upload,
      clientGone: clientGone.signal,
    });
    await removeUpload(upload);
    sendReply(res, reply);
  } catch (error) {
    await removeUpload(upload);
    sendFailure(deps.logger, req, res, error);
  } finally {
    for (const release of releases) release();
  }
}

/** The temp file goes before the answer: a client that got its reply finds no file left. */
async function removeUpload(upload: Upload | null): Promise<void> {
  if (upload !== null) await rm(upload.path, { force: true }).catch(() => undefined);
}

function sendReply(
  res: ServerResponse,
  reply: RouteReply,
  extraHeaders: Readonly<Record<string, string>> = {},
): void {
  switch (reply.kind) {
    case 'json': {
      const text = JSON.stringify(reply.body);
      res.writeHead(reply.status, {
        ...extraHeaders,
        'content-type': JSON_TYPE,
        'content-length': Buffer.byteLength(text, 'utf8'),
      });
      res.end(text);
      return;
    }
    case 'bytes':
      res.writeHead(reply.status, { ...reply.headers, 'content-length': reply.body.length });
      res.end(reply.body);
      return;
    case 'empty':
      res.writeHead(reply.status, { 'content-length': 0 });
      res.end();
      return;
  }
}

/** `<status>: <reason>` as text, the framework-error shape. */
function sendBare(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  const text = `${status}: ${STATUS_CODES[status] ?? 'Error'}`;
  res.writeHead(status, {
    ...headers,
    'content-type': TEXT_TYPE,
    'content-length': Buffer.byteLength(text, 'utf8'),
  });
  res.end(text);
}

function sendFailure(
  logger: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  error: unknown,
): void {
  if (res.headersSent || res.destroyed) return;
  if (isApiError(error)) {
    // A body we refused to read must not be waited for: close the connection after answering.
    const headers: Record<string, string> = error.closeConnection ? { connection: 'close' } : {};
    if (error.retryAfterSeconds !== null) headers['retry-after'] = String(error.retryAfterSeconds);
    if (error.bare) return sendBare(res, error.status, headers);
    return sendReply(
      res,
      { kind: 'json', status: error.status, body: { error: error.message } },
      headers,
    );
  }
  if (!req.complete && req.destroyed) return;
  // A bug: say so without details (messages never carry secrets, but stacks stay in the log).
  logger.error(
    { err: error, path: (req.url ?? '').split('?')[0] },
    `job API: request failed: ${describeError(error)}`,
  );
  sendReply(res, { kind: 'json', status: 500, body: { error: 'internal error' } });
}
