// The DAG engine reconciled with the config (docs/dags.md): built when the config has DAGs and a
// store, rebuilt when the store changes (the old engine waits for its attempts first), handed the
// new DAG set on every other reload. Loaded only when a config has a `dags:` section.
// Ordering: after the job API (task attempts get its variables) and after scheduler.start().
import { randomBytes } from 'node:crypto';
import { describeError, type Clock, type Provider } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { ResolvedConfig, ResolvedDag } from '../config/index.js';
import type { DagEngine, DagObserver, TaskStatsd } from '../dags/index.js';
import type { Runner } from '../runner/index.js';
import type { RunEnvironmentHook, RunMonitor } from '../scheduler/index.js';
import type { DaemonStateHandle } from '../state/index.js';
import type { ClusterStatus } from '../cluster/index.js';
import type { Change, Reconciler } from './reconciler.js';

export interface DagDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly host: string;
  readonly processToken: string;
  readonly runner: Runner;
  readonly runEnvironment: Provider<RunEnvironmentHook>;
  /** The jobs' resource sampler: a task with `monitorResources` is sampled like a job. */
  readonly runMonitor: RunMonitor;
  /** The job API forgets an attempt's token. */
  readonly endRun: (runId: string) => void;
  /** The cluster's view (null without a running backend). */
  readonly clusterStatus: () => ClusterStatus | null;
  /** The configuration serving now (the cluster section decides who creates scheduled runs). */
  readonly config: () => ResolvedConfig;
  /** Told about runs and attempts (the yacron2_dag_* metrics). */
  readonly observer: DagObserver;
  /** The statsd datagrams of the tasks' processes (the jobs' publisher). */
  readonly statsd: TaskStatsd;
}

export interface DagHandle {
  readonly engine: DagEngine;
  readonly state: DaemonStateHandle;
}

/** Whether `pid` is a live process (EPERM: alive, another user's). */
function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * clusterPolicy for scheduled runs (docs/dags.md "DAG keys"): without election every node
 * creates them (run keys converge, create-if-absent); EveryNode always; Leader only the leader;
 * PreferLeader the leader, or any node while there is none.
 */
export function mayCreateScheduledRuns(
  dag: ResolvedDag,
  config: ResolvedConfig,
  status: ClusterStatus | null,
): boolean {
  if (config.cluster?.electLeader !== true || dag.clusterPolicy === 'EveryNode') return true;
  if (status === null) return dag.clusterPolicy === 'PreferLeader';
  if (status.isLeader) return true;
  return dag.clusterPolicy === 'PreferLeader' && !status.quorate;
}

export function dagReconciler(deps: DagDeps): Reconciler<DagHandle, Change<DaemonStateHandle>> {
  return async (current, config, state) => {
    const dags = config.dags ?? [];
    const handle = state.next;
    if (current !== undefined && (handle !== current.state || dags.length === 0)) {
      await current.engine.close();
      current = undefined;
    }
    if (handle === undefined || dags.length === 0) return undefined;
    if (current !== undefined) {
      current.engine.configure(dags);
      return current;
    }
    const { DagEngine } = await import('../dags/index.js');
    const store = handle.service.store;
    // Null until the store has opened: the routes answer 503 meanwhile instead of a store error.
    let open = false;
    const engine = new DagEngine(
      {
        clock: deps.clock,
        logger: deps.logger,
        host: deps.host,
        processToken: deps.processToken,
        runner: deps.runner,
        runEnvironment: () => deps.runEnvironment.current(),
        runMonitor: deps.runMonitor,
        endRun: deps.endRun,
        store: () => (open ? store : null),
        isPidAlive,
        random: Math.random,
        randomBytes: (size) => randomBytes(size),
        observer: deps.observer,
        statsd: deps.statsd,
        mayCreateScheduledRuns: (dag) =>
          mayCreateScheduledRuns(dag, deps.config(), deps.clusterStatus()),
      },
      dags,
    );
    const startedAtMs = deps.clock.now();
    // The store opens in the background; the runs start once it is open.
    void handle.service.opened.then(async (opened) => {
      if (!opened) return;
      open = true;
      try {
        await engine.start(startedAtMs);
      } catch (error) {
        deps.logger.error(`DAGs: cannot start: ${describeError(error)}`);
      }
    });
    return { engine, state: handle };
  };
}
