// The CLI's one I/O seam to the daemon's control API (docs/http-api.md "Routes"): a GET over
// node:http (a TCP base URL or a unix socket, docs/http-api.md "Listen URLs") with the bearer
// token, its answer read as a bounded body or as bounded lines while they arrive (an archived
// run, an event stream). One connection per request, no proxy. Every way a request can end is a
// value; what a status means is the command's business.
// Must not: buffer an answer beyond its bound, wait for headers or between chunks without a
// limit, or put the token in any message or value it returns.
import { request, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import type { Clock } from '../../common/index.js';
import type { ApiTarget } from './api-target.js';
import { LineSplitter } from './line-splitter.js';

/** How much of an error answer (a status other than 200) is kept for the message. */
const ERROR_BODY_BYTES = 4096;

export interface GetOptions {
  /** `/jobs/x/output?limit=3`: the path under the target's base, query included. */
  readonly path: string;
  readonly accept: string;
  /** From sending the request to the answer's headers. */
  readonly headerTimeoutMs: number;
  /** Between two chunks of the body (a stream's keep-alive pings count). */
  readonly idleTimeoutMs: number;
  /** Aborting ends the request (`stopped`). */
  readonly signal?: AbortSignal;
  /** Called once a 200 answer's headers are in (a stream is open from then on). */
  readonly onOpen?: () => void;
}

/** How a streamed request ended (lines were handed over as they came). */
export type StreamEnd =
  | { readonly kind: 'ended' }
  | { readonly kind: 'stopped' }
  | { readonly kind: 'status'; readonly status: number; readonly body: string }
  | { readonly kind: 'unreachable'; readonly reason: string }
  | { readonly kind: 'too-large' }
  | { readonly kind: 'idle'; readonly ms: number };

/** How a whole-body request ended. */
export type BodyReply =
  { readonly kind: 'ok'; readonly body: string } | Exclude<StreamEnd, { readonly kind: 'ended' }>;

export class ControlApi {
  readonly target: ApiTarget;
  readonly #clock: Clock;

  constructor(target: ApiTarget, clock: Clock) {
    this.target = target;
    this.#clock = clock;
  }

  /** A 200 answer's whole body (at most `maxBytes`), or how the request failed. */
  async getBody(options: GetOptions & { readonly maxBytes: number }): Promise<BodyReply> {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const end = await this.#exchange(options, (chunk) => {
      bytes += chunk.byteLength;
      if (bytes > options.maxBytes) return 'too-large';
      chunks.push(chunk);
      return 'continue';
    });
    if (end.kind === 'ended') return { kind: 'ok', body: Buffer.concat(chunks).toString('utf8') };
    return end;
  }

  /**
   * A 200 answer's lines as they arrive (each at most `maxLineBytes`); `onLine` returning 'stop'
   * ends the request (`stopped`). The text after the last newline counts as a line.
   */
  async streamLines(
    options: GetOptions & { readonly maxLineBytes: number },
    onLine: (line: string) => 'stop' | 'continue',
  ): Promise<StreamEnd> {
    // A holder, not a `let`: the callbacks set it.
    const state: { stopped: boolean } = { stopped: false };
    const splitter = new LineSplitter(options.maxLineBytes, (line) => {
      if (!state.stopped && onLine(line) === 'stop') state.stopped = true;
    });
    const end = await this.#exchange(options, (chunk) => {
      if (splitter.push(chunk).kind === 'overflow') return 'too-large';
      return state.stopped ? 'stop' : 'continue';
    });
    if (end.kind === 'ended' && !state.stopped) {
      splitter.finish();
      if (state.stopped) return { kind: 'stopped' };
    }
    return end;
  }

  #exchange(
    options: GetOptions,
    onChunk: (chunk: Buffer) => 'continue' | 'stop' | 'too-large',
  ): Promise<StreamEnd> {
    return new Promise<StreamEnd>((resolve) => {
      let settled = false;
      let timer = this.#clock.setTimer(
        () => give({ kind: 'idle', ms: options.headerTimeoutMs }),
        options.headerTimeoutMs,
      );
      const give = (end: StreamEnd): void => {
        if (settled) return;
        settled = true;
        timer.cancel();
        options.signal?.removeEventListener('abort', onAbort);
        outgoing.destroy();
        resolve(end);
      };
      const onAbort = (): void => give({ kind: 'stopped' });
      const rearm = (): void => {
        timer.cancel();
        timer = this.#clock.setTimer(
          () => give({ kind: 'idle', ms: options.idleTimeoutMs }),
          options.idleTimeoutMs,
        );
      };
      const outgoing: ClientRequest = request(this.#requestOptions(options));
      outgoing.on('error', (error) => give({ kind: 'unreachable', reason: error.message }));
      outgoing.on('response', (incoming: IncomingMessage) => {
        rearm();
        const status = incoming.statusCode ?? 0;
        if (status !== 200) {
          readErrorBody(incoming, rearm, (body) => give({ kind: 'status', status, body }));
          return;
        }
        options.onOpen?.();
        incoming.on('data', (chunk: Buffer) => {
          if (settled) return;
          rearm();
          const verdict = onChunk(chunk);
          if (verdict === 'stop') give({ kind: 'stopped' });
          else if (verdict === 'too-large') give({ kind: 'too-large' });
        });
        incoming.on('error', (error) => give({ kind: 'unreachable', reason: error.message }));
        incoming.on('end', () => give({ kind: 'ended' }));
        incoming.on('close', () => {
          if (!incoming.complete) {
            give({
              kind: 'unreachable',
              reason: 'the connection closed in the middle of the answer',
            });
          }
        });
      });
      options.signal?.addEventListener('abort', onAbort, { once: true });
      if (options.signal?.aborted === true) onAbort();
      outgoing.end();
    });
  }

  #requestOptions(options: GetOptions): RequestOptions {
    const headers: Record<string, string> = { accept: options.accept, connection: 'close' };
    if (this.target.token !== null) headers['authorization'] = `Bearer ${this.target.token}`;
    const { address } = this.target;
    if (address.kind === 'unix') {
      return {
        socketPath: address.socketPath,
        path: options.path,
        method: 'GET',
        headers,
        agent: false,
      };
    }
    const prefix = address.base.pathname.replace(/\/+$/, '');
    return {
      // URL keeps an IPv6 host in brackets; node:http wants it bare.
      hostname: address.base.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: address.base.port === '' ? 80 : Number(address.base.port),
      path: prefix + options.path,
      method: 'GET',
      headers,
      // agent: false = one fresh connection, closed after the answer; no proxy, no pool.
      agent: false,
    };
  }
}

/** The first ERROR_BODY_BYTES of an error answer, as text. */
function readErrorBody(
  incoming: IncomingMessage,
  onActivity: () => void,
  done: (body: string) => void,
): void {
  const chunks: Buffer[] = [];
  let bytes = 0;
  const finish = (): void =>
    done(Buffer.concat(chunks).toString('utf8').slice(0, ERROR_BODY_BYTES));
  incoming.on('data', (chunk: Buffer) => {
    onActivity();
    if (bytes >= ERROR_BODY_BYTES) return;
    const kept = chunk.subarray(0, ERROR_BODY_BYTES - bytes);
    chunks.push(Buffer.from(kept));
    bytes += kept.byteLength;
  });
  incoming.on('end', finish);
  incoming.on('error', finish);
  incoming.on('close', finish);
}

/** A path segment: a job name or an archive id, percent-encoded (docs/http-api.md "Responses, errors and limits"). */
export function segment(value: string): string {
  return encodeURIComponent(value);
}
