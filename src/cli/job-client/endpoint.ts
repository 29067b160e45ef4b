// The job client's one I/O seam: requests to the daemon's loopback state endpoint
// (docs/http-api.md "The job API") over node:http, with the run's bearer token. It never reads
// proxy variables, sends one request per connection (the process exits right after), retries a
// 429 (the endpoint is busy for this run) after its Retry-After while the request's time lasts,
// and turns every transport failure into an `unreachable` value; what a status means is the
// commands' business.
import { request, type IncomingHttpHeaders } from 'node:http';
import type { Clock } from '../../common/index.js';

/**
 * Per-request limit (docs/cli.md "Job-facing commands"); `lock --wait` adds its own --timeout on
 * top.
 */
export const REQUEST_TIMEOUT_MS = 30_000;

export interface EndpointRequest {
  readonly method: 'GET' | 'POST';
  /** `/v1/kv/get` */
  readonly path: string;
  /** Query parameters; undefined ones are left out. */
  readonly query?: Readonly<Record<string, string | undefined>>;
  /** A JSON body (POST). */
  readonly json?: unknown;
  /** A raw body (POST, artifact put). */
  readonly bytes?: Uint8Array;
  readonly timeoutMs?: number;
  /** Aborting gives up on the request (the reply is then `unreachable`). */
  readonly signal?: AbortSignal;
}

export type EndpointReply =
  | {
      readonly kind: 'reply';
      readonly status: number;
      readonly headers: IncomingHttpHeaders;
      readonly body: Buffer;
    }
  | { readonly kind: 'unreachable'; readonly reason: string };

export interface StateEndpoint {
  /** YACRON2_STATE_URL as given, for messages. */
  readonly url: string;
  send(request: EndpointRequest): Promise<EndpointReply>;
}

export type EndpointSetup =
  | { readonly kind: 'ready'; readonly endpoint: StateEndpoint }
  | { readonly kind: 'missing'; readonly variable: 'YACRON2_STATE_URL' | 'YACRON2_STATE_TOKEN' };

/** The endpoint named by the run's environment, or the variable that is missing (or empty). */
export function endpointFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  clock: Clock,
): EndpointSetup {
  const url = env['YACRON2_STATE_URL'];
  if (url === undefined || url === '') return { kind: 'missing', variable: 'YACRON2_STATE_URL' };
  const token = env['YACRON2_STATE_TOKEN'];
  if (token === undefined || token === '') {
    return { kind: 'missing', variable: 'YACRON2_STATE_TOKEN' };
  }
  return { kind: 'ready', endpoint: new HttpStateEndpoint(url, token, clock) };
}

export class HttpStateEndpoint implements StateEndpoint {
  readonly url: string;
  readonly #token: string;
  readonly #clock: Clock;

  constructor(url: string, token: string, clock: Clock) {
    this.url = url;
    this.#token = token;
    this.#clock = clock;
  }

  async send(options: EndpointRequest): Promise<EndpointReply> {
    const timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
    const deadline = this.#clock.monotonic() + timeoutMs;
    let reply = await this.#sendOnce(options, timeoutMs);
    while (reply.kind === 'reply' && reply.status === 429) {
      const waitMs = retryAfterMs(reply.headers['retry-after']);
      if (this.#clock.monotonic() + waitMs >= deadline) return reply;
      try {
        await this.#clock.sleep(waitMs, options.signal);
      } catch {
        return { kind: 'unreachable', reason: 'interrupted' };
      }
      reply = await this.#sendOnce(options, deadline - this.#clock.monotonic());
    }
    return reply;
  }

  #sendOnce(options: EndpointRequest, timeoutMs: number): Promise<EndpointReply> {
    let target: URL;
    try {
      // A base with a path prefix keeps it: `http://h:1/prefix` + `/v1/x` → `/prefix/v1/x`.
      target = new URL(this.url.replace(/\/+$/, '') + options.path);
    } catch {
      return Promise.resolve({ kind: 'unreachable', reason: 'the URL is not valid' });
    }
    if (target.protocol !== 'http:') {
      return Promise.resolve({
        kind: 'unreachable',
        reason: `only http:// URLs are supported, got ${target.protocol}//`,
      });
    }
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) target.searchParams.set(name, value);
    }
    const body =
      options.bytes ??
      (options.json === undefined ? undefined : Buffer.from(JSON.stringify(options.json), 'utf8'));
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#token}`,
      accept: 'application/json',
      connection: 'close',
    };
    if (body !== undefined) {
      headers['content-type'] =
        options.bytes === undefined ? 'application/json' : 'application/octet-stream';
      headers['content-length'] = String(body.byteLength);
    }
    return new Promise<EndpointReply>((resolve) => {
      let settled = false;
      const finish = (reply: EndpointReply): void => {
        if (settled) return;
        settled = true;
        timer.cancel();
        options.signal?.removeEventListener('abort', onAbort);
        resolve(reply);
      };
      const fail = (error: Error): void => finish({ kind: 'unreachable', reason: error.message });
      // agent: false = one fresh connection, closed after the reply, so nothing keeps the
      // process alive and no proxy or pooled socket is ever involved.
      const outgoing = request(target, { method: options.method, headers, agent: false });
      const timer = this.#clock.setTimer(
        () => outgoing.destroy(new Error(`no reply within ${formatSeconds(timeoutMs)} s`)),
        timeoutMs,
      );
      const onAbort = (): void => void outgoing.destroy(new Error('interrupted'));
      options.signal?.addEventListener('abort', onAbort, { once: true });
      if (options.signal?.aborted === true) onAbort();
      outgoing.on('error', fail);
      outgoing.on('response', (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', fail);
        incoming.on('close', () => {
          if (!incoming.complete)
            fail(new Error('the connection closed in the middle of the reply'));
        });
        incoming.on('end', () =>
          finish({
            kind: 'reply',
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            body: Buffer.concat(chunks),
          }),
        );
      });
      outgoing.end(body);
    });
  }
}

/**
 * A 429's Retry-After (whole or fractional seconds) in ms, kept within [50 ms, 5 s]; 1 s without
 * one.
 */
export function retryAfterMs(header: string | string[] | undefined): number {
  const seconds = Number(Array.isArray(header) ? header[0] : header);
  if (header === undefined || !Number.isFinite(seconds) || seconds < 0) return 1000;
  return Math.min(5000, Math.max(50, seconds * 1000));
}

function formatSeconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}
