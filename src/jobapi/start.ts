// startJobApi: binds the loopback endpoint and wires the run registry, the store gate, the lock
// holds and the routes together; the returned JobApi is what the daemon talks to (mint a run's
// variables before its spawn, end the run after it). Must not: log tokens or secret values.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TaskSet, YacronError, describeError, formatIsoUtc } from '../common/index.js';
import type { ResolvedJobApi } from '../config/index.js';
import type { RunContext } from '../scheduler/index.js';
import { bindTarget, formatUrl, transportCapBytes, type BindTarget } from './bind-address.js';
import { createRequestHandler } from './http-server.js';
import { LockHolds } from './lock-holds.js';
import { buildRoutes } from './routes.js';
import { RunRegistry } from './run-registry.js';
import { stageSecrets } from './secret-staging.js';
import { StoreGate } from './store-gate.js';
import type { JobApi, JobApiDeps } from './types.js';

/** Bind the loopback endpoint of `settings` and serve the /v1/ routes over deps.store. */
export async function startJobApi(deps: JobApiDeps, settings: ResolvedJobApi): Promise<JobApi> {
  const target = bindTarget(settings);
  if ('refused' in target) throw new YacronError('YC_ERR_CONFIG_INVALID', target.refused);
  const { clock, logger, host } = deps;
  const tasks = new TaskSet((error) =>
    logger.error(`job API: background work failed: ${describeError(error)}`),
  );
  const registry = new RunRegistry();
  const gate = new StoreGate(deps.store, deps.storeOpened, clock);
  const holds = new LockHolds({
    gate,
    clock,
    logger,
    tasks,
    host,
    processToken: deps.processToken,
  });
  const routes = buildRoutes({ gate, holds, clock, logger, host, settings });
  const server = createServer(
    { noDelay: true },
    createRequestHandler({
      registry,
      routes,
      logger,
      transportCapBytes: transportCapBytes(settings),
    }),
  );
  await listen(server, target);
  const address = server.address() as AddressInfo;
  const url = formatUrl(address.address, address.port);
  logger.info({ url }, `job API: listening on ${url}`);
  return new RunningJobApi({ deps, url, server, registry, holds, tasks });
}

function listen(server: Server, target: BindTarget): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      reject(
        new YacronError(
          'YC_ERR_CONFIG_INVALID',
          `Cannot start the job API on ${formatUrl(target.host, target.port)}: ${error.code ?? describeError(error)}`,
          { cause: error },
        ),
      );
    };
    server.once('error', onError);
    server.listen(target.port, target.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

interface RunningParts {
  readonly deps: JobApiDeps;
  readonly url: string;
  readonly server: Server;
  readonly registry: RunRegistry;
  readonly holds: LockHolds;
  readonly tasks: TaskSet;
}

class RunningJobApi implements JobApi {
  readonly url: string;
  readonly #parts: RunningParts;
  #closing: Promise<void> | null = null;

  constructor(parts: RunningParts) {
    this.#parts = parts;
    this.url = parts.url;
  }

  runEnvironment(run: RunContext): Record<string, string> {
    // A closed endpoint injects nothing: a token it would hand out could never be used.
    if (this.#closing !== null) return {};
    const { deps, registry } = this.#parts;
    const live = registry.register(run, stageSecrets(run.job, deps.env, deps.logger));
    return {
      YACRON2_STATE_URL: this.url,
      YACRON2_STATE_TOKEN: live.token,
      YACRON2_RUN_ID: run.runId,
      YACRON2_JOB_NAME: run.job.name,
      YACRON2_ATTEMPT: String(run.attempt),
      YACRON2_SCHEDULED_AT: run.scheduledAtMs === null ? '' : formatIsoUtc(run.scheduledAtMs),
      YACRON2_HOST: deps.host,
    };
  }

  secretValues(runId: string): Promise<readonly string[]> {
    return this.#parts.registry.secretValues(runId);
  }

  runEnded(runId: string): void {
    this.#parts.registry.end(runId);
    this.#parts.holds.releaseRun(runId);
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const { server, registry, holds, tasks } = this.#parts;
    registry.endAll();
    holds.releaseAll();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Every token is revoked: whatever a connection would still ask gets a 401 at best.
    server.closeAllConnections();
    await tasks.close();
    await closed;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
