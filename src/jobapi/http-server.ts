// The job API's HTTP handling over node:http (chosen over fastify for the KV round trip's
// latency budget; bench/groups/jobapi.ts): authenticate first (401 before any body is read or
// any store is touched), route, read the body under the transport cap, run the route, and
// write its reply. Response conventions of http-api B.3: JSON `{"error"}` bodies, except 401,
// 404, 405 and the transport-cap 413, which are plain `<status>: <reason>` framework errors.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { describeError, type Logger } from '../common/index.js';
import { ApiError, isApiError } from './api-error.js';
import type { Route, RouteReply } from './route-types.js';
import type { RunRegistry } from './run-registry.js';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const TEXT_TYPE = 'text/plain; charset=utf-8';

export interface RequestHandlerDeps {
  readonly registry: RunRegistry;
  readonly routes: ReadonlyMap<string, Route>;
  readonly logger: Logger;
  /** Largest request body accepted; null = unlimited. */
  readonly transportCapBytes: number | null;
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

async function serve(
  deps: RequestHandlerDeps,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  try {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    const run = deps.registry.authenticate(req.headers.authorization);
    if (run === undefined) return sendBare(res, 401);
    const route = deps.routes.get(path);
    if (route === undefined) return sendBare(res, 404);
    const method = req.method ?? 'GET';
    const allowed =
      route.method === 'GET' ? method === 'GET' || method === 'HEAD' : method === 'POST';
    if (!allowed)
      return sendBare(res, 405, { allow: route.method === 'GET' ? 'GET, HEAD' : 'POST' });
    const body = route.method === 'POST' ? await readBody(req, deps.transportCapBytes) : EMPTY;
    const clientGone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) clientGone.abort();
    });
    const reply = await route.handle({
      run,
      query: new URLSearchParams(queryAt === -1 ? '' : url.slice(queryAt + 1)),
      body,
      clientGone: clientGone.signal,
    });
    sendReply(res, reply);
  } catch (error) {
    sendFailure(deps.logger, req, res, error);
  }
}

function tooLarge(capBytes: number): ApiError {
  return new ApiError(413, `request body is over the ${capBytes}-byte limit`, { bare: true });
}

/** The whole body, or a bare 413 as soon as it is known to be over the cap. */
function readBody(req: IncomingMessage, capBytes: number | null): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (capBytes !== null && Number.isFinite(declared) && declared > capBytes) {
    return Promise.reject(tooLarge(capBytes));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (capBytes !== null && size > capBytes) {
        req.off('data', onData);
        chunks.length = 0;
        req.resume();
        reject(tooLarge(capBytes));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () =>
      resolve(chunks.length === 1 ? (chunks[0] ?? EMPTY) : Buffer.concat(chunks, size)),
    );
    req.once('error', reject);
    req.once('close', () => {
      if (!req.complete) reject(new Error('the client went away before the body was complete'));
    });
  });
}

function sendReply(res: ServerResponse, reply: RouteReply): void {
  switch (reply.kind) {
    case 'json': {
      const text = JSON.stringify(reply.body);
      res.writeHead(reply.status, {
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
    if (error.bare) {
      // A body we refused to read must not be waited for: close the connection after answering.
      return sendBare(res, error.status, error.status === 413 ? { connection: 'close' } : {});
    }
    return sendReply(res, { kind: 'json', status: error.status, body: { error: error.message } });
  }
  if (!req.complete && req.destroyed) return;
  // A bug: say so without details (messages never carry secrets, but stacks stay in the log).
  logger.error(
    { err: error, path: (req.url ?? '').split('?')[0] },
    `job API: request failed: ${describeError(error)}`,
  );
  sendReply(res, { kind: 'json', status: 500, body: { error: 'internal error' } });
}
