// The composition root: the one place that builds real I/O (system clock, child processes,
// stdout/stderr, the store, listeners) and wires the scheduler, its observers and the reloadable
// parts. Read it top to bottom: the order of the steps is the order the parts need
// (docs/architecture.md "The daemon").
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import {
  describeError,
  Swappable,
  systemClock,
  type Clock,
  type TimerHandle,
} from '../common/index.js';
import { LoggingSectionApplier, type Logger, type RootLogger } from '../logging/index.js';
import { configSignature, loadConfig, type ResolvedConfig } from '../config/index.js';
import type { WebServer } from '../http/index.js';
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
import { withSlotFields } from './job-slot-fields.js';
import { dagReconciler, type DagHandle } from './dags.js';
import { durableBackendReconciler } from './durable-backend.js';
import { jobApiReconciler, type JobApiHandle } from './job-api.js';
import { createLazyDaemonCluster } from './lazy-cluster.js';
import { createNodeStats } from './node.js';
import { logJobSet, warnDefaultedGroups, warnStatelessOptions } from './notices.js';
import { subscribeObservers } from './observers.js';
import type { Change } from './reconciler.js';
import { createRunResources } from './run-resources.js';
import { ShutdownSteps } from './shutdown-steps.js';
import { stateSectionReconciler, type DaemonStateHandle } from './state-section.js';
import { webReconciler } from './web.js';

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
  let config = options.config;

  // 0. The logging section first, so every line below goes where it says.
  const logging = options.rootLogger && new LoggingSectionApplier(options.rootLogger);
  logging?.apply(config.logging);

  // 1. The scheduler, built with the read sides of the two Swappables the reloadable parts serve.
  const servingDurable = new Swappable<DurableCollaborator>();
  const servingRunEnvironment = new Swappable<RunEnvironmentHook>();
  // Variables that secret sources name stay out of job environments; follows every reload.
  let secretEnvNames = secretEnvVarNames(config);
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
    secretEnvNames: () => secretEnvNames,
  });
  // monitorResources: one sampler for every monitored run (its timer runs only while one does).
  const runResources = createRunResources({ clock, logger });
  // This node's CPU and memory (GET /node, and the reading a cluster shares with its peers).
  const node = createNodeStats({ clock, nodeName: () => config.cluster?.nodeName ?? host });
  // The cluster, built once per process when a configuration first names one (its code is loaded
  // then): the scheduler's gate and @reboot deferral read it.
  const cluster = createLazyDaemonCluster({
    clock,
    logger,
    config: () => config,
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
    config,
  );

  // 2. Its observers, subscribed before anything can fire.
  const observers = subscribeObservers(
    { clock, logger, env, cluster: cluster.metricsSource },
    scheduler,
    config,
  );
  const { metrics } = observers;
  logJobSet(logger, config);
  let signature = await configSignature(config);
  // The cluster manager starts (its first round included) before the scheduler's first pass.
  await cluster.reconcile();

  // 3. The reloadable parts, each a Reconciler (reconciler.ts), in dependency order.
  let jobApi: JobApiHandle | undefined;
  const reconcileState = stateSectionReconciler({
    clock,
    logger,
    host,
    registry: metrics.registry,
    // Read at request time: the durable backend is built (and rebuilt) below.
    slots: () => durable?.concurrency.held() ?? [],
  });
  // The store opens in the background: a slow or dead store never delays scheduling.
  let state = await reconcileState(undefined, config, undefined);
  // The one start instant: catch-up owes the slots up to it (and its watermark counts only runs
  // that ended before it), the scheduler's start-up pass seeds strictly after it (step 4), so a
  // slot falling while the parts below are built is fired, late, exactly once.
  const schedulerStartedAtMs = clock.now();
  const reconcileDurable = durableBackendReconciler({
    clock,
    logger,
    host,
    env,
    scheduler,
    counters: {
      snapshot: () => metrics.snapshotCounters(),
      seed: (snapshot, names) => void metrics.seedCounters(snapshot, names),
    },
    schedulerStartedAtMs,
    processToken,
    secretValues: (runId) => jobApi?.api.secretValues(runId),
    cluster: cluster.resume,
    serving: servingDurable,
  });
  const reconcileJobApi = jobApiReconciler({
    clock,
    logger,
    host,
    processToken,
    env,
    serving: servingRunEnvironment,
  });
  // Must precede scheduler.start(): the durable backend decides the start-up pass's @reboot boot
  // markers, and the job API's variables go to every run, the first ones included.
  const firstState: Change<DaemonStateHandle> = { previous: undefined, next: state };
  let durable = await reconcileDurable(undefined, config, firstState);
  warnStatelessOptions(logger, config);
  warnDefaultedGroups(logger, config);
  jobApi = await reconcileJobApi(undefined, config, firstState);

  // 4. The start-up pass, then the durable boot sequence (it reads what the pass started).
  scheduler.start(schedulerStartedAtMs);
  durable?.start();
  // Cross-node retry resume: a node that gains jobs looks for ladders to claim at once.
  const offOwnershipGained = cluster.onOwnershipGained(() => {
    durable?.scanRetryClaims();
    durable?.recheckCatchup();
  });
  const offRunEnded = scheduler.events.on('run:finished', (event) =>
    jobApi?.api.runEnded(event.runId),
  );
  // The DAG runs: their attempts start through the scheduler's run start, with the same runner,
  // job API variables and resource monitor as the jobs.
  const reconcileDags = dagReconciler({
    clock,
    logger,
    host,
    processToken,
    runner,
    runEnvironment: servingRunEnvironment,
    runMonitor: runResources.monitor,
    endRun: (runId) => jobApi?.api.runEnded(runId),
    clusterStatus: () => cluster.api.status(),
    config: () => config,
    observer: metrics.dags,
    statsd: observers.statsd,
  });
  let dags: DagHandle | undefined = await reconcileDags(undefined, config, firstState);

  // 5. The control API last: it serves views of everything above.
  node.configure(config);
  const reconcileWeb = webReconciler(
    {
      scheduler,
      durable: () => durable,
      control: scheduler,
      clock,
      logger,
      jobSet: () => ({ jobSetId: config.jobSetId, jobs: config.jobs.length }),
      renderMetrics: (accept) => metrics.render(accept),
      resources: runResources.view(scheduler),
      node: node.view,
      stateInspector: () => state?.inspector ?? null,
      cluster: withSlotFields(cluster.api, (job) => durable?.concurrency.heldFor(job)),
      dags: () => dags?.engine ?? null,
    },
    metrics,
  );
  let web: WebServer | undefined = await reconcileWeb(undefined, config, undefined);

  // ---- reload ----------------------------------------------------------------------------------

  let reloadTimer: TimerHandle | undefined;
  let reloading: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;
  const reloadIntervalMs = options.reloadIntervalMs ?? RELOAD_INTERVAL_MS;

  async function reloadIfChanged(): Promise<void> {
    await applyChangedConfig();
    // Every pass, changed or not: a certificate renewed in place is noticed here.
    if (!stopping) await cluster.reconcile();
    // ... and ladders other nodes left for the jobs this node owns (retry resume) are claimed,
    // and catch-ups the cluster gate refused are asked again.
    if (!stopping) {
      durable?.scanRetryClaims();
      durable?.recheckCatchup();
    }
  }

  async function applyChangedConfig(): Promise<void> {
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
    const nextSignature = await configSignature(next);
    // Stopping meanwhile: the parts being closed are not rebuilt.
    if (stopping) return;
    const previousJobSetId = config.jobSetId;
    config = next;
    secretEnvNames = secretEnvVarNames(next);
    signature = nextSignature;
    // Applied only when the section changed; a failing one is tried again at the next reload.
    logging?.apply(next.logging);
    // The same order as at start-up; the scheduler first, so the parts see the new job set.
    scheduler.applyConfig(next);
    const stateChange: Change<DaemonStateHandle> = {
      previous: state,
      next: await reconcileState(state, next, undefined),
    };
    state = stateChange.next;
    durable = await reconcileDurable(durable, next, stateChange);
    durable?.start();
    jobApi = await reconcileJobApi(jobApi, next, stateChange);
    dags = await reconcileDags(dags, next, stateChange);
    warnStatelessOptions(logger, next);
    warnDefaultedGroups(logger, next);
    web = await reconcileWeb(web, next, undefined);
    node.configure(next);
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

  // ---- stop: the reverse of the start, with the jobs drained first ----------------------------

  // What follows the jobs, in order: the reverse of the start.
  const teardown = new ShutdownSteps(clock, logger, [
    {
      what: 'a configuration reload in progress',
      run: () => reloading,
      present: () => reloading !== undefined,
    },
    // DAG attempts still running report their ends through the job API and the store below,
    // and their statsd stop datagrams before the publisher drains.
    { what: 'the DAG runs', run: () => dags?.engine.close(), present: () => dags !== undefined },
    { what: 'the pending reports', run: () => observers.close() },
    { what: 'the job API', run: () => jobApi?.api.close(), present: () => jobApi !== undefined },
    // The final counter snapshot and every accepted durable write land before the store closes.
    {
      what: 'the durable state',
      run: () => durable?.close(),
      present: () => durable !== undefined,
    },
    { what: 'the state store', run: () => state?.close(), present: () => state !== undefined },
    // The control API stops last, once the jobs have finished (docs/http-api.md).
    { what: 'the control API', run: () => web?.close(), present: () => web !== undefined },
  ]);

  async function stop(): Promise<void> {
    stopping ??= (async () => {
      const graceEndsMs = clock.monotonic() + options.shutdownGraceMs;
      // A reload in flight applies nothing once stopping is set; it is waited for in the
      // teardown (its stat() may queue behind hung fs calls, so never before the jobs).
      reloadTimer?.cancel();
      // The cluster manager stops as soon as firing stopped, while the jobs drain: its peers
      // see it gone at their next poll (its stop is bounded by the cluster's connectTimeout).
      const drained = scheduler.shutdown(options.shutdownGraceMs);
      await cluster.stop();
      await drained;
      // The teardown shares what is left of the grace, and gets at least
      // SHUTDOWN_TEARDOWN_FLOOR_MS.
      await teardown.run(Math.max(graceEndsMs, clock.monotonic() + SHUTDOWN_TEARDOWN_FLOOR_MS));
      if (teardown.abandoned.length > 0) {
        observers.abandonReports();
        logger.warn(
          `Shutdown: gave up waiting for ${teardown.abandoned.join(', ')} at the end of the shutdown grace`,
        );
      }
      await spawner.close();
      node.close();
      runResources.close();
      offRunEnded();
      offOwnershipGained();
      observers.unsubscribe();
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
