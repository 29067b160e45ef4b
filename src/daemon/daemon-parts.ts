// The daemon's parts table (docs/architecture.md "The daemon"): every part the composition root
// starts, reconciles with the configuration and closes, each with the parts it comes `after`.
// parts.ts computes the start order, the reload order and the teardown (exactly the start order
// reversed) from these edges; each edge says why. A part whose close must not mirror where it is
// built is two entries: the close is registered where it must run (the control API closes after
// the store, the DAG runs after the drain, the cluster manager stops while the jobs drain).
// Must not: do I/O while building the table (the parts do it when the plan runs them).
import type { Clock, Swappable } from '../common/index.js';
import type { Logger, LoggingSectionApplier } from '../logging/index.js';
import type { ResolvedConfig } from '../config/index.js';
import type { DurableState } from '../durable/index.js';
import type { WebServer } from '../http/index.js';
import type { DaemonSpawner, Runner } from '../runner/index.js';
import type { DurableCollaborator, RunEnvironmentHook, Scheduler } from '../scheduler/index.js';
import { dagReconciler, type DagHandle } from './dags.js';
import { durableBackendReconciler } from './durable-backend.js';
import { jobApiReconciler, type JobApiHandle } from './job-api.js';
import { withSlotFields } from './job-slot-fields.js';
import type { LazyDaemonCluster } from './lazy-cluster.js';
import type { NodeStatsHandle } from './node.js';
import { logJobSet, warnDefaultedGroups, warnStatelessOptions } from './notices.js';
import type { Observers } from './observers.js';
import type { Part } from './parts.js';
import type { Change } from './reconciler.js';
import type { ReloadLoop } from './reload-loop.js';
import type { RunResourcesHandle } from './run-resources.js';
import { stateSectionReconciler, type DaemonStateHandle } from './state-section.js';
import { webReconciler } from './web.js';

/** What serves now: written only by the parts below (and the reload, for the config). */
export interface DaemonLive {
  config: ResolvedConfig;
  /** Variables that secret sources name stay out of job environments; follows every reload. */
  secretEnvNames: ReadonlySet<string>;
  state: Change<DaemonStateHandle>;
  durable: DurableState | undefined;
  jobApi: JobApiHandle | undefined;
  dags: DagHandle | undefined;
  web: WebServer | undefined;
  /** The one start instant (NaN until the part of that name takes it). */
  startedAtMs: number;
  /** The scheduler's drain, once firing stopped. */
  drained: Promise<void> | undefined;
}

export interface DaemonPartsDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly host: string;
  readonly env: NodeJS.ProcessEnv;
  readonly processToken: string;
  readonly shutdownGraceMs: number;
  readonly live: DaemonLive;
  readonly logging: LoggingSectionApplier | undefined;
  readonly spawner: DaemonSpawner;
  readonly runner: Runner;
  readonly runResources: RunResourcesHandle;
  readonly node: NodeStatsHandle;
  readonly cluster: LazyDaemonCluster;
  readonly scheduler: Scheduler;
  readonly observers: Observers;
  readonly servingDurable: Swappable<DurableCollaborator>;
  readonly servingRunEnvironment: Swappable<RunEnvironmentHook>;
  readonly reloads: ReloadLoop;
}

/** The parts' names: the bounded closes' names are what the shutdown log says. */
export const PART = {
  logging: 'the logging section',
  jobSet: 'the job set',
  spawner: 'the spawn helper',
  sampler: 'the resource sampler',
  node: 'the node stats',
  observers: 'the observers',
  cluster: 'the cluster',
  controlApi: 'the control API',
  state: 'the state store',
  startInstant: 'the start instant',
  durable: 'the durable state',
  notices: 'the stateless notices',
  jobApi: 'the job API',
  reports: 'the pending reports',
  dagRuns: 'the DAG runs',
  reloadInFlight: 'a configuration reload in progress',
  jobs: 'the running jobs',
  clusterManager: 'the cluster manager',
  firing: "the scheduler's firing",
  durableBoot: 'the durable boot sequence',
  dagEngine: 'the DAG engine',
  controlApiServer: 'the control API server',
  reloaded: 'the reload notice',
  reloadChecks: 'the configuration checks',
} as const;

