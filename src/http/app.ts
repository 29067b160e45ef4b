// One fastify instance of the control API (docs/http-api.md), for one listener: hardened options
// (small bodies, no body parsing, bounded params, bounded connections:
// common/connection-guard.ts), the Host and cross-site checks (request-origin.ts) then bearer
// auth before routing (so an unknown path answers 401 before 404), 405 for a known path with the
// wrong method, and errors without stack traces.
// Routes live in routes-api.ts and routes-streams.ts; binding lives in web-server.ts.
import type { Duplex } from 'node:stream';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import {
  guardConnections,
  serverTimeouts,
  type Clock,
  type ConnectionLimits,
} from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { WebListener } from '../config/index.js';
import { createAuthPolicy, pathOf } from './auth.js';
import type { JobListCache } from './job-list-cache.js';
import type { OutputTracker } from './output-tracker.js';
import { sendError } from './responses.js';
import { createOriginPolicy } from './request-origin.js';
import { registerApiRoutes } from './routes-api.js';
import { registerStreamRoutes } from './routes-streams.js';
import { DEFAULT_STREAM_LIMITS, type SseStream } from './sse-stream.js';
import { StreamPermits } from './stream-permits.js';
import { registerNodeRoutes } from './routes-node.js';
import { registerResourceRoutes } from './routes-resources.js';
import { registerStateRoutes } from './routes-state.js';
import { registerDagRoutes } from './routes-dags.js';
import { registerOutputRoutes } from './routes-output.js';
import type {
  ClusterApiView,
  DagSource,
  DaemonControl,
  DaemonView,
  JobSetInfo,
  NodeView,
  RenderMetrics,
  ResourcesView,
  StateInspectorSource,
  StreamLimits,
  WebSettings,
} from './types.js';

/** Request bodies are never read by the control API; anything bigger than this is refused. */
export const BODY_LIMIT_BYTES = 64 * 1024;
/** Longest path parameter (job names); longer ones are a 400. */
export const MAX_PARAM_LENGTH = 4096;
/** Time allowed to receive a whole request (headers and body). */
export const REQUEST_TIMEOUT_MS = 30_000;

/**
 * The sockets of one listener (docs/http-api.md "Connection limits"): more than the event streams
 * (256 over all listeners, 16 per client) plus a browser's six connections per tab need, far
 * below the descriptors the daemon's jobs need. A reverse proxy is one client address.
 */
export const WEB_CONNECTION_LIMITS: ConnectionLimits = Object.freeze({
  maxConnections: 512,
  maxConnectionsPerClient: 64,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: REQUEST_TIMEOUT_MS,
});

/** What the daemon hands the control API: the same for one app and for the web server. */
export interface HttpSources {
  readonly view: DaemonView;
  readonly control: DaemonControl;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly jobSet: () => JobSetInfo;
  /** null = no metrics renderer: /metrics is not served. */
  readonly renderMetrics: RenderMetrics | null;
  readonly streamLimits?: StreamLimits;
  /** Absent: GET /jobs/{name}/resources is not served and jobs carry no running_resources. */
  readonly resources?: ResourcesView;
  /** Absent: GET /node and /node/history are not served. */
  readonly node?: NodeView;
  /** Absent: the /state routes are not served. */
  readonly stateInspector?: StateInspectorSource;
  /** GET /cluster, /fleet and the jobs' cluster keys (absent: no cluster). */
  readonly cluster?: ClusterApiView;
  /** The DAG routes' engine (absent, or answering null: no DAGs). */
  readonly dags?: DagSource;
  /** Each listener's socket limits (tests); WEB_CONNECTION_LIMITS otherwise. */
  readonly connectionLimits?: ConnectionLimits;
}

export interface HttpAppDeps extends HttpSources {
  readonly version: string;
  /** Shared across servers and restarts (web-server.ts owns them). */
  readonly outputs: OutputTracker;
  readonly jobList: JobListCache;
  /** Shared by every listener of a web controller; an app of its own makes its own. */
  readonly streamPermits?: StreamPermits;
}

/** What the routes share: deps, settings and the set of open SSE streams. */
export interface RouteContext extends HttpAppDeps {
  readonly settings: WebSettings;
  readonly streamLimits: StreamLimits;
  readonly streamPermits: StreamPermits;
  readonly streams: Set<SseStream>;
}

/** A route registered on the app, for the 405 answer. */
interface KnownRoute {
  readonly pattern: RegExp;
  readonly methods: Set<string>;
}

function routePattern(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) =>
      segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  return new RegExp(`^${source}$`);
}

/** A header as one string (a repeated header is not what a browser sends: the first counts). */
function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * No route declares a schema, so fastify's default compilers (ajv and fast-json-stringify, with
 * three copies of ajv's code generator) are never used; without these stand-ins fastify loads them
 * anyway, about 2.4 MB of live heap in a fleet node (docs/performance.md "Code loaded on demand").
 * A route that ever declares a schema fails to register, loudly.
 */
