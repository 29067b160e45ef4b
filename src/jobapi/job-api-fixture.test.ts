// Test support (no tests here): a job API on a real loopback port over a MemoryStateStore or an
// FsStateStore in a temp dir, driven by a FakeClock, with a recording logger; runs are minted
// through runEnvironment() exactly as the daemon will, and requests go over real HTTP (fetch).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  FakeClock,
  createDeferred,
  type ConnectionLimits,
  type Deferred,
} from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import type { ResolvedJobApi } from '../config/index.js';
import { type RunContext, type RunEnvironment } from '../scheduler/index.js';
import { makeJob, type MakeJobOverrides } from '../config/testing.js';
import { FsStateStore, MemoryStateStore, type StateStore } from '../state/index.js';
import { recordingLogger, type RecordingLogger } from '../logging/testing.js';
import { startJobApi, type JobApi } from './index.js';
import type { JobApiLimits } from './request-limits.js';

export const T0 = Date.UTC(2026, 5, 21, 12, 0, 0);
/** The daemon's per-process token the fixture's job API puts in lock holders. */
export const TEST_PROCESS_TOKEN = '0123456789ab';

export type StoreKind = 'memory' | 'fs';
export const STORE_KINDS: readonly StoreKind[] = ['memory', 'fs'];

export function makeSettings(overrides: Partial<ResolvedJobApi> = {}): ResolvedJobApi {
  return {
    enabled: true,
    listen: null,
    allowNonLoopbackBind: false,
    maxValueBytes: 1_048_576,
    maxArtifactBytes: 67_108_864,
    lockTtlMs: 30_000,
    ...overrides,
  };
}

/** The fixture's clock: FakeClock's nextTimer() lets a test wait for the server to arm a timer. */
export class WatchedClock extends FakeClock {}

type StoreMethod = keyof StateStore & string;

/**
 * The store behind a proxy that reports each call as it starts and as it settles, so a test can
 * wait for "the renewal reached the store" instead of sleeping.
 */
export class ObservedStore {
  readonly store: StateStore;
  readonly calls: StoreMethod[] = [];
  #started = new Map<string, Deferred<void>[]>();
  #settled = new Map<string, Deferred<void>[]>();
  /** Settled calls per method so far, and waiters for a count to be reached. */
  #settledCounts = new Map<string, number>();
  #countWaiters: { method: string; count: number; waiter: Deferred<void> }[] = [];

  constructor(inner: StateStore) {
    this.store = new Proxy(inner, {
      get: (target, property, receiver) => {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== 'function' || typeof property !== 'string') return value;
        return (...args: unknown[]) => {
          this.calls.push(property as StoreMethod);
          this.#notify(this.#started, property);
          const result = (value as (...a: unknown[]) => unknown).apply(target, args);
          if (result instanceof Promise) {
            const onSettled = (): void => {
              this.#countSettled(property);
              this.#notify(this.#settled, property);
            };
            void result.then(onSettled, onSettled);
          }
          return result;
        };
      },
    });
  }

  /** Resolves when the next call of `method` starts. */
  started(method: StoreMethod): Promise<void> {
    return this.#wait(this.#started, method);
  }

  /** Resolves when the next call of `method` settles. */
  settled(method: StoreMethod): Promise<void> {
    return this.#wait(this.#settled, method);
  }

  /**
   * Resolves once `times` more calls of `method` have settled, counted from now (for calls that
   * start together, where waiting for "the next" one twice could miss the second).
   */
  settledTimes(method: StoreMethod, times: number): Promise<void> {
    const waiter = createDeferred();
    const count = (this.#settledCounts.get(method) ?? 0) + times;
    this.#countWaiters.push({ method, count, waiter });
    return waiter.promise;
  }

  #countSettled(method: string): void {
    const count = (this.#settledCounts.get(method) ?? 0) + 1;
    this.#settledCounts.set(method, count);
    this.#countWaiters = this.#countWaiters.filter((entry) => {
      if (entry.method !== method || entry.count > count) return true;
      entry.waiter.resolve();
      return false;
    });
  }

  #wait(table: Map<string, Deferred<void>[]>, method: string): Promise<void> {
    const waiter = createDeferred();
    table.set(method, [...(table.get(method) ?? []), waiter]);
    return waiter.promise;
  }

  #notify(table: Map<string, Deferred<void>[]>, method: string): void {
    const waiters = table.get(method);
    table.delete(method);
    for (const waiter of waiters ?? []) waiter.resolve();
  }
}

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly bytes: Uint8Array;
  /** The body parsed as JSON (throws when it is not); loosely typed, like inject()'s json(). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert on its shape
  json(): any;
}

export interface RequestOptions {
  readonly method?: string;
  /** Overrides the run's token; null = no Authorization header. */
  readonly authorization?: string | null;
  readonly body?: string | Uint8Array;
}

export interface TestRun {
  readonly runId: string;
  readonly context: RunContext;
  readonly env: Readonly<Record<string, string>>;
  /** What runEnvironment() returned (undefined once the API is closed). */
  readonly environment: RunEnvironment | undefined;
  readonly token: string;
  get(route: string, query?: Record<string, string>): Promise<Reply>;
  /** POST a JSON body (objects are encoded; strings are sent verbatim). */
  post(route: string, body: unknown): Promise<Reply>;
  request(route: string, options?: RequestOptions): Promise<Reply>;
  end(): void;
}

