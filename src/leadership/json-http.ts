// The lease stores' one HTTP client (docs/clustering.md "Lease backends"): JSON over http or
// https with an optional CA and client certificate, one keep-alive agent per client, each call
// bounded by its own timeout and the caller's abort signal, the reply body capped, redirects
// never followed. etcd's v3 gateway and the Kubernetes apiserver both speak through it.
// Must not: follow a redirect, read past the cap, or put a header value into an error message.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { YacronError, type Clock } from '../common/index.js';

/** Lease objects and gateway replies are small; anything bigger is not a store talking. */
export const MAX_STORE_REPLY_BYTES = 1024 * 1024;

export interface TlsOptions {
  /** PEM bytes; undefined = the system roots. */
  readonly ca?: string | Buffer;
  readonly cert?: string | Buffer;
  readonly key?: string | Buffer;
  /** Only a kubeconfig's insecure-skip-tls-verify turns this off. */
  readonly rejectUnauthorized?: boolean;
}

export interface JsonRequest {
  readonly method: 'GET' | 'POST' | 'PUT';
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Serialised JSON. */
  readonly body?: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

export interface JsonReply {
  readonly status: number;
  /** Parsed JSON, or undefined when the body is empty or not JSON. */
  readonly json: unknown;
  /** The body's first 200 characters when it is not JSON (for messages), else ''. */
  readonly text: string;
}

export class JsonHttpClient {
  readonly #clock: Clock;
  readonly #http = new HttpAgent({ keepAlive: true, maxSockets: 4 });
  readonly #https: HttpsAgent;

  constructor(clock: Clock, tls: TlsOptions = {}) {
    this.#clock = clock;
    this.#https = new HttpsAgent({ keepAlive: true, maxSockets: 4, ...tls });
  }

  request(req: JsonRequest): Promise<JsonReply> {
    const url = new URL(req.url);
    const secure = url.protocol === 'https:';
    if (!secure && url.protocol !== 'http:') {
      return Promise.reject(
        new YacronError('YC_ERR_CLUSTER_LEASE', `Cannot call ${url.origin}: not an http(s) URL`),
      );
    }
    const what = `${req.method} ${url.origin}${url.pathname}`;
    return new Promise<JsonReply>((resolve, reject) => {
      const bound = new AbortController();
      let settled = false;
      const finish = (error: Error | null, reply?: JsonReply): void => {
        if (settled) return;
        settled = true;
        timer.cancel();
        req.signal?.removeEventListener('abort', onAbort);
        if (error) reject(error);
        else resolve(reply!);
      };
      const fail = (message: string): void =>
        finish(new YacronError('YC_ERR_CLUSTER_LEASE', `Cannot ${what}: ${message}`));
      const timer = this.#clock.setTimer(() => {
        fail(`no answer within ${req.timeoutMs / 1000} s`);
        bound.abort();
      }, req.timeoutMs);
      const onAbort = (): void => {
        fail('aborted');
        bound.abort();
      };
      if (req.signal?.aborted) {
        onAbort();
        return;
      }
      req.signal?.addEventListener('abort', onAbort, { once: true });
      const headers: Record<string, string> = {
        Accept: 'application/json',
        ...(req.body !== undefined && {
          'Content-Type': 'application/json',
          'Content-Length': String(Buffer.byteLength(req.body)),
        }),
        ...req.headers,
      };
      const options = {
        method: req.method,
        headers,
        signal: bound.signal,
        agent: secure ? this.#https : this.#http,
      };
      const call = secure ? httpsRequest(url, options) : httpRequest(url, options);
      call.on('error', (error) => fail(error.message));
      call.on('response', (response) => {
        readCapped(response).then(
          (text) => {
            const json = parseJson(text);
            const snippet = json === undefined ? text.trim().slice(0, 200) : '';
            finish(null, { status: response.statusCode ?? 0, json, text: snippet });
          },
          (error: unknown) => fail(error instanceof Error ? error.message : String(error)),
        );
      });
      call.end(req.body);
    });
  }

  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}

function readCapped(response: IncomingMessage): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_STORE_REPLY_BYTES) {
        reject(new Error(`reply larger than ${MAX_STORE_REPLY_BYTES} bytes`)); // first: it wins
        response.destroy();
        return;
      }
      chunks.push(chunk);
    });
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
    response.on('aborted', () => reject(new Error('reply aborted')));
  });
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A plain object (a JSON object), or undefined. */
export function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
