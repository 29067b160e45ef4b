// startJobApi: binds the loopback endpoint and wires the run registry, the store gate, the lock
// holds and the routes together; the returned JobApi is what the daemon talks to (mint a run's
// variables before its spawn, end the run after it). Must not: log tokens or secret values.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  TaskSet,
  YacronError,
  describeError,
  formatIsoUtc,
  guardConnections,
  serverTimeouts,
} from '../common/index.js';
import type { ResolvedJobApi } from '../config/index.js';
import type { RunContext, RunEnvironment } from '../scheduler/index.js';
import { KeyedMutex } from '../state/index.js';
import { bindTarget, formatUrl, type BindTarget } from './bind-address.js';
import { createRequestHandler } from './http-server.js';
import { LockHolds } from './lock-holds.js';
import { bodyCapsOf } from './request-body.js';
import {
  DEFAULT_JOB_API_LIMITS,
  JOB_API_CONNECTION_LIMITS,
  RequestLimits,
} from './request-limits.js';
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
  const limits = new RequestLimits({ ...DEFAULT_JOB_API_LIMITS, ...deps.limits }, clock);
  const payloadMutex = new KeyedMutex();
  const routes = buildRoutes({
    gate,
    holds,
    clock,
    logger,
    host,
    settings,
    limits: limits.limits,
    payloads: { run: (work) => payloadMutex.run('payload', work) },
  });
  // Uploads stream into a directory only this process can enter (mkdtemp makes it 0700).
  const uploadDir = await mkdtemp(join(deps.tempDir ?? tmpdir(), 'yacron2-job-api-'));
  const connectionLimits = deps.connectionLimits ?? JOB_API_CONNECTION_LIMITS;
  const server = createServer(
    { noDelay: true, ...serverTimeouts(connectionLimits) },
    createRequestHandler({
      registry,
      routes,
      logger,
      caps: bodyCapsOf(settings),
      limits,
      uploadDir,
    }),
  );
  guardConnections(server, connectionLimits, logger, 'job API');
  try {
    await listen(server, target);
  } catch (error) {
    await rm(uploadDir, { recursive: true, force: true });
    throw error;
  }
  const address = server.address() as AddressInfo;
  const url = formatUrl(address.address, address.port);
  logger.info({ url }, `job API: listening on ${url}`);
  return new RunningJobApi({ deps, url, server, registry, holds, tasks, limits, uploadDir });
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
  readonly limits: RequestLimits;
  readonly uploadDir: string;
}

class RunningJobApi implements JobApi {
  readonly url: string;
  readonly #parts: RunningParts;
  #closing: Promise<void> | null = null;

  constructor(parts: RunningParts) {
    this.#parts = parts;
    this.url = parts.url;
  }

  runEnvironment(run: RunContext): RunEnvironment | undefined {
    // A closed endpoint injects nothing: a token it would hand out could never be used.
    if (this.#closing !== null) return undefined;
    const { deps, registry } = this.#parts;
    const live = registry.register(run, stageSecrets(run.job, deps.env, deps.logger));
    return {
      variables: {
        YACRON2_STATE_URL: this.url,
        YACRON2_STATE_TOKEN: live.token,
        YACRON2_RUN_ID: run.runId,
        YACRON2_JOB_NAME: run.job.name,
        YACRON2_ATTEMPT: String(run.attempt),
        YACRON2_SCHEDULED_AT: run.scheduledAtMs === null ? '' : formatIsoUtc(run.scheduledAtMs),
        YACRON2_HOST: deps.host,
      },
      secretValues: [live.token],
      // Taken now: the copy is made before runEnded() empties the staged map.
      stagedSecretValues: run.job.secrets.length === 0 ? null : registry.secretValues(run.runId),
    };
  }

  secretValues(runId: string): Promise<readonly string[]> {
    return this.#parts.registry.secretValues(runId);
  }

  runEnded(runId: string): void {
    this.#parts.registry.end(runId);
    this.#parts.holds.releaseRun(runId);
    this.#parts.limits.forget(runId);
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const { server, registry, holds, tasks, limits, uploadDir } = this.#parts;
    registry.endAll();
    holds.releaseAll();
    limits.close();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Every token is revoked: whatever a connection would still ask gets a 401 at best.
    server.closeAllConnections();
    await tasks.close();
    await closed;
    await rm(uploadDir, { recursive: true, force: true });
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
