// The composition root: the one place that builds real I/O (system clock, child processes,
// stdout/stderr, signals) and wires the scheduler, the reporters and the reload loop.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Counter } from 'prom-client';
import {
  describeError,
  systemClock,
  TaskSet,
  type Clock,
  type Logger,
  type TimerHandle,
} from './common/index.js';
import { configSignature, loadConfig, type ResolvedConfig } from './config/index.js';
import {
  createMetrics,
  createStatsdPublisher,
  DEFAULT_DURATION_BUCKETS_SECONDS,
  type Metrics,
} from './metrics/index.js';
import { dispatchReport, type ReporterDeps } from './report/index.js';
import { createRunner } from './runner/index.js';
import { createScheduler, type Scheduler } from './scheduler/index.js';
import type { DaemonStateDeps, DaemonStateHandle } from './state/service.js';
import type { DaemonView, WebServer, WebServerDeps } from './http/index.js';
import type { DurableProcessState, DurableState } from './durable/index.js';
import type { JobApi } from './jobapi/index.js';

/** How often the configuration files are checked for changes (spec: about once a minute). */
export const RELOAD_INTERVAL_MS = 60_000;

export interface DaemonOptions {
  readonly config: ResolvedConfig;
  readonly logger: Logger;
  readonly shutdownGraceMs: number;
  readonly clock?: Clock;
  readonly env?: NodeJS.ProcessEnv;
  readonly stdout?: NodeJS.WritableStream;
  readonly stderr?: NodeJS.WritableStream;
  readonly reloadIntervalMs?: number;
}

export interface Daemon extends AsyncDisposable {
  readonly scheduler: Scheduler;
  /** Prometheus families; `metrics.render(accept)` is the GET /metrics response. */
  readonly metrics: Metrics;
  /** Check the config files now and apply a changed configuration. */
  reloadIfChanged(): Promise<void>;
  /** Graceful shutdown: stop firing, drain running jobs within the grace, flush reports. */
  stop(): Promise<void>;
}