export function daemonParts(deps: DaemonPartsDeps): Part<ResolvedConfig>[] {
  const { clock, logger, host, env, processToken, live, scheduler, cluster, observers } = deps;
  const { metrics } = observers;
  const reconcileState = stateSectionReconciler({
    clock,
    logger,
    host,
    registry: metrics.registry,
    slots: () => live.durable?.concurrency.held() ?? [],
  });
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
    schedulerStartedAtMs: () => live.startedAtMs,
    processToken,
    secretValues: (runId) => live.jobApi?.api.secretValues(runId),
    cluster: cluster.resume,
    serving: deps.servingDurable,
  });
  const reconcileJobApi = jobApiReconciler({
    clock,
    logger,
    host,
    processToken,
    env,
    serving: deps.servingRunEnvironment,
  });
  // The DAG runs: their attempts start through the scheduler's run start, with the same runner,
  // job API variables and resource monitor as the jobs.
  const reconcileDags = dagReconciler({
    clock,
    logger,
    host,
    processToken,
    runner: deps.runner,
    runEnvironment: deps.servingRunEnvironment,
    runMonitor: deps.runResources.monitor,
    endRun: (runId) => live.jobApi?.api.runEnded(runId),
    clusterStatus: () => cluster.api.status(),
    config: () => live.config,
    observer: metrics.dags,
    statsd: observers.statsd,
  });
  const reconcileWeb = webReconciler(
    {
      scheduler,
      durable: () => live.durable,
      control: scheduler,
      clock,
      logger,
      jobSet: () => ({ jobSetId: live.config.jobSetId, jobs: live.config.jobs.length }),
      renderMetrics: (accept) => metrics.render(accept),
      resources: deps.runResources.view(scheduler),
      node: deps.node.view,
      stateInspector: () => live.state.next?.inspector ?? null,
      cluster: withSlotFields(cluster.api, (job) => live.durable?.concurrency.heldFor(job)),
      dags: () => live.dags?.engine ?? null,
    },
    metrics,
  );
  // No run can end, and no leadership can be gained, before the parts below run: these two
  // hooks are released with the part they serve.
  const offRunEnded = scheduler.events.on('run:finished', (event) =>
    live.jobApi?.api.runEnded(event.runId),
  );
  // Cross-node retry resume: a node that gains jobs looks for ladders to claim at once.
  const offOwnershipGained = cluster.onOwnershipGained(() => {
    live.durable?.scanRetryClaims();
    live.durable?.recheckCatchup();
  });

  return [
    // Reloads apply the logging section first, so every line below goes where it says (start.ts
    // applied the first one before building anything; a failing one is tried again next time).
    {
      name: PART.logging,
      reconcile: ({ previous, next }) => {
        if (previous !== undefined) deps.logging?.apply(next.logging);
      },
    },
    // The scheduler gets a new job set before any part, so the parts see it (it was built with
    // the first one).
    {
      name: PART.jobSet,
      after: [PART.logging],
      reconcile: ({ previous, next }) => {
        if (previous !== undefined) scheduler.applyConfig(next);
      },
    },
    // The releases that need nothing: closed last, after everything that launches or reads them.
    { name: PART.spawner, close: { kind: 'awaited', run: () => deps.spawner.close() } },
    { name: PART.sampler, close: { kind: 'awaited', run: () => deps.runResources.close() } },
    {
      name: PART.node,
      after: [PART.logging],
      reconcile: ({ next }) => deps.node.configure(next),
      close: { kind: 'awaited', run: () => deps.node.close() },
    },
    { name: PART.observers, close: { kind: 'awaited', run: () => observers.unsubscribe() } },
    // The cluster manager starts (its first round included) before the start instant and the
    // scheduler's first pass; every reload check reconciles it (a certificate renewed in place
    // is noticed there).
    { name: PART.cluster, start: () => cluster.reconcile(), pass: () => cluster.reconcile() },
    // The control API's close, registered before the parts it shows so that it stops after them
    // (docs/http-api.md: the API stops last, once the jobs have finished); it is built last.
    {
      name: PART.controlApi,
      after: [PART.spawner, PART.sampler, PART.node, PART.observers],
      close: {
        kind: 'bounded',
        run: () => live.web?.close(),
        present: () => live.web !== undefined,
      },
    },
    // The store opens in the background: a slow or dead store never delays scheduling.
    {
      name: PART.state,
      after: [PART.jobSet, PART.controlApi],
      reconcile: async ({ next }) => {
        const previous = live.state.next;
        live.state = { previous, next: await reconcileState(previous, next, undefined) };
      },
      close: {
        kind: 'bounded',
        run: () => live.state.next?.close(),
        present: () => live.state.next !== undefined,
      },
    },
    // The one start instant: catch-up owes the slots up to it (and its watermark counts only runs
    // that ended before it), the scheduler's start-up pass seeds strictly after it, so a slot
    // falling while the parts after it are built is fired, late, exactly once.
    {
      name: PART.startInstant,
      after: [PART.state, PART.cluster],
      start: () => void (live.startedAtMs = clock.now()),
    },
    // Serves the durable Swappable before the start-up pass (it decides its @reboot boot markers); a
    // reload's new collaborator boots at once. The final counter snapshot and every accepted
    // durable write land before the store closes.
    {
      name: PART.durable,
      after: [PART.state, PART.startInstant],
      reconcile: async ({ previous, next }) => {
        live.durable = await reconcileDurable(live.durable, next, live.state);
        if (previous !== undefined) live.durable?.start();
      },
      pass: () => {
        // Ladders other nodes left for the jobs this node owns (retry resume) are claimed, and
        // catch-ups the cluster gate refused are asked again.
        live.durable?.scanRetryClaims();
        live.durable?.recheckCatchup();
      },
      close: {
        kind: 'bounded',
        run: () => {
          offOwnershipGained();
          return live.durable?.close();
        },
        present: () => live.durable !== undefined,
      },
    },
    {
      name: PART.notices,
      after: [PART.durable],
      reconcile: ({ next }) => {
        warnStatelessOptions(logger, next);
        warnDefaultedGroups(logger, next);
      },
    },
    // Bound before the start-up pass, so @reboot and first-second runs get its variables; after
    // the durable collaborator serves (and closed before it), as start-up always had it.
    {
      name: PART.jobApi,
      after: [PART.state, PART.durable],
      reconcile: async ({ next }) => {
        live.jobApi = await reconcileJobApi(live.jobApi, next, live.state);
      },
      close: {
        kind: 'bounded',
        run: () => {
          offRunEnded();
          return live.jobApi?.api.close();
        },
        present: () => live.jobApi !== undefined,
      },
    },
    // The reports and statsd sends settle before the job API, durable state and store close.
    {
      name: PART.reports,
      after: [PART.jobApi, PART.durable],
      close: { kind: 'bounded', run: () => observers.close() },
    },
    // The DAG runs' close, registered before the drain: DAG attempts still running report their
    // ends through the job API and the store, and their statsd stop datagrams go before the
    // publisher drains. The engine itself is built after the start-up pass (the DAG engine).
    {
      name: PART.dagRuns,
      after: [PART.reports, PART.jobApi, PART.state, PART.spawner, PART.sampler],
      close: {
        kind: 'bounded',
        run: () => live.dags?.engine.close(),
        present: () => live.dags !== undefined,
      },
    },
    // A reload in flight reconciles the parts above: it is waited for after the jobs (its stat()
    // may queue behind hung fs calls), before any of them closes.
    {
      name: PART.reloadInFlight,
      after: [PART.dagRuns, PART.reports, PART.durable, PART.controlApi],
      close: {
        kind: 'bounded',
        run: () => deps.reloads.inFlight,
        present: () => deps.reloads.inFlight !== undefined,
      },
    },
    // The drain: the running jobs finish (within the grace) before anything they use closes —
    // the spawn helper, the sampler, the store and durable state, the job API, their reports —
    // and while the control API still shows them.
    {
      name: PART.jobs,
      after: [PART.reloadInFlight, PART.dagRuns, PART.reports, PART.durable, PART.controlApi],
      close: { kind: 'awaited', run: () => live.drained },
    },
    // The cluster manager stops as soon as firing stopped, while the jobs drain: its peers see it
    // gone at their next poll (docs/clustering.md "Operations"; bounded by its connectTimeout).
    {
      name: PART.clusterManager,
      after: [PART.jobs],
      close: { kind: 'awaited', run: () => cluster.stop() },
    },
    // The start-up pass: after the cluster's first round, the durable collaborator (boot markers)
    // and the job API (the first runs' variables). Its close stops firing and starts the drain.
    {
      name: PART.firing,
      after: [PART.clusterManager, PART.cluster, PART.startInstant, PART.durable, PART.jobApi],
      start: () => scheduler.start(live.startedAtMs),
      close: {
        kind: 'awaited',
        run: () => void (live.drained = scheduler.shutdown(deps.shutdownGraceMs)),
      },
    },
    // The durable boot sequence reads what the start-up pass started.
    {
      name: PART.durableBoot,
      after: [PART.firing, PART.durable],
      start: () => live.durable?.start(),
    },
    // After the job API (task attempts get its variables), the start-up pass and the durable
    // boot sequence it starts (nothing delays the jobs' boot for the DAG code to load).
    {
      name: PART.dagEngine,
      after: [PART.firing, PART.durableBoot, PART.jobApi, PART.cluster, PART.dagRuns],
      reconcile: async ({ next }) => {
        live.dags = await reconcileDags(live.dags, next, live.state);
      },
    },
    // Built last: it serves views of everything above (its close is the control API above).
    {
      name: PART.controlApiServer,
      after: [PART.controlApi, PART.durableBoot, PART.dagEngine, PART.notices, PART.node],
      reconcile: async ({ next }) => {
        live.web = await reconcileWeb(live.web, next, undefined);
      },
    },
    {
      name: PART.reloaded,
      after: [PART.controlApiServer],
      reconcile: ({ previous, next }) => {
        if (previous === undefined) return;
        metrics.onConfigReloaded(true, next);
        if (next.jobSetId !== previous.jobSetId) logJobSet(logger, next);
      },
    },
    // Configuration checks begin once every part is up; at stop they are the first thing to go.
    {
      name: PART.reloadChecks,
      after: [PART.reloaded, PART.controlApiServer],
      start: () => deps.reloads.arm(),
      close: { kind: 'awaited', run: () => deps.reloads.cancel() },
    },
  ];
}
