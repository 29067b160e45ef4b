// The composition root: the one place that builds real I/O (system clock, child processes,
// stdout/stderr, the store, listeners), wires the scheduler and its observers, and runs the
// daemon's parts table (daemon-parts.ts) in the orders parts.ts computes from it: start-up,
// every reload, and the stop that is the start's exact reverse (docs/architecture.md "The
// daemon").
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { describeError, Swappable, systemClock, type Clock } from '../common/index.js';
import { LoggingSectionApplier, type Logger, type RootLogger } from '../logging/index.js';
import { configSignature, loadConfig, type ResolvedConfig } from '../config/index.js';
import type { Metrics } from '../metrics/index.js';
import {
  createRunner,
  secretEnvVarNames,
  signalProcessGroup,
  startSpawner,
  type DaemonSpawner,
} from '../runner/index.js';
import {
  createScheduler,
  type DurableCollaborator,
  type RunEnvironmentHook,
  type Scheduler,
} from '../scheduler/index.js';
import { daemonParts, type DaemonLive } from './daemon-parts.js';
import { createLazyDaemonCluster } from './lazy-cluster.js';
import { createNodeStats } from './node.js';
import { logJobSet } from './notices.js';
import { subscribeObservers } from './observers.js';
import { planParts, runInOrder } from './parts.js';
import { ReloadLoop } from './reload-loop.js';
import { createRunResources } from './run-resources.js';
import { ShutdownSteps } from './shutdown-steps.js';

/** How often the configuration files are checked for changes (about once a minute). */
export const RELOAD_INTERVAL_MS = 60_000;

/** After the jobs, the teardown gets what is left of the grace, and at least this. */
export const SHUTDOWN_TEARDOWN_FLOOR_MS = 5_000;

export interface DaemonOptions {
  readonly config: ResolvedConfig;
  readonly logger: Logger;
  /**
   * The root `logger` belongs to, which the config's `logging` section reconfigures on start and
   * on every reload that changes it (docs/configuration.md "logging"). Absent: the section is
   * not applied (tests that hand in their own logger).
   */
  readonly rootLogger?: RootLogger;
  readonly shutdownGraceMs: number;
  readonly clock?: Clock;
  readonly env?: NodeJS.ProcessEnv;
  readonly stdout?: NodeJS.WritableStream;
  readonly stderr?: NodeJS.WritableStream;
  readonly reloadIntervalMs?: number;
  /**
   * How jobs' processes start, when the caller started it already (the daemon command does,
   * before it loads the configuration: docs/performance.md "The spawn path"). Absent: started
   * here. The daemon closes it after its last launch.
   */
  readonly spawner?: DaemonSpawner;
}

export interface Daemon extends AsyncDisposable {
  readonly scheduler: Scheduler;
  /** Prometheus families; `metrics.render(accept)` is the GET /metrics response. */
  readonly metrics: Metrics;
  /** Check the config files now and apply a changed configuration. */
  reloadIfChanged(): Promise<void>;
  /**
   * Graceful shutdown: stop firing, drain running jobs within the grace, then flush reports and
   * close the parts within what is left of it (at least SHUTDOWN_TEARDOWN_FLOOR_MS); a part that
   * does not close in time is abandoned and listed in `abandoned`.
   */
  stop(): Promise<void>;
  /** The parts stop() gave up on (empty until it has, and after a clean stop). */
  readonly abandoned: readonly string[];
  /**
   * For a forced exit: SIGKILL the running jobs' process groups and say what the exit abandons
   * (those jobs, the shutdown steps not finished). The caller exits the process.
   */
  abandon(): readonly string[];
}