export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const clock = options.clock ?? systemClock;
  const env = options.env ?? process.env;
  const { logger } = options;
  // Every child and reporter sees HOSTNAME (spec/jobs.md §3.2).
  env.HOSTNAME ??= hostname();

  const runner = createRunner({
    clock,
    logger,
    stdout: options.stdout ?? process.stdout,
    stderr: options.stderr ?? process.stderr,
    baseEnv: env,
  });
  let config = options.config;
  const scheduler = createScheduler({ clock, logger, runner }, config);
  const reports = new TaskSet((error) =>
    logger.error(`Problem running a reporter: ${describeError(error)}`),
  );
  const metrics = createMetrics({ clock, logger, config });
  // Reporter failures are logged by the dispatcher and counted here (not a reference family).
  const reportFailures = new Counter({
    name: 'yacron2_report_failures_total',
    help: 'Reports that could not be delivered, by job and reporter.',
    labelNames: ['job_name', 'reporter'] as const,
    registers: [metrics.registry],
  });
  const reporterDeps: ReporterDeps = {
    logger,
    clock,
    baseEnv: env,
    tasks: reports,
    onReporterFailed: (reporter, jobName) => reportFailures.inc({ job_name: jobName, reporter }),
  };
  metrics.onConfigReloaded(true, config);
  const statsd = createStatsdPublisher({ clock, logger });
  const unsubscribers = [
    metrics.subscribe(scheduler),
    statsd.subscribe(scheduler),
    scheduler.events.on('report:failed', (event) => dispatchReport(reporterDeps, 'failure', event)),
    scheduler.events.on('report:permanently-failed', (event) =>
      dispatchReport(reporterDeps, 'permanent-failure', event),
    ),
    scheduler.events.on('report:succeeded', (event) =>
      dispatchReport(reporterDeps, 'success', event),
    ),
  ];

  logJobSet(logger, config);
  let signature = await configSignature(config);
  // The store opens in the background: a slow or dead store never delays scheduling. The
  // durable collaborator is attached before the start-up pass (it decides @reboot boot markers).
  const host = env.HOSTNAME;
  // The daemon's per-process token (12 hex, the reference's `proc`): job-API lock holders carry it.
  const processToken = randomBytes(6).toString('hex');
  const stateDeps = { clock, logger, host, registry: metrics.registry };
  let durableState = await applyStateSection(undefined, config, stateDeps);
  const schedulerStartedAtMs = clock.now();
  let jobApi: JobApiHandle | undefined;
  const durableDeps: DurableWiringDeps = {
    clock,
    logger,
    host,
    env,
    scheduler,
    counters: {
      snapshot: () => metrics.snapshotCounters(),
      seed: (snapshot, names) => void metrics.seedCounters(snapshot, names),
    },
    process: undefined,
    schedulerStartedAtMs,
    secretValues: (runId) => jobApi?.api.secretValues(runId),
  };
  let durable = await applyDurable(undefined, undefined, durableState, config, durableDeps);
  warnStatelessOptions(logger, config);
  // The job API is bound before the first launch, so every run (@reboot ones too) gets its
  // YACRON2_STATE_* variables.
  jobApi = await applyJobApi(undefined, undefined, durableState, config, {
    clock,
    logger,
    host,
    processToken,
    env,
    scheduler,
  });
  scheduler.start();
  durable?.start();
  unsubscribers.push(
    scheduler.events.on('run:finished', (event) => jobApi?.api.runEnded(event.runId)),
  );
  const view = daemonView(scheduler, () => durable);
  const webDeps: WebServerDeps = {
    view,
    control: scheduler,
    clock,
    logger,
    jobSet: () => ({ jobSetId: config.jobSetId, jobs: config.jobs.length }),
    renderMetrics: (accept) => metrics.render(accept),
  };
  let web = await applyWebSection(undefined, config, webDeps, metrics);

  let reloadTimer: TimerHandle | undefined;
  let reloading: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;
  const reloadIntervalMs = options.reloadIntervalMs ?? RELOAD_INTERVAL_MS;

  async function reloadIfChanged(): Promise<void> {
    const current = await configSignature(config);
    if (current === signature || stopping) return;
    let next: ResolvedConfig;
    try {
      next = await loadConfig(config.configPath);
    } catch (error) {
      // The old configuration keeps running; the failed parse is retried at the next check
      // because the signature is only advanced on success.
      logger.error(`Error in configuration file(s), so not reloading: ${describeError(error)}`);
      metrics.onConfigReloaded(false);
      return;
    }
    const previousJobSetId = config.jobSetId;
    config = next;
    signature = await configSignature(next);
    scheduler.applyConfig(next);
    const previousState = durableState;
    durableState = await applyStateSection(durableState, next, stateDeps);
    durable = await applyDurable(durable, previousState, durableState, next, durableDeps);
    durable?.start();
    jobApi = await applyJobApi(jobApi, previousState, durableState, next, {
      clock,
      logger,
      host,
      processToken,
      env,
      scheduler,
    });
    warnStatelessOptions(logger, next);
    web = await applyWebSection(web, next, webDeps, metrics);
    metrics.onConfigReloaded(true, next);
    if (next.jobSetId !== previousJobSetId) logJobSet(logger, next);
  }

  function armReload(): void {
    reloadTimer = clock.setTimer(() => {
      reloading = reloadIfChanged()
        .catch((error: unknown) =>
          logger.error(`Cannot check the configuration for changes: ${describeError(error)}`),
        )
        .finally(() => {
          reloading = undefined;
          if (!stopping) armReload();
        });
    }, reloadIntervalMs);
  }
  armReload();

  async function stop(): Promise<void> {
    stopping ??= (async () => {
      reloadTimer?.cancel();
      await reloading;
      await scheduler.shutdown(options.shutdownGraceMs);
      await reports.close();
      await statsd.close();
      await jobApi?.api.close();
      // The final counter snapshot and every accepted durable write land before the store closes.
      await durable?.close();
      await durableState?.close();
      // The control API stops last, once the jobs have finished (http-api A.1).
      await web?.close();
      for (const unsubscribe of unsubscribers) unsubscribe();
    })();
    return stopping;
  }

  return { scheduler, metrics, reloadIfChanged, stop, [Symbol.asyncDispose]: stop };
}

