// The web controller: owns the output buffers and job-list cache for the daemon's lifetime, and
// reconciles the listeners with the `web` section on start and every reload (docs/http-api.md "The
// web section"): a changed or removed block stops the servers, a present block with listeners
// starts them. Each listen URL gets its own fastify instance, bound independently: one failing to
// bind is a warning and the rest still serve. A unix socket is created with socketMode's group and
// other bits already withheld (no window before the chmod), and a socket file is only replaced when
// nothing answers on it. Never throws for configuration or bind problems.
// Must not: unlink a socket a live process listens on.
import { chmod, lstat, unlink } from 'node:fs/promises';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { describeError, readPackageVersion } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { ResolvedWeb, WebListener } from '../config/index.js';
import { buildHttpApp, type HttpSources } from './app.js';
import { JobListCache } from './job-list-cache.js';
import { OutputTracker } from './output-tracker.js';
import { DEFAULT_STREAM_LIMITS } from './sse-stream.js';
import { StreamPermits } from './stream-permits.js';
export interface WebServerDeps extends HttpSources {
  /** Default: the package's version. */
  readonly version?: string;
  /** Test seam for the unix-socket rule (default process.platform). */
  readonly platform?: NodeJS.Platform;
}

interface BoundServer {
  readonly app: FastifyInstance;
  /** `http://127.0.0.1:8080` (the bound port) or `unix:///run/yacron2.sock`. */
  readonly address: string;
}

interface Running {
  readonly digest: string;
  readonly servers: readonly BoundServer[];
}

export class WebServer implements AsyncDisposable {
  readonly #deps: WebServerDeps;
  readonly #version: string;
  #outputs: OutputTracker | null = null;
  /** Stream permits outlive the servers: one budget across listeners and restarts. */
  readonly #streamPermits: StreamPermits;
  #jobList: JobListCache | null = null;
  #running: Running | null = null;
  #queue: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(deps: WebServerDeps) {
    this.#deps = deps;
    this.#version = deps.version ?? readPackageVersion();
    this.#streamPermits = new StreamPermits(deps.streamLimits ?? DEFAULT_STREAM_LIMITS);
  }

  /** Bound addresses of the running servers (for logs and tests). */
  get addresses(): string[] {
    return this.#running?.servers.map((server) => server.address) ?? [];
  }

  /** Reconcile with the configuration's `web` block (null/undefined = none). Serialised. */
  apply(web: ResolvedWeb | null | undefined): Promise<void> {
    const next = this.#queue.then(() => this.#reconcile(web ?? null));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  /** Stop the servers and drop the buffers (daemon shutdown: after the jobs finished). */
  close(): Promise<void> {
    const next = this.#queue.then(async () => {
      this.#closed = true;
      await this.#stop();
      this.#jobList?.[Symbol.dispose]();
      this.#outputs?.[Symbol.dispose]();
      this.#jobList = null;
      this.#outputs = null;
    });
    this.#queue = next.catch(() => undefined);
    return next;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #reconcile(web: ResolvedWeb | null): Promise<void> {
    if (this.#closed) return;
    if (this.#running && (web === null || web.digest !== this.#running.digest)) {
      await this.#stop();
    }
    if (web === null || this.#running) return;
    if (web.error !== null) {
      this.#deps.logger.error(
        `Error in the web configuration, so not starting the web API: ${web.error}`,
      );
      return;
    }
    if (web.listen.length === 0) return;
    this.#running = { digest: web.digest, servers: await this.#start(web) };
  }

  async #start(web: ResolvedWeb): Promise<BoundServer[]> {
    const deps = this.#deps;
    this.#outputs ??= new OutputTracker(deps.view.events);
    this.#jobList ??= new JobListCache(deps.view, deps.clock, deps.resources, deps.cluster);
    const servers: BoundServer[] = [];
    for (const listener of web.listen) {
      const server = await this.#bind(web, listener);
      if (server) servers.push(server);
    }
    return servers;
  }

  async #bind(web: ResolvedWeb, listener: WebListener): Promise<BoundServer | null> {
    const { logger } = this.#deps;
    if (listener.kind === 'ignored') {
      logger.warn(`Ignoring web listen url ${listener.url}: ${listener.reason}`);
      return null;
    }
    if (listener.kind === 'unix' && (this.#deps.platform ?? process.platform) === 'win32') {
      logger.warn(
        `Ignoring web listen url ${listener.url}: unix-socket listeners are not supported on this platform`,
      );
      return null;
    }
    const outputs = this.#outputs;
    const jobList = this.#jobList;
    if (outputs === null || jobList === null) return null;
    const { version: _version, platform: _platform, ...sources } = this.#deps;
    const app = await buildHttpApp(
      { ...sources, version: this.#version, outputs, jobList, streamPermits: this.#streamPermits },
      web,
      listener,
    );
    let address: string;
    try {
      if (listener.kind === 'tcp') {
        await app.listen({ host: listener.host, port: listener.port });
        address = tcpAddress(app, listener);
      } else {
        await removeStaleSocket(listener.path);
        // The app is ready (buildHttpApp); its server is bound directly so that the bind itself
        // runs under the umask (fastify's listen() binds after an await). close() still closes it.
        await listenOnUnixSocket(app.server, listener.path, parseSocketMode(web.socketMode));
        address = `unix://${listener.path}`;
      }
    } catch (error) {
      logger.warn(`web: could not listen on ${listener.url}: ${describeError(error)}`);
      await app.close().catch(() => undefined);
      return null;
    }
    if (listener.kind === 'unix' && web.socketMode !== null) {
      await applySocketMode(logger, web.socketMode, listener.path);
    }
    logger.info(`web: started listening on ${address}`);
    if (web.ui && listener.kind === 'tcp') logger.info(`web: dashboard at ${address}/`);
    if (listener.kind === 'tcp' && web.authToken === null) {
      logger.warn(
        `web: ${address} has no authToken: anything that can connect to it can start and cancel jobs (set web.authToken)`,
      );
    }
    return { app, address };
  }

  async #stop(): Promise<void> {
    const running = this.#running;
    this.#running = null;
    if (!running) return;
    await Promise.all(
      running.servers.map(async (server) => {
        try {
          await server.app.close();
          this.#deps.logger.info(`web: stopped listening on ${server.address}`);
        } catch (error) {
          this.#deps.logger.warn(
            `web: could not stop listening on ${server.address}: ${describeError(error)}`,
          );
        }
      }),
    );
  }
}

