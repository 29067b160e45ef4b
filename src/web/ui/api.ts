// The page's only door to the control API (docs/http-api.md "Routes"): same-origin requests with
// the bearer token when one is set, a time limit on every call, a 401 reported once to whoever
// shows the token prompt, and log streams read with fetch (EventSource cannot send the token).
// Must not: retry writes (start/cancel) on its own.
import { SseParser, type SseEvent } from '../../common/sse-parser.js';
import type { TokenStore } from './token-store.js';

/** The time limit on every call, the early `/jobs` request's included (first-jobs.ts). */
export const API_TIMEOUT_MS = 10_000;
/** The largest server-sent event a stream may carry (the biggest is one log line's JSON). */
const MAX_EVENT_CHARS = 1_048_576;

export class ApiError extends Error {
  readonly status: number;
  readonly body: string;

  constructor(method: string, path: string, status: number, body: string) {
    super(
      `Cannot ${method} ${path}: ${status === 0 ? 'no answer' : `${status} ${body.slice(0, 200)}`}`,
    );
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
  }
}

export interface ApiOptions {
  readonly tokens: TokenStore;
  /** Called on every 401 (the app opens the token prompt). */
  readonly onUnauthorized: () => void;
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
}

export class ApiClient {
  readonly #options: ApiOptions;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;

  constructor(options: ApiOptions) {
    this.#options = options;
    this.#timeoutMs = options.timeoutMs ?? API_TIMEOUT_MS;
    this.#fetch = options.fetch ?? fetch.bind(globalThis);
  }

  #headers(extra: Record<string, string> = {}): Record<string, string> {
    const token = this.#options.tokens.get();
    return token === null ? extra : { ...extra, Authorization: `Bearer ${token}` };
  }

  async #request(
    method: string,
    path: string,
    headers: Record<string, string>,
    signal?: AbortSignal,
    body?: string,
  ): Promise<Response> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    let response: Response;
    try {
      response = await this.#fetch(path, {
        method,
        headers: this.#headers(headers),
        ...(body === undefined ? {} : { body }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        cache: 'no-store',
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new ApiError(method, path, 0, error instanceof Error ? error.message : String(error));
    }
    if (response.status === 401) this.#options.onUnauthorized();
    return response;
  }

  async #ok(method: string, path: string, response: Response): Promise<string> {
    const body = await response.text();
    if (!response.ok) throw new ApiError(method, path, response.status, body);
    return body;
  }

  async json<T>(path: string, signal?: AbortSignal): Promise<T> {
    const response = await this.#request('GET', path, { Accept: 'application/json' }, signal);
    return JSON.parse(await this.#ok('GET', path, response)) as T;
  }

  /** A JSON route's body as text (the caller decodes it; see model/jobs-decoder.ts). */
  async jsonText(path: string, signal?: AbortSignal): Promise<string> {
    const response = await this.#request('GET', path, { Accept: 'application/json' }, signal);
    return this.#ok('GET', path, response);
  }

  async text(path: string, signal?: AbortSignal): Promise<string> {
    const response = await this.#request('GET', path, {}, signal);
    return this.#ok('GET', path, response);
  }

  /** GET answering null on 404 (optional routes that a daemon may not have). */
  async optionalJson<T>(path: string, signal?: AbortSignal): Promise<T | null> {
    const response = await this.#request('GET', path, { Accept: 'application/json' }, signal);
    if (response.status === 404 || response.status === 405) {
      await response.body?.cancel();
      return null;
    }
    return JSON.parse(await this.#ok('GET', path, response)) as T;
  }

  async post(path: string): Promise<void> {
    const response = await this.#request('POST', path, {}, undefined);
    await this.#ok('POST', path, response);
  }

  /**
   * POST with a JSON body (the DAG actions); answers the JSON reply. A refusal throws ApiError
   * with the daemon's reason text (e.g. a 409 on a gate no longer waiting).
   */
  async postJson<T>(path: string, body: unknown = {}): Promise<T> {
    const response = await this.#request(
      'POST',
      path,
      { Accept: 'application/json', 'Content-Type': 'application/json' },
      undefined,
      JSON.stringify(body),
    );
    return JSON.parse(await this.#ok('POST', path, response)) as T;
  }

  /**
   * Reads a server-sent event stream until it ends or `signal` aborts; resolves when the server
   * closes it. No time limit once the headers arrived (streams are long-lived by design).
   */
  async stream(
    path: string,
    onEvent: (event: SseEvent) => void,
    signal: AbortSignal,
  ): Promise<void> {
    let response: Response;
    try {
      response = await this.#fetch(path, {
        headers: this.#headers({ Accept: 'text/event-stream' }),
        signal,
        cache: 'no-store',
      });
    } catch (error) {
      if (signal.aborted) return;
      throw new ApiError('GET', path, 0, error instanceof Error ? error.message : String(error));
    }
    if (response.status === 401) this.#options.onUnauthorized();
    if (!response.ok || response.body === null) {
      throw new ApiError('GET', path, response.status, await response.text());
    }
    const parser = new SseParser(MAX_EVENT_CHARS);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        for (const event of parser.push(value)) onEvent(event);
      }
    } catch (error) {
      if (signal.aborted) return;
      throw error;
    } finally {
      reader.releaseLock();
    }
  }
}

/** `/jobs/<name>/<rest>` with the name encoded as one path segment. */
export function jobPath(name: string, rest = ''): string {
  return `/jobs/${encodeURIComponent(name)}${rest === '' ? '' : `/${rest}`}`;
}