/**
 * Run until SIGTERM or SIGINT, then shut down gracefully. The handlers are installed before
 * anything is started, so a signal during start-up drains the @reboot jobs it launched instead
 * of killing the daemon and orphaning them; later signals change nothing.
 */
export async function runDaemonUntilSignalled(options: DaemonOptions): Promise<void> {
  let onStopRequested: (() => void) | undefined;
  let stopRequested = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopRequested) return;
    stopRequested = true;
    options.logger.info(`Received ${signal}`);
    onStopRequested?.();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    const daemon = await startDaemon(options);
    if (!stopRequested) {
      await new Promise<void>((resolve) => {
        onStopRequested = resolve;
      });
    }
    await daemon.stop();
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}

interface DurableWiringDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly host: string;
  readonly env: NodeJS.ProcessEnv;
  readonly scheduler: Scheduler;
  readonly counters: {
    snapshot(): unknown;
    seed(snapshot: unknown, names: ReadonlySet<string>): void;
  };
  /** Created with the first durable object; survives state-section reloads. */
  process: DurableProcessState | undefined;
  readonly schedulerStartedAtMs: number;
  readonly secretValues: (runId: string) => Promise<readonly string[]> | undefined;
}

/**
 * The durable collaborator follows the state service: built (and attached to the scheduler) for
 * a new backend, closed with the old one, just updated when the backend stayed. The caller
 * start()s it; start() runs once per object.
 */
async function applyDurable(
  current: DurableState | undefined,
  previousHandle: DaemonStateHandle | undefined,
  handle: DaemonStateHandle | undefined,
  config: ResolvedConfig,
  deps: DurableWiringDeps,
): Promise<DurableState | undefined> {
  if (current !== undefined && handle === previousHandle) {
    current.updateConfig(config);
    return current;
  }
  if (current !== undefined) {
    deps.scheduler.attachDurable(null);
    // The old backend's write queue is already closed; the new backend keeps snapshotting.
    await current.close({ finalSnapshot: false });
  }
  if (handle === undefined || config.state === null) return undefined;
  const { attachDurableState, createDurableProcessState } = await import('./durable/index.js');
  deps.process ??= createDurableProcessState();
  return attachDurableState(
    { ...deps, process: deps.process },
    {
      store: handle.service.store,
      writes: handle.writes,
      opened: handle.service.opened,
      topology: handle.topology,
    },
    config.state,
    config,
  );
}

interface JobApiHandle {
  readonly api: JobApi;
  readonly settingsKey: string;
}

/**
 * The job-facing endpoint (http-api B): served whenever a store is configured and
 * `state.jobApi.enabled`; restarted when the store or its settings change. A failed bind is
 * logged and jobs run without the YACRON2_STATE_* variables.
 */
async function applyJobApi(
  current: JobApiHandle | undefined,
  previousHandle: DaemonStateHandle | undefined,
  handle: DaemonStateHandle | undefined,
  config: ResolvedConfig,
  deps: {
    clock: Clock;
    logger: Logger;
    host: string;
    processToken: string;
    env: NodeJS.ProcessEnv;
    scheduler: Scheduler;
  },
): Promise<JobApiHandle | undefined> {
  const settings = config.state?.jobApi.enabled ? config.state.jobApi : null;
  const settingsKey = JSON.stringify(settings);
  if (current !== undefined && handle === previousHandle && current.settingsKey === settingsKey) {
    return current;
  }
  // The replacement is bound first and swapped in, then the old one closes: no launch in between
  // goes without its YACRON2_STATE_* variables. A fixed listen port the old API still holds
  // cannot be bound twice: then the old one closes first and the bind is tried once more.
  let retired = current === undefined;
  const retire = async (): Promise<void> => {
    if (retired) return;
    retired = true;
    deps.scheduler.setRunEnvironment(null);
    await current?.api.close();
  };
  if (handle === undefined || settings === null) {
    await retire();
    return undefined;
  }
  const { startJobApi } = await import('./jobapi/index.js');
  const start = (): Promise<JobApi> =>
    startJobApi(
      {
        clock: deps.clock,
        logger: deps.logger,
        host: deps.host,
        processToken: deps.processToken,
        store: handle.service.store,
        storeOpened: handle.service.opened,
        env: deps.env,
      },
      settings,
    );
  let api: JobApi;
  try {
    try {
      api = await start();
    } catch (error) {
      if (retired) throw error;
      await retire();
      api = await start();
    }
  } catch (error) {
    deps.logger.error(
      `Cannot start the job API: ${describeError(error)}; jobs run without YACRON2_STATE_URL`,
    );
    await retire();
    return undefined;
  }
  const ready = api;
  deps.scheduler.setRunEnvironment((run) => ready.runEnvironment(run));
  if (!retired) {
    retired = true;
    await current?.api.close();
  }
  return { api, settingsKey };
}

