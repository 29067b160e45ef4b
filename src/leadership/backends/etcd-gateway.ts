// etcd's v3 JSON gateway as the etcd lease client needs it (docs/clustering.md "etcd"): POST a
// JSON body to one endpoint after another (in order, rotated by one each round; within a round the
// next request starts at the endpoint that answered the last), a non-object reply or a transport
// failure moving on to the next; user/password auth with the raw token in
// `Authorization`, re-authenticating once on a 401. Keys and values travel base64; int64s as
// decimal strings.
// Must not: put the password or the token into a message, or send credentials over http://.
import { readFile } from 'node:fs/promises';
import { YacronError, describeError, type Clock } from '../../common/index.js';
import type { ResolvedEtcdBlock } from '../../config/index.js';
import { JsonHttpClient, asObject, type TlsOptions } from '../json-http.js';

export type EtcdGatewayOptions = Pick<
  ResolvedEtcdBlock,
  'endpoints' | 'username' | 'password' | 'tls'
>;

export const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
export const unb64 = (text: unknown): string | null =>
  typeof text === 'string' ? Buffer.from(text, 'base64').toString('utf8') : null;

/** A gateway int64 (a decimal string, sometimes a number), normalised to its decimal text. */
export function int64Text(value: unknown): string | null {
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value).toString();
  return null;
}

export class EtcdGateway {
  readonly #options: EtcdGatewayOptions;
  readonly #clock: Clock;
  readonly #endpoints: readonly string[];
  #http: JsonHttpClient | null = null;
  #token: string | null = null;
  #offset = 0;

  constructor(options: EtcdGatewayOptions, clock: Clock) {
    this.#options = options;
    this.#clock = clock;
    const auth = options.username !== null;
    // With auth only https endpoints are used (the config already refuses an http one then).
    this.#endpoints = options.endpoints
      .filter((url) => !auth || /^https:/i.test(url))
      .map((url) => url.replace(/\/+$/, ''));
  }

  /** Load the TLS files and authenticate (a failure fails the backend's start). */
  async start(timeoutMs: number): Promise<void> {
    const { ca, cert, key } = this.#options.tls;
    const tls: TlsOptions = {
      ...(ca !== null && { ca: await readFile(ca) }),
      ...(cert !== null && { cert: await readFile(cert) }),
      ...(key !== null && { key: await readFile(key) }),
    };
    this.#http = new JsonHttpClient(this.#clock, tls);
    if (this.#options.username !== null) await this.#authenticate(timeoutMs, undefined);
  }

  /** The next round starts at the next endpoint. */
  rotate(): void {
    if (this.#endpoints.length > 0) this.#offset = (this.#offset + 1) % this.#endpoints.length;
  }

  /** POST to the first endpoint that answers with a JSON object. */
  async post(
    path: string,
    body: object,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>> {
    const failures: string[] = [];
    for (let i = 0; i < this.#endpoints.length; i += 1) {
      const endpoint = this.#endpoints[(this.#offset + i) % this.#endpoints.length]!;
      if (signal?.aborted) break;
      try {
        const reply = await this.#postTo(endpoint, path, body, timeoutMs, signal, true);
        // An endpoint that hung costs its timeout once per round, not once per request.
        this.#offset = (this.#offset + i) % this.#endpoints.length;
        return reply;
      } catch (error) {
        failures.push(describeError(error));
      }
    }
    throw new YacronError(
      'YC_ERR_CLUSTER_LEASE',
      `Cannot call etcd ${path}: no endpoint answered (${failures.join('; ') || 'aborted'})`,
    );
  }

  close(): void {
    this.#http?.close();
  }

  async #postTo(
    endpoint: string,
    path: string,
    body: object,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    mayReauth: boolean,
  ): Promise<Record<string, unknown>> {
    const http = this.#client();
    const reply = await http.request({
      method: 'POST',
      url: `${endpoint}${path}`,
      body: JSON.stringify(body),
      headers: this.#token === null ? {} : { Authorization: this.#token },
      timeoutMs,
      ...(signal && { signal }),
    });
    if (reply.status === 401 && mayReauth && this.#options.username !== null) {
      await this.#authenticateAt(endpoint, timeoutMs, signal);
      return this.#postTo(endpoint, path, body, timeoutMs, signal, false);
    }
    const object = asObject(reply.json);
    if (reply.status < 200 || reply.status >= 300 || object === undefined) {
      throw new Error(
        `${endpoint} answered HTTP ${reply.status}${gatewayMessage(object, reply.text)}`,
      );
    }
    return object;
  }

  async #authenticate(timeoutMs: number, signal: AbortSignal | undefined): Promise<void> {
    const failures: string[] = this.#endpoints.length === 0 ? ['no https:// endpoint'] : [];
    for (const endpoint of this.#endpoints) {
      try {
        await this.#authenticateAt(endpoint, timeoutMs, signal);
        return;
      } catch (error) {
        failures.push(describeError(error));
      }
    }
    throw new YacronError(
      'YC_ERR_CLUSTER_CREDENTIALS',
      `Cannot authenticate to etcd as ${this.#options.username}: ${failures.join('; ')}`,
    );
  }

  async #authenticateAt(
    endpoint: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const reply = await this.#client().request({
      method: 'POST',
      url: `${endpoint}/v3/auth/authenticate`,
      body: JSON.stringify({ name: this.#options.username, password: this.#options.password }),
      timeoutMs,
      ...(signal && { signal }),
    });
    const answer = asObject(reply.json);
    const token = answer?.token;
    if (reply.status !== 200 || typeof token !== 'string' || token === '') {
      const why = gatewayMessage(answer, reply.text);
      throw new Error(`${endpoint} refused the credentials (HTTP ${reply.status}${why})`);
    }
    this.#token = token;
  }

  #client(): JsonHttpClient {
    if (this.#http === null) {
      throw new YacronError('YC_ERR_CLUSTER_LEASE', 'Cannot call etcd: the client is not started');
    }
    return this.#http;
  }
}

/** The gateway's error text (`message` in 3.5, `error` in 3.4), as `: <text>`, or ''. */
function gatewayMessage(answer: Record<string, unknown> | undefined, raw: string): string {
  const text = answer?.message ?? answer?.error ?? raw;
  return typeof text === 'string' && text !== '' ? `: ${text}` : '';
}
