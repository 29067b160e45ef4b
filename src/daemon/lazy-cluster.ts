// The cluster, loaded when a configuration first names one (docs/performance.md "Memory"): the
// supervisor, the gate and the backends are some 90 modules (cluster/, leadership/, and state/
// with the lease backends) that a daemon without a `cluster:` section never needs. Until one
// does — at start-up or at a reload that adds the section — every seam answers as a supervisor
// without a cluster would: the gate lets every job run (election off), due retries launch, no
// @reboot job is held, there is no status, fleet or cluster field, and no transition is counted.
// Once built, the cluster stays for the life of the process, as it always did (a reload that
// removes the section reconciles it to nothing; its transition counters live on).
// Must not: import cluster.ts (or any cluster/leadership module) other than through `load`.
import { describeError } from '../common/index.js';
import type { ResolvedJob } from '../config/index.js';
import type { ResumeCluster } from '../durable/index.js';
import type { ClusterApiView } from '../http/index.js';
import type { ClusterMetricsSource } from '../metrics/index.js';
import type {
  ClusterPort,
  GateResult,
  LeadershipGate,
  RetryGateResult,
} from '../scheduler/index.js';
import type { createDaemonCluster, DaemonCluster, DaemonClusterDeps } from './cluster.js';

/** The module that builds the cluster (a seam: tests count or fail the import). */
export interface DaemonClusterModule {
  readonly createDaemonCluster: typeof createDaemonCluster;
}

/** The real import, the one place the daemon reaches the cluster's code. */
export const loadDaemonCluster = (): Promise<DaemonClusterModule> => import('./cluster.js');

export interface LazyDaemonClusterDeps extends DaemonClusterDeps {
  /** Default: loadDaemonCluster. */
  readonly load?: () => Promise<DaemonClusterModule>;
}

/** DaemonCluster's surface, with the supervisor replaced by its metrics source. */
export interface LazyDaemonCluster extends Omit<DaemonCluster, 'supervisor'> {
  /** The yacron2_cluster_* families' source. */
  readonly metricsSource: ClusterMetricsSource;
  /** Whether the cluster's code has been loaded and built (tests, and nothing else). */
  built(): boolean;
}

const RUN: GateResult = { kind: 'run' };
const LAUNCH: RetryGateResult = { kind: 'launch' };
const NONE_HELD: ReadonlySet<string> = new Set();

export function createLazyDaemonCluster(deps: LazyDaemonClusterDeps): LazyDaemonCluster {
  const load = deps.load ?? loadDaemonCluster;
  let cluster: DaemonCluster | null = null;
  let building: Promise<DaemonCluster | null> | null = null;
  let stopped = false;
  // onOwnershipGained subscribers, attached to the cluster once it is built.
  const gainedListeners = new Map<() => void, () => void>();

  /** The cluster, built once; null when its code cannot be loaded (logged, tried again later). */
  function build(): Promise<DaemonCluster | null> {
    building ??= load().then(
      ({ createDaemonCluster }) => {
        const built = createDaemonCluster(deps);
        for (const gained of gainedListeners.keys()) {
          gainedListeners.set(gained, built.onOwnershipGained(gained));
        }
        cluster = built;
        return built;
      },
      (error: unknown) => {
        deps.logger.error(`Cannot load the cluster manager: ${describeError(error)}`);
        building = null;
        return null;
      },
    );
    return building;
  }

  const gate: LeadershipGate = (query) => (cluster === null ? RUN : cluster.seams.gate(query));
  const port: ClusterPort = {
    onPass: () => cluster?.seams.cluster.onPass(),
    retryDecision: (job: ResolvedJob) =>
      cluster === null ? LAUNCH : cluster.seams.cluster.retryDecision(job),
    holdReboots: (jobs) => (cluster === null ? NONE_HELD : cluster.seams.cluster.holdReboots(jobs)),
    hasHeldReboots: () => cluster?.seams.cluster.hasHeldReboots() ?? false,
    rebootHeld: (name) => cluster?.seams.cluster.rebootHeld(name) ?? false,
    releaseReboots: (lookup, launch) =>
      cluster === null ? Promise.resolve() : cluster.seams.cluster.releaseReboots(lookup, launch),
  };
  const api: ClusterApiView = {
    status: () => cluster?.api.status() ?? null,
    fleet: () => cluster?.api.fleet() ?? null,
    nodeStats: () => deps.nodeStats?.() ?? null,
    jobFields: (job) => cluster?.api.jobFields(job) ?? null,
  };
  const resume: ResumeCluster = {
    running: () => cluster?.resume.running() ?? false,
    owns: (job) => cluster?.resume.owns(job) ?? true,
  };
  const metricsSource: ClusterMetricsSource = {
    electLeaderConfigured: () => cluster?.supervisor.electLeaderConfigured() ?? false,
    leaderTransitions: () => cluster?.supervisor.leaderTransitions() ?? 0,
    quorumTransitions: () => cluster?.supervisor.quorumTransitions() ?? 0,
    view: () => cluster?.supervisor.view() ?? null,
  };

  return {
    seams: { gate, cluster: port },
    api,
    resume,
    metricsSource,
    built: () => cluster !== null,
    onOwnershipGained(gained) {
      gainedListeners.set(gained, cluster?.onOwnershipGained(gained) ?? (() => undefined));
      return () => {
        gainedListeners.get(gained)?.();
        gainedListeners.delete(gained);
      };
    },
    async reconcile() {
      if (stopped) return;
      if (cluster === null && building === null && (deps.config().cluster ?? null) === null) return;
      const built = await build();
      if (built !== null && !stopped) await built.reconcile();
    },
    async stop() {
      stopped = true;
      await (await building)?.stop();
    },
  };
}