function tcpAddress(app: FastifyInstance, listener: { host: string; port: number }): string {
  const bound = app.server.address();
  const port = typeof bound === 'object' && bound !== null ? bound.port : listener.port;
  const host = listener.host.includes(':') ? `[${listener.host}]` : listener.host;
  return `http://${host}:${port}`;
}

/**
 * A socket file left by a previous run would make the bind fail: it is removed when nothing
 * answers on it (ECONNREFUSED). A live listener's socket, and any other kind of file, is kept;
 * the bind then fails with EADDRINUSE and is logged.
 */
async function removeStaleSocket(path: string): Promise<void> {
  try {
    if (!(await lstat(path)).isSocket()) return;
    if ((await probeSocket(path)) === 'refused') await unlink(path);
  } catch {
    // Missing (the normal case) or unreadable: the bind reports the real problem.
  }
}

/** Connect to a unix socket once: a connect or a refusal is immediate, no timer is needed. */
function probeSocket(path: string): Promise<'live' | 'refused' | 'unknown'> {
  return new Promise((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve('live');
    });
    probe.once('error', (error: NodeJS.ErrnoException) => {
      resolve(error.code === 'ECONNREFUSED' ? 'refused' : 'unknown');
    });
  });
}

/** An octal socketMode (`0660`), or null when unset or not octal (applySocketMode warns). */
function parseSocketMode(mode: string | null): number | null {
  return mode !== null && /^[0-7]{1,4}$/.test(mode) ? Number.parseInt(mode, 8) & 0o777 : null;
}

/**
 * Bind `server` to the unix socket `path` with the group and other bits `mode` withholds masked
 * from the start: the bind is synchronous inside listen(), so the umask covers exactly it. Owner
 * bits are never masked (the umask is process-wide: a directory the store creates meanwhile must
 * keep its x bit); the chmod that follows sets the exact mode.
 */
export function listenOnUnixSocket(
  server: Server,
  path: string,
  mode: number | null,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => {
      server.off('listening', onListening);
      reject(error);
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    const previous = mode === null ? null : process.umask(0o077 & ~mode);
    try {
      server.listen(path);
    } finally {
      if (previous !== null) process.umask(previous);
    }
  });
}

async function applySocketMode(logger: Logger, mode: string, path: string): Promise<void> {
  try {
    if (!/^[0-7]{1,4}$/.test(mode)) throw new Error('not an octal mode such as 0660');
    await chmod(path, Number.parseInt(mode, 8));
  } catch (error) {
    logger.warn(`web: could not set socketMode ${mode} on ${path}: ${describeError(error)}`);
  }
}
