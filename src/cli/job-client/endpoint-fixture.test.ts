// Test support (no tests here): a stand-in for the daemon's job API on 127.0.0.1 that speaks the
// /v1/ routes of docs/http-api.md "The job API" over in-memory maps (auth, scopes, the status codes
// the client cares about), records every request, and can be told to answer a route with a canned
// status or not at all; plus runJob(), which runs the job client in-process.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { systemClock, type Clock } from '../../common/index.js';
import type { JobProcess } from './job-command.js';
import { runJobCli } from './main.js';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: IncomingMessage['headers'];
  /** The parsed JSON body, or the raw bytes for artifact/put. */
  readonly body: unknown;
}

interface Override {
  readonly status: number;
  /** Sent as JSON; a string or a Buffer is sent as is. */
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

interface LockHold {
  readonly key: string;
  readonly slot: number;
}

export interface FakeEndpointOptions {
  readonly job?: string;
  readonly allowedScopes?: readonly string[];
  readonly secrets?: Readonly<Record<string, string>>;
}

type Json = Record<string, unknown>;

export class FakeStateEndpoint {
  readonly token = randomBytes(32).toString('hex');
  readonly requests: RecordedRequest[] = [];
  readonly job: string;
  readonly #allowed: ReadonlySet<string>;
  readonly #secrets: Readonly<Record<string, string>>;
  readonly #server: Server;
  readonly #docs = new Map<string, { value: unknown; updatedAt: number }>();
  readonly #claims = new Map<string, { claimedAt: number; expiresAt: number | null }>();
  readonly #artifacts = new Map<string, { bytes: Buffer; sha256: string; at: number }>();
  readonly #slots = new Set<string>();
  readonly #holds = new Map<string, LockHold>();
  readonly #overrides = new Map<string, { reply: Override | 'hang'; times: number }>();
  #nowMs = 1_780_000_000_000;

  private constructor(options: FakeEndpointOptions) {
    this.job = options.job ?? 'etl';
    this.#allowed = new Set([this.job, 'global', ...(options.allowedScopes ?? [])]);
    this.#secrets = options.secrets ?? {};
    this.#server = createServer((request, response) => void this.#handle(request, response));
  }