export interface FixtureOptions {
  readonly settings?: Partial<ResolvedJobApi>;
  readonly env?: NodeJS.ProcessEnv;
  /** Default: already open. */
  readonly storeOpened?: Promise<boolean>;
  /** Replace the store (after it is wrapped by nothing: the fixture observes what it is given). */
  readonly store?: StateStore;
  readonly limits?: Partial<JobApiLimits>;
  /** Where the API makes its private upload directory. */
  readonly tempDir?: string;
  readonly connectionLimits?: ConnectionLimits;
}

export interface ApiFixture {
  readonly kind: StoreKind;
  /** The FsStateStore's directory (null for the memory store). */
  readonly dir: string | null;
  readonly clock: WatchedClock;
  readonly inner: StateStore;
  readonly observed: ObservedStore;
  readonly api: JobApi;
  readonly logger: RecordingLogger;
  readonly startRun: (job?: MakeJobOverrides, run?: Partial<Omit<RunContext, 'job'>>) => TestRun;
  readonly close: () => Promise<void>;
}

export async function startFixture(
  kind: StoreKind,
  options: FixtureOptions = {},
): Promise<ApiFixture> {
  const clock = new WatchedClock(T0);
  const logger = recordingLogger();
  let dir: string | null = null;
  let inner: StateStore;
  if (options.store !== undefined) {
    inner = options.store;
  } else if (kind === 'fs') {
    dir = await mkdtemp(path.join(tmpdir(), 'yacron2-jobapi-'));
    inner = new FsStateStore(
      { path: dir, topology: 'single-node' },
      { clock, logger: silentLogger() },
    );
  } else {
    inner = new MemoryStateStore({ clock });
  }
  if (options.store === undefined) await inner.open();
  const observed = new ObservedStore(inner);
  const api = await startJobApi(
    {
      clock,
      logger,
      host: 'test-host',
      processToken: TEST_PROCESS_TOKEN,
      store: observed.store,
      storeOpened: options.storeOpened ?? Promise.resolve(true),
      env: options.env ?? {},
      ...(options.limits === undefined ? {} : { limits: options.limits }),
      ...(options.tempDir === undefined ? {} : { tempDir: options.tempDir }),
      ...(options.connectionLimits === undefined
        ? {}
        : { connectionLimits: options.connectionLimits }),
    },
    makeSettings(options.settings),
  );
  return {
    kind,
    dir,
    clock,
    inner,
    observed,
    api,
    logger,
    startRun: (job = {}, run = {}) => {
      const context: RunContext = {
        job: makeJob({ name: 'etl', ...job }),
        runId: run.runId ?? randomBytes(16).toString('hex'),
        trigger: run.trigger ?? 'schedule',
        attempt: run.attempt ?? 0,
        scheduledAtMs: run.scheduledAtMs === undefined ? T0 : run.scheduledAtMs,
      };
      return testRun(api, context, api.runEnvironment(context));
    },
    close: async () => {
      await api.close();
      await inner.close();
      if (dir !== null) await rm(dir, { recursive: true, force: true });
    },
  };
}

function testRun(
  api: JobApi,
  context: RunContext,
  environment: RunEnvironment | undefined,
): TestRun {
  const env = environment?.variables ?? {};
  const token = env['YACRON2_STATE_TOKEN'] ?? '';
  const run: TestRun = {
    runId: context.runId,
    context,
    env,
    environment,
    token,
    get: (route, query = {}) => {
      const search = new URLSearchParams(query).toString();
      return run.request(search === '' ? route : `${route}?${search}`);
    },
    post: (route, body) =>
      run.request(route, {
        method: 'POST',
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    request: (route, options = {}) => send(api.url, route, token, options),
    end: () => api.runEnded(context.runId),
  };
  return run;
}

export async function send(
  baseUrl: string,
  route: string,
  token: string,
  options: RequestOptions = {},
): Promise<Reply> {
  const headers: Record<string, string> = {};
  const authorization =
    options.authorization === undefined ? `Bearer ${token}` : options.authorization;
  if (authorization !== null) headers['authorization'] = authorization;
  const response = await fetch(`${baseUrl}${route}`, {
    method: options.method ?? 'GET',
    headers,
    ...(options.body === undefined ? {} : { body: options.body }),
  });
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = Buffer.from(bytes).toString('utf8');
  return {
    status: response.status,
    headers: response.headers,
    text,
    bytes,
    // eslint-disable-next-line @typescript-eslint/no-unsafe-return -- see Reply.json
    json: () => JSON.parse(text),
  };
}

/** Runs `body` once per store kind, each with a fresh fixture closed afterwards. */
export async function withFixture(
  kind: StoreKind,
  body: (fixture: ApiFixture) => Promise<void>,
  options: FixtureOptions = {},
): Promise<void> {
  const fixture = await startFixture(kind, options);
  try {
    await body(fixture);
  } finally {
    await fixture.close();
  }
}
