// The composition root: the one place that builds real I/O (system clock, child processes,
// stdout/stderr, the store, listeners) and wires the scheduler, its observers and the reloadable
// parts. Read it top to bottom: the order of the steps is the order the parts need
// (docs/architecture.md "The daemon").
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import {
  describeError,
  Slot,
  systemClock,
  type Clock,
  type Logger,
  type TimerHandle,
} from '../common/index.js';
import { configSignature, loadConfig, type ResolvedConfig } from '../config/index.js';
import type { WebServer } from '../http/index.js';
import type { Metrics } from '../metrics/index.js';
import { createRunner, secretEnvVarNames } from '../runner/index.js';
import {
  createScheduler,
  type DurableCollaborator,
  type RunEnvironmentHook,
  type Scheduler,
} from '../scheduler/index.js';
import { durableBackendReconciler } from './durable-backend.js';
import { jobApiReconciler, type JobApiHandle } from './job-api.js';
import { logJobSet, warnDefaultedGroups, warnStatelessOptions } from './notices.js';
import { subscribeObservers } from './observers.js';
import type { Change } from './reconciler.js';
import { stateSectionReconciler, type DaemonStateHandle } from './state-section.js';
import { webReconciler } from './web.js';

/** How often the configuration files are checked for changes (about once a minute). */
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
  // Every child and reporter sees HOSTNAME (docs/configuration.md, environment).
  env.HOSTNAME ??= hostname();
  const host = env.HOSTNAME;
  let config = options.config;

  // 1. The scheduler, built with the read sides of the two slots the reloadable parts serve.
  const durableSlot = new Slot<DurableCollaborator>();
  const runEnvironmentSlot = new Slot<RunEnvironmentHook>();
  // Variables that secret sources name stay out of job environments; follows every reload.
  let secretEnvNames = secretEnvVarNames(config);
  const runner = createRunner({
    clock,
    logger,
    stdout: options.stdout ?? process.stdout,
    stderr: options.stderr ?? process.stderr,
    baseEnv: env,
    secretEnvNames: () => secretEnvNames,
  });
  const scheduler = createScheduler(
    { clock, logger, runner, durable: durableSlot, runEnvironment: runEnvironmentSlot },
    config,
  );

  // 2. Its observers, subscribed before anything can fire.
  const observers = subscribeObservers({ clock, logger, env }, scheduler, config);
  const { metrics } = observers;
  logJobSet(logger, config);
  let signature = await configSignature(config);

  // 3. The reloadable parts, each a Reconciler (reconciler.ts), in dependency order.
  let jobApi: JobApiHandle | undefined;
  const reconcileState = stateSectionReconciler({
    clock,
    logger,
    host,
    registry: metrics.registry,
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
    secretValues: (runId) => jobApi?.api.secretValues(runId),
    slot: durableSlot,
  });
  // The daemon's per-process token (12 hex, the reference's `proc`): job-API lock holders carry it.
  const processToken = randomBytes(6).toString('hex');
  const reconcileJobApi = jobApiReconciler({
    clock,
    logger,
    host,
    processToken,
    env,
    slot: runEnvironmentSlot,
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
  const offRunEnded = scheduler.events.on('run:finished', (event) =>
    jobApi?.api.runEnded(event.runId),
  );

  // 5. The control API last: it serves views of everything above.
  const reconcileWeb = webReconciler(
    {
      scheduler,
      durable: () => durable,
      control: scheduler,
      clock,
      logger,
      jobSet: () => ({ jobSetId: config.jobSetId, jobs: config.jobs.length }),
      renderMetrics: (accept) => metrics.render(accept),
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
    secretEnvNames = secretEnvVarNames(next);
    signature = await configSignature(next);
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
    warnStatelessOptions(logger, next);
    warnDefaultedGroups(logger, next);
    web = await reconcileWeb(web, next, undefined);
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

  async function stop(): Promise<void> {
    stopping ??= (async () => {
      reloadTimer?.cancel();
      await reloading;
      await scheduler.shutdown(options.shutdownGraceMs);
      await observers.close();
      await jobApi?.api.close();
      // The final counter snapshot and every accepted durable write land before the store closes.
      await durable?.close();
      await state?.close();
      // The control API stops last, once the jobs have finished (docs/http-api.md).
      await web?.close();
      offRunEnded();
      observers.unsubscribe();
    })();
    return stopping;
  }

  return { scheduler, metrics, reloadIfChanged, stop, [Symbol.asyncDispose]: stop };
}