/** The HTTP view: the scheduler, plus durable trends while a store is configured. */
function daemonView(scheduler: Scheduler, durable: () => DurableState | undefined): DaemonView {
  return {
    events: scheduler.events,
    getStatus: () => scheduler.getStatus(),
    getJobs: () => scheduler.getJobs(),
    getJob: (name) => scheduler.getJob(name),
    getRuns: (name) => scheduler.getRuns(name),
    getJobConfig: (name) => scheduler.getJobConfig(name),
    getNextFireAtMs: (name) => scheduler.getNextFireAtMs(name),
    // Without a store the route computes the memory windows itself.
    getTrends: (name) => durable()?.getTrends(name),
  };
}

/** Per-job options that need the store and do nothing without a `state` section. */
function warnStatelessOptions(logger: Logger, config: ResolvedConfig): void {
  if (config.state !== null) return;
  for (const job of config.jobs) {
    const inert: string[] = [];
    if (job.onMissed !== 'skip') inert.push(`onMissed ${job.onMissed}`);
    if (job.startingDeadlineMs !== null) inert.push('startingDeadlineSeconds');
    if (job.catchupJitterMs > 0) inert.push('catchupJitterSeconds');
    if (job.archiveOutput) inert.push('archiveOutput');
    if (inert.length === 0) continue;
    logger.warn(
      `Job ${job.name}: ${inert.join(', ')} ${inert.length === 1 ? 'has' : 'have'} no effect without a state section`,
    );
  }
}

/** The `state` section's service, loaded only when a config has one (stateless pays nothing). */
async function applyStateSection(
  handle: DaemonStateHandle | undefined,
  config: ResolvedConfig,
  deps: DaemonStateDeps,
): Promise<DaemonStateHandle | undefined> {
  if (handle === undefined && config.state === null) return undefined;
  const { applyDaemonStateSection } = await import('./state/service.js');
  return applyDaemonStateSection(handle, config, deps);
}

/**
 * The control API reconciled with the `web` section (http-api A.1), loaded only when a config
 * has one. Its problems are logged and never block the rest of a start or reload.
 */
async function applyWebSection(
  server: WebServer | undefined,
  config: ResolvedConfig,
  deps: WebServerDeps,
  metrics: Metrics,
): Promise<WebServer | undefined> {
  metrics.setDurationBuckets(
    config.web?.metrics.durationBuckets ?? DEFAULT_DURATION_BUCKETS_SECONDS,
  );
  if (server === undefined && !config.web) return undefined;
  try {
    const { WebServer } = await import('./http/index.js');
    const web = server ?? new WebServer(deps);
    await web.apply(config.web);
    return web;
  } catch (error) {
    deps.logger.error(`Cannot apply the web configuration: ${describeError(error)}`);
    return server;
  }
}

function logJobSet(logger: Logger, config: ResolvedConfig): void {
  const count = config.jobs.length;
  logger.info(`Job set id: ${config.jobSetId} (${count} job${count === 1 ? '' : 's'})`);
}