function refuseSchemas(): never {
  throw new Error('the control API declares no schemas (see NO_SCHEMA_COMPILERS)');
}
const NO_SCHEMA_COMPILERS = { buildValidator: refuseSchemas, buildSerializer: refuseSchemas };

export async function buildHttpApp(
  deps: HttpAppDeps,
  settings: WebSettings,
  listener: WebListener,
): Promise<FastifyInstance> {
  const connectionLimits = deps.connectionLimits ?? WEB_CONNECTION_LIMITS;
  const app = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT_BYTES,
    http: serverTimeouts(connectionLimits),
    requestTimeout: connectionLimits.requestTimeoutMs,
    return503OnClosing: true,
    exposeHeadRoutes: true,
    schemaController: { compilersFactory: NO_SCHEMA_COMPILERS },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Undecodable URLs (`%FF`) and over-long parameters: a bare 400, like other client errors.
    frameworkErrors: (_error, _request, reply) => {
      sendError(reply, 400);
    },
  });

  const streamLimits = deps.streamLimits ?? DEFAULT_STREAM_LIMITS;
  const context: RouteContext = {
    ...deps,
    settings,
    streamLimits,
    streamPermits: deps.streamPermits ?? new StreamPermits(streamLimits),
    streams: new Set(),
  };

  // Bodies are accepted (bounded by bodyLimit) as raw bytes whatever their content type, so no
  // content type can make a request fail to parse; only the DAG POSTs read them (as JSON).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => {
    done(null, body);
  });

  const auth = createAuthPolicy({
    token: settings.authToken,
    uiPublic: settings.ui,
    metricsPublic: settings.metrics.enabled && settings.metrics.public,
  });
  const origins = createOriginPolicy(listener, settings.allowedHosts);
  let hostRefusalLogged = false;
  app.addHook('onRequest', (request, reply, done) => {
    const { headers } = request;
    const verdict = origins.check(
      request.method,
      headerValue(headers.host),
      headerValue(headers.origin),
      headerValue(headers['sec-fetch-site']),
    );
    switch (verdict.kind) {
      case 'allowed':
        break;
      case 'host-refused':
        if (!hostRefusalLogged) {
          hostRefusalLogged = true;
          deps.logger.warn(
            `web: refused a request for Host ${JSON.stringify(verdict.host.slice(0, 256))} on ${listener.url} (DNS rebinding protection); if that is a name this listener is reached by, add it to web.allowedHosts. Later refusals are not logged`,
          );
        }
        sendError(reply, 403);
        return;
      case 'cross-site':
        sendError(reply, 403);
        return;
    }
    if (auth.allows(request.method, request.url, request.headers.authorization)) {
      done();
      return;
    }
    sendError(reply, 401);
  });

  const known: KnownRoute[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const existing = known.find((entry) => entry.pattern.source === routePattern(route.url).source);
    if (existing) for (const method of methods) existing.methods.add(method);
    else known.push({ pattern: routePattern(route.url), methods: new Set(methods) });
  });

  app.setNotFoundHandler((request, reply) => {
    const path = pathOf(request.url);
    const allowed = known.find((entry) => entry.pattern.test(path))?.methods;
    if (allowed && !allowed.has(request.method)) {
      reply.header('Allow', [...allowed].sort().join(', '));
      return sendError(reply, 405, `${request.method} is not allowed on ${path}`);
    }
    return sendError(reply, 404);
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status =
      typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 600
        ? error.statusCode
        : 500;
    if (status >= 500) {
      deps.logger.error(
        { err: error },
        `web: ${request.method} ${pathOf(request.url)} failed: ${error.message}`,
      );
      return sendError(reply, status, 'the request could not be handled');
    }
    // Fastify's own client-error messages (body too large, bad content length) are safe to show.
    return sendError(reply, status, error.message);
  });

  // SSE streams never end on their own; end them so close() does not wait for the clients.
  app.addHook('preClose', (done) => {
    for (const stream of [...context.streams]) stream.end();
    done();
  });

  guardConnections(app.server, connectionLimits, deps.logger, `web ${listener.url}`);

  // Node closes CONNECT requests' sockets without an answer unless someone listens.
  app.server.on('connect', (_request: unknown, socket: Duplex) => {
    socket.end('HTTP/1.1 405 Method Not Allowed\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });

  registerApiRoutes(app, context);
  registerOutputRoutes(app, context);
  registerStreamRoutes(app, context);
  registerResourceRoutes(app, context);
  registerNodeRoutes(app, context);
  registerStateRoutes(app, context);
  registerDagRoutes(app, context);
  await app.ready();
  return app;
}