export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const clock = options.clock ?? systemClock;
  const env = options.env ?? process.env;
  const { logger } = options;
  // Every child and reporter sees HOSTNAME (docs/configuration.md, environment).
  env.HOSTNAME ??= hostname();
  // Jobs start from a plain copy of the daemon's environment, taken here: every read of
  // `process.env` calls into the C environment, once per variable, and a launch reads them all
  // (docs/performance.md "The launch path's CPU"). The daemon never changes its environment.
  const jobBaseEnv = env === process.env ? { ...env } : env;
  // The host in store streams, records and lease holders is the OS host name (Python's
  // socket.gethostname()), never an overridable variable: both builds must name a host alike.
  const host = hostname();
  // The daemon's per-process token (12 hex, the reference's `proc`): in-flight records and
  // job-API lock holders carry it.
  const processToken = randomBytes(6).toString('hex');
  const live: DaemonLive = {
    config: options.config,
    secretEnvNames: secretEnvVarNames(options.config),
    state: { previous: undefined, next: undefined },
    durable: undefined,
    jobApi: undefined,
    dags: undefined,
    web: undefined,
    startedAtMs: Number.NaN,
    drained: undefined,
  };

  // The logging section first, so every line below goes where it says.
  const logging = options.rootLogger && new LoggingSectionApplier(options.rootLogger);
  logging?.apply(live.config.logging);

  // The scheduler, built with the read sides of the two Swappables the reloadable parts serve.
  const servingDurable = new Swappable<DurableCollaborator>();
  const servingRunEnvironment = new Swappable<RunEnvironmentHook>();
  // How jobs' processes start: the spawn helper unless YACRON2_SPAWN_HELPER=0, else in-process
  // (docs/performance.md "The spawn path"). Closed after the last launcher, the DAG runs.
  const spawner = options.spawner ?? startSpawner({ clock, logger, env: jobBaseEnv });
  const runner = createRunner({
    spawner: spawner.spawner,
    clock,
    logger,
    stdout: options.stdout ?? process.stdout,
    stderr: options.stderr ?? process.stderr,
    baseEnv: jobBaseEnv,
    secretEnvNames: () => live.secretEnvNames,
  });
  // monitorResources: one sampler for every monitored run (its timer runs only while one does).
  const runResources = createRunResources({ clock, logger });
  // This node's CPU and memory (GET /node, and the reading a cluster shares with its peers).
  const node = createNodeStats({ clock, nodeName: () => live.config.cluster?.nodeName ?? host });
  // The cluster, built once per process when a configuration first names one (its code is loaded
  // then): the scheduler's gate and @reboot deferral read it.
  const cluster = createLazyDaemonCluster({
    clock,
    logger,
    config: () => live.config,
    scheduler: () => scheduler,
    nodeStats: () => node.clusterReading(),
  });
  const scheduler = createScheduler(
    {
      clock,
      logger,
      runner,
      durable: servingDurable,
      runEnvironment: servingRunEnvironment,
      runMonitor: runResources.monitor,
      gate: cluster.seams.gate,
      cluster: cluster.seams.cluster,
    },
    live.config,
  );
  // Its observers, subscribed before anything can fire.
  const observers = subscribeObservers(
    { clock, logger, env, cluster: cluster.metricsSource },
    scheduler,
    live.config,
  );
  const { metrics } = observers;
  logJobSet(logger, live.config);
  let signature = await configSignature(live.config);
  let stopping: Promise<void> | undefined;
  const reloads = new ReloadLoop({
    clock,
    logger,
    intervalMs: options.reloadIntervalMs ?? RELOAD_INTERVAL_MS,
    check: reloadIfChanged,
  });

  // The parts, in the orders computed from their after-edges.
  const plan = planParts(
    daemonParts({
      clock,
      logger,
      host,
      env,
      processToken,
      shutdownGraceMs: options.shutdownGraceMs,
      live,
      logging,
      spawner,
      runner,
      runResources,
      node,
      cluster,
      scheduler,
      observers,
      servingDurable,
      servingRunEnvironment,
      reloads,
    }),
  );
  const teardown = new ShutdownSteps(
    clock,
    logger,
    plan.teardown.flatMap((part) => (part.close ? [{ ...part.close, what: part.name }] : [])),
  );
  const first = { previous: undefined, next: live.config };
  await runInOrder(plan.start, (part) => {
    const reconciled = part.reconcile?.(first);
    return reconciled === undefined ? part.start?.() : reconciled.then(() => part.start?.());
  });

  async function reloadIfChanged(): Promise<void> {
    await applyChangedConfig();
    // Every check, changed or not: a certificate renewed in place is noticed here, retry
    // ladders are claimed (docs/architecture.md "The daemon").
    await runInOrder(plan.pass, (part) => (stopping ? undefined : part.pass?.()));
  }

  async function applyChangedConfig(): Promise<void> {
    const current = await configSignature(live.config);
    if (current === signature || stopping) return;
    const next = await loadConfig(live.config.configPath).catch((error: unknown) => {
      // The old configuration keeps running; the failed parse is retried at the next check
      // because the signature is only advanced on success.
      logger.error(`Error in configuration file(s), so not reloading: ${describeError(error)}`);
      metrics.onConfigReloaded(false);
      return undefined;
    });
    if (next === undefined) return;
    const nextSignature = await configSignature(next);
    // Stopping meanwhile: the parts being closed are not rebuilt.
    if (stopping) return;
    const change = { previous: live.config, next };
    live.config = next;
    live.secretEnvNames = secretEnvVarNames(next);
    signature = nextSignature;
    await runInOrder(plan.reload, (part) => part.reconcile?.(change));
  }

  // Stop: the parts' closes, the start's exact reverse — firing stops, the cluster manager
  // stops while the jobs drain within the grace, then the teardown shares what is left of the
  // grace (at least SHUTDOWN_TEARDOWN_FLOOR_MS).
  async function stop(): Promise<void> {
    stopping ??= (async () => {
      const graceEndsMs = clock.monotonic() + options.shutdownGraceMs;
      try {
        await teardown.run(() =>
          Math.max(graceEndsMs, clock.monotonic() + SHUTDOWN_TEARDOWN_FLOOR_MS),
        );
      } finally {
        if (teardown.abandoned.length > 0) {
          observers.abandonReports();
          logger.warn(
            `Shutdown: gave up waiting for ${teardown.abandoned.join(', ')} at the end of the shutdown grace`,
          );
        }
      }
    })();
    return stopping;
  }

  function abandon(): readonly string[] {
    const what: string[] = [];
    for (const { job, pids } of scheduler.getJobStates()) {
      for (const pid of pids) {
        signalProcessGroup(pid, 'SIGKILL');
        what.push(`job ${job.name} (pid ${pid}, killed)`);
      }
    }
    what.push(...teardown.pending);
    observers.abandonReports();
    return what;
  }

  return {
    scheduler,
    metrics,
    reloadIfChanged,
    stop,
    abandon,
    get abandoned() {
      return teardown.abandoned;
    },
    [Symbol.asyncDispose]: stop,
  };
}