  static async start(options: FakeEndpointOptions = {}): Promise<FakeStateEndpoint> {
    const endpoint = new FakeStateEndpoint(options);
    endpoint.#server.listen(0, '127.0.0.1');
    await once(endpoint.#server, 'listening');
    return endpoint;
  }

  get url(): string {
    const { port } = this.#server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  /** YACRON2_STATE_URL and YACRON2_STATE_TOKEN for this endpoint. */
  get env(): Record<string, string> {
    return { YACRON2_STATE_URL: this.url, YACRON2_STATE_TOKEN: this.token };
  }

  /** Answer `path` with this status and body from now on (or `times` times), or never ('hang'). */
  override(path: string, reply: Override | 'hang', times = Infinity): void {
    this.#overrides.set(path, { reply, times });
  }

  /** Store `keys` (value: the key) in `scope` directly. */
  seedKeys(keys: readonly string[], scope = this.job): void {
    for (const key of keys) this.#docs.set(`kv\0${scope}\0${key}`, { value: key, updatedAt: 0 });
  }

  /** Serve `path` normally again. */
  restore(path: string): void {
    this.#overrides.delete(path);
  }

  /** Move the endpoint's wall clock (idempotency TTLs). */
  advance(ms: number): void {
    this.#nowMs += ms;
  }

  /** Requests made to `path` so far. */
  requestsTo(path: string): RecordedRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  /** Permits of `name` in `scope` currently held. */
  heldSlots(name: string, scope = this.job): number {
    return [...this.#holds.values()].filter((hold) => hold.key === `${scope}\0${name}`).length;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    this.#server.close();
    await once(this.#server, 'close');
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const query = Object.fromEntries(url.searchParams);
    let body: unknown = raw;
    if (request.headers['content-type'] === 'application/json') {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = undefined;
      }
    }
    this.requests.push({
      method: request.method ?? '',
      path: url.pathname,
      query,
      headers: request.headers,
      body,
    });

    const send = (
      status: number,
      payload?: unknown,
      headers: Record<string, string> = {},
    ): void => {
      const bytes =
        payload === undefined
          ? Buffer.alloc(0)
          : Buffer.isBuffer(payload)
            ? payload
            : Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload));
      response.writeHead(status, {
        'content-type': Buffer.isBuffer(payload) ? 'application/octet-stream' : 'application/json',
        ...headers,
      });
      response.end(bytes);
    };
    if (request.headers.authorization !== `Bearer ${this.token}`) {
      send(401, { statusCode: 401, error: 'Unauthorized', message: 'unknown token' });
      return;
    }
    const override = this.#overrides.get(url.pathname);
    if (override !== undefined) {
      if (--override.times <= 0) this.#overrides.delete(url.pathname);
      if (override.reply === 'hang') return;
      send(override.reply.status, override.reply.body, override.reply.headers);
      return;
    }
    const input: Json =
      request.method === 'GET' || Buffer.isBuffer(body) ? query : ((body ?? {}) as Json);
    const scope =
      typeof input['scope'] === 'string' && input['scope'] !== '' ? input['scope'] : this.job;
    if (!this.#allowed.has(scope)) {
      send(403, {
        error: `scope '${scope}' is not permitted for job '${this.job}'; add it to stateAllowedScopes`,
      });
      return;
    }
    const route = `${request.method} ${url.pathname}`;
    const result = this.#route(route, scope, input, Buffer.isBuffer(body) ? body : Buffer.alloc(0));
    send(result.status, result.body, result.headers);
  }

  #route(
    route: string,
    scope: string,
    input: Json,
    bytes: Buffer,
  ): { status: number; body?: unknown; headers?: Record<string, string> } {
    const at = `${scope}\0`;
    switch (route) {
      case 'GET /v1/kv/get': {
        const doc = this.#docs.get(`kv\0${at}${String(input['key'])}`);
        return doc === undefined ? { status: 404 } : { status: 200, body: doc };
      }
      case 'POST /v1/kv/set': {
        if (typeof input['key'] !== 'string')
          return { status: 400, body: { error: 'key is required' } };
        this.#docs.set(`kv\0${at}${input['key']}`, {
          value: input['value'],
          updatedAt: this.#nowMs / 1000,
        });
        return { status: 200, body: { ok: true, updatedAt: this.#nowMs / 1000 } };
      }
      case 'POST /v1/kv/delete':
        return {
          status: 200,
          body: { existed: this.#docs.delete(`kv\0${at}${String(input['key'])}`) },
        };
      case 'GET /v1/kv/list': {
        const prefix = `kv\0${at}`;
        const after = typeof input['after'] === 'string' ? input['after'] : '';
        const all = [...this.#docs]
          .filter(([key]) => key.startsWith(prefix) && key.slice(prefix.length) > after)
          .map(([key, doc]) =>
            input['values'] === '0'
              ? { key: key.slice(prefix.length) }
              : { key: key.slice(prefix.length), ...doc },
          )
          .sort((a, b) => (a.key < b.key ? -1 : 1));
        const limit = input['limit'] === undefined ? all.length : Number(input['limit']);
        const keys = all.slice(0, limit);
        return {
          status: 200,
          body:
            keys.length < all.length ? { scope, keys, next: keys.at(-1)?.key } : { scope, keys },
        };
      }
      case 'GET /v1/cursor/get': {
        const doc = this.#docs.get(`cursor\0${at}${String(input['name'])}`);
        return doc === undefined ? { status: 404 } : { status: 200, body: doc };
      }
      case 'POST /v1/cursor/advance': {
        const key = `cursor\0${at}${String(input['name'])}`;
        const current = this.#docs.get(key);
        const value = input['value'];
        if (current !== undefined && input['force'] !== true) {
          if (typeof current.value !== typeof value) {
            return {
              status: 409,
              body: { error: 'cursor value is not comparable with the stored one' },
            };
          }
          if (!((value as number | string) > (current.value as number | string))) {
            return { status: 200, body: { value: current.value, advanced: false } };
          }
        }
        this.#docs.set(key, { value, updatedAt: this.#nowMs / 1000 });
        return { status: 200, body: { value, advanced: true } };
      }
      case 'POST /v1/idempotency/claim': {
        const key = `${at}${String(input['key'])}`;
        const existing = this.#claims.get(key);
        if (
          existing !== undefined &&
          (existing.expiresAt === null || existing.expiresAt > this.#nowMs)
        ) {
          return { status: 200, body: { fresh: false, claimedAt: existing.claimedAt / 1000 } };
        }
        const ttl = typeof input['ttl'] === 'number' ? input['ttl'] : 0;
        this.#claims.set(key, {
          claimedAt: this.#nowMs,
          expiresAt: ttl > 0 ? this.#nowMs + ttl * 1000 : null,
        });
        return { status: 200, body: { fresh: true, claimedAt: this.#nowMs / 1000 } };
      }
      case 'POST /v1/idempotency/release':
        return {
          status: 200,
          body: { released: this.#claims.delete(`${at}${String(input['key'])}`) },
        };
      case 'POST /v1/artifact/put': {
        const sha256 = createHash('sha256').update(bytes).digest('hex');
        this.#artifacts.set(`${at}${String(input['name'])}`, {
          bytes,
          sha256,
          at: this.#nowMs / 1000,
        });
        return { status: 200, body: { sha256, size: bytes.length } };
      }
      case 'GET /v1/artifact/get': {
        const artifact = this.#artifacts.get(`${at}${String(input['name'])}`);
        if (artifact === undefined) return { status: 404 };
        return {
          status: 200,
          body: artifact.bytes,
          headers: {
            'x-yacron2-sha256': artifact.sha256,
            'x-yacron2-size': String(artifact.bytes.length),
          },
        };
      }
      case 'GET /v1/artifact/list': {
        const artifacts = [...this.#artifacts]
          .filter(([key]) => key.startsWith(at))
          .map(([key, artifact]) => ({
            name: key.slice(at.length),
            sha256: artifact.sha256,
            size: artifact.bytes.length,
            at: artifact.at,
          }))
          .sort((a, b) => (a.name < b.name ? -1 : 1));
        return { status: 200, body: { scope, artifacts } };
      }
      case 'POST /v1/lock/acquire': {
        const permits = input['permits'] ?? 1;
        if (typeof permits !== 'number' || permits < 1) {
          return { status: 400, body: { error: 'permits must be an integer >= 1' } };
        }
        const key = `${at}${String(input['name'])}`;
        for (let slot = 0; slot < permits; slot++) {
          if (this.#slots.has(`${key}#${slot}`)) continue;
          this.#slots.add(`${key}#${slot}`);
          const token = randomBytes(16).toString('hex');
          this.#holds.set(token, { key, slot });
          return { status: 200, body: { acquired: true, token, slot, fence: 1, ttl: 30 } };
        }
        return { status: 200, body: { acquired: false } };
      }
      case 'POST /v1/lock/release': {
        const hold = this.#holds.get(String(input['token']));
        if (hold === undefined) return { status: 200, body: { released: false } };
        this.#holds.delete(String(input['token']));
        this.#slots.delete(`${hold.key}#${hold.slot}`);
        return { status: 200, body: { released: true } };
      }
      case 'GET /v1/secret/get': {
        const value = this.#secrets[String(input['name'])];
        return value === undefined ? { status: 404 } : { status: 200, body: { value } };
      }
      case 'GET /v1/secret/list':
        return { status: 200, body: { names: Object.keys(this.#secrets).sort() } };
      default:
        return { status: 404 };
    }
  }
}

export interface JobRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** What `artifact get` wrote to stdout as bytes. */
  readonly stdoutBytes: Buffer;
}

export interface RunJobOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly stdin?: Buffer;
  readonly clock?: Clock;
  /** Receives the signal subscriptions of `lock run` so a test can deliver signals. */
  readonly signals?: Map<string, () => void>;
}

/** Run the job client in-process on `argv` (from the command word on). */
export async function runJob(
  argv: readonly string[],
  options: RunJobOptions = {},
): Promise<JobRun> {
  let stdout = '';
  let stderr = '';
  const bytes: Buffer[] = [];
  const host: JobProcess = {
    env: options.env ?? {},
    clock: options.clock ?? systemClock,
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    stdoutBytes: (chunk) => {
      bytes.push(Buffer.from(chunk));
      return Promise.resolve();
    },
    readStdin: () => Promise.resolve(options.stdin ?? Buffer.alloc(0)),
    onSignal: (signal, listener) => {
      options.signals?.set(signal, listener);
      return () => void options.signals?.delete(signal);
    },
  };
  const code = await runJobCli(argv, host);
  return { code, stdout, stderr, stdoutBytes: Buffer.concat(bytes) };
}
