// Test support (no tests here): a control API over a real scheduler driven by a FakeClock and a
// FakeRunner, built with buildHttpApp for `inject()`, plus a ResolvedWeb with the spec defaults.
import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { FakeClock, type ConnectionLimits } from '../common/index.js';
import { silentLogger, type Logger } from '../logging/index.js';
import type { ResolvedJob, ResolvedWeb, WebListener } from '../config/index.js';
import { createScheduler, type Scheduler } from '../scheduler/index.js';
import { FakeRunner } from '../scheduler/testing.js';
import { makeConfig } from '../config/testing.js';
import { buildHttpApp } from './app.js';
import { JobListCache } from './job-list-cache.js';
import { OutputTracker } from './output-tracker.js';
import type {
  ClusterApiView,
  DagSource,
  DaemonView,
  NodeView,
  RenderMetrics,
  ResourcesView,
  StateInspectorSource,
  StreamLimits,
} from './types.js';
import { viewWithTrends } from './view-with-trends.js';

export const T0 = Date.UTC(2026, 0, 1); // a Thursday, midnight UTC

export function makeWeb(overrides: Partial<ResolvedWeb> = {}): ResolvedWeb {
  return {
    listen: [],
    headers: {},
    authToken: null,
    authTokenEnvVar: null,
    error: null,
    socketMode: null,
    allowedHosts: [],
    ui: true,
    metrics: {
      enabled: true,
      public: false,
      durationBuckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600],
    },
    nodeHistory: { enabled: true, intervalMs: 5000, points: 720 },
    digest: 'test',
    ...overrides,
  };
}

/** A renderer that echoes what it was asked, so tests see the delegation. */
export const echoMetrics: RenderMetrics = (accept) =>
  Promise.resolve({
    contentType: accept?.includes('application/openmetrics-text')
      ? 'application/openmetrics-text; version=1.0.0; charset=utf-8'
      : 'text/plain; version=0.0.4; charset=utf-8',
    body: `# accept ${accept ?? '(none)'}\n`,
  });

export interface ApiFixture {
  readonly clock: FakeClock;
  readonly runner: FakeRunner;
  readonly scheduler: Scheduler;
  readonly app: FastifyInstance;
  readonly outputs: OutputTracker;
  readonly jobList: JobListCache;
  close(): Promise<void>;
}

export interface ApiFixtureOptions {
  readonly web?: Partial<ResolvedWeb>;
  readonly renderMetrics?: RenderMetrics | null;
  readonly streamLimits?: StreamLimits;
  readonly startMs?: number;
  /** Do not call scheduler.start(). */
  readonly idle?: boolean;
  /** The listener the app serves (its Host check); default a TCP one on 127.0.0.1. */
  readonly listener?: WebListener;
  /** The daemon's durable trends (DaemonView.getTrends); absent = the in-memory fallback. */
  readonly getTrends?: DaemonView['getTrends'];
  /** The archived-output reader (DaemonView.archives); absent = no `state` section. */
  readonly archives?: DaemonView['archives'];
  readonly resources?: ResourcesView;
  readonly node?: NodeView;
  readonly stateInspector?: StateInspectorSource;
  /** The cluster views (absent: no cluster). */
  readonly cluster?: ClusterApiView;
  /** The DAG engine (absent: no DAGs). */
  readonly dags?: DagSource;
  readonly connectionLimits?: ConnectionLimits;
  /** Default: a silent one. */
  readonly logger?: Logger;
}

/** The scheduler as the DaemonView, plus getTrends and archives when given. */
function viewOf(
  scheduler: Scheduler,
  getTrends: DaemonView['getTrends'],
  archives: DaemonView['archives'],
): DaemonView {
  if (getTrends === undefined && archives === undefined) return scheduler;
  return viewWithTrends(scheduler, getTrends ?? (() => undefined), archives);
}

export async function createApiFixture(
  jobs: readonly ResolvedJob[],
  options: ApiFixtureOptions = {},
): Promise<ApiFixture> {
  const clock = new FakeClock(options.startMs ?? T0);
  const runner = new FakeRunner({ clock });
  const config = makeConfig(jobs);
  const scheduler = createScheduler({ clock, logger: silentLogger(), runner }, config);
  const outputs = new OutputTracker(scheduler.events);
  const jobList = new JobListCache(scheduler, clock, options.resources, options.cluster);
  const app = await buildHttpApp(
    {
      view: viewOf(scheduler, options.getTrends, options.archives),
      control: scheduler,
      clock,
      logger: options.logger ?? silentLogger(),
      version: '1.2.3',
      jobSet: () => ({ jobSetId: config.jobSetId, jobs: jobs.length }),
      renderMetrics: options.renderMetrics === undefined ? echoMetrics : options.renderMetrics,
      outputs,
      jobList,
      ...(options.streamLimits ? { streamLimits: options.streamLimits } : {}),
      ...(options.resources ? { resources: options.resources } : {}),
      ...(options.node ? { node: options.node } : {}),
      ...(options.stateInspector ? { stateInspector: options.stateInspector } : {}),
      ...(options.cluster ? { cluster: options.cluster } : {}),
      ...(options.dags ? { dags: options.dags } : {}),
      ...(options.connectionLimits ? { connectionLimits: options.connectionLimits } : {}),
    },
    makeWeb(options.web),
    options.listener ?? { kind: 'tcp', url: 'http://127.0.0.1:0', host: '127.0.0.1', port: 0 },
  );
  if (!options.idle) scheduler.start();
  return {
    clock,
    runner,
    scheduler,
    app,
    outputs,
    jobList,
    async close() {
      await app.close();
      let settled = false;
      const done = scheduler.shutdown(0).then(() => {
        settled = true;
      });
      for (let step = 0; step < 1000 && !settled; step++) await clock.advance(1000);
      await done;
      jobList[Symbol.dispose]();
      outputs[Symbol.dispose]();
    },
  };
}

/** Bind the app on a random loopback port; returns its base URL. */
export async function listenOnLoopback(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return `http://127.0.0.1:${address.port}`;
}

export interface OpenStream {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** Everything received so far. */
  text(): string;
  /** Resolves once the received text contains `needle` (rejects after timeoutMs). */
  waitFor(needle: string, timeoutMs?: number): Promise<string>;
  /** Resolves with the whole body once the server ends the response. */
  ended(): Promise<string>;
  close(): void;
}

/** A streaming GET (SSE) read as it arrives, optionally from a given source address. */
export function openStream(
  url: string,
  headers: Record<string, string> = {},
  localAddress?: string,
): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const options = localAddress === undefined ? { headers } : { headers, localAddress };
    const request = httpGet(url, options, (response) => {
      let received = '';
      const waiters = new Set<() => void>();
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        received += chunk;
        for (const waiter of [...waiters]) waiter();
      });
      const ended = new Promise<string>((resolveEnd) => {
        response.on('end', () => resolveEnd(received));
        response.on('close', () => resolveEnd(received));
      });
      resolve({
        status: response.statusCode ?? 0,
        headers: response.headers,
        text: () => received,
        waitFor(needle, timeoutMs = 5_000) {
          return new Promise((resolveWait, rejectWait) => {
            const check = (): void => {
              if (!received.includes(needle)) return;
              waiters.delete(check);
              clearTimeout(timer);
              resolveWait(received);
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              rejectWait(
                new Error(
                  `timed out waiting for ${JSON.stringify(needle)}; got ${JSON.stringify(received)}`,
                ),
              );
            }, timeoutMs);
            waiters.add(check);
            check();
          });
        },
        ended: () => ended,
        close: () => request.destroy(),
      });
    });
    request.on('error', reject);
  });
}
