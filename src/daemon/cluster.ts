// The cluster, built once per process (docs/clustering.md "The scheduler's interface"): the
// supervisor that owns the gossip manager across reloads, the gate and @reboot deferral behind
// the scheduler's seams, and the views GET /cluster, /fleet and /jobs read. The daemon reconciles
// it on every housekeeping pass (certificate rotation is seen there) and stops it at shutdown.
// Must not: skip a reconcile because the configuration did not change.
import type { Clock } from '../common/index.js';
import type { Logger } from '../logging/index.js';
import {
  AdvertisedNamesMemo,
  ClusterSupervisor,
  jobClusterFields,
  jobSummaries,
  type ClusterSupervisorDeps,
  type NodeStatsReading,
} from '../cluster/index.js';
import type { ResolvedConfig } from '../config/index.js';
import type { ResumeCluster } from '../durable/index.js';
import type { ClusterApiView } from '../http/index.js';
import {
  ClusterGate,
  DeferredReboots,
  schedulerSeams,
  type SchedulerSeams,
} from '../leadership/index.js';
import type { SchedulerView } from '../scheduler/index.js';

export interface DaemonClusterDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  /** The live configuration (its job-set id and cluster section). */
  config(): ResolvedConfig;
  /** The scheduler's view, for the job summaries gossiped to the fleet view. */
  scheduler(): SchedulerView;
  /** This node's resources reading, when the daemon samples one (none: no stats are shared). */
  nodeStats?(): NodeStatsReading | null;
  /** Test seams: certificate loading and the transport (default: the files and mTLS). */
  readonly supervisorSeams?: Pick<
    ClusterSupervisorDeps,
    'loadTls' | 'snapshotTls' | 'createTransport'
  >;
}

export interface DaemonCluster {
  readonly supervisor: ClusterSupervisor;
  /** The scheduler's gate 2 and cluster port. */
  readonly seams: SchedulerSeams;
  readonly api: ClusterApiView;
  /** What cross-node retry resume asks (docs/durable-state.md "Retry resume across nodes"). */
  readonly resume: ResumeCluster;
  /**
   * Call `gained` whenever this node gains scheduled-job leadership or joins quorum (its owned
   * jobs may have changed); returns the unsubscribe.
   */
  onOwnershipGained(gained: () => void): () => void;
  /** One housekeeping pass with the live configuration (changed or not). */
  reconcile(): Promise<void>;
  stop(): Promise<void>;
}

export function createDaemonCluster(deps: DaemonClusterDeps): DaemonCluster {
  const { clock, logger } = deps;
  const nodeStats = (): NodeStatsReading | null => deps.nodeStats?.() ?? null;
  const advertised = new AdvertisedNamesMemo();
  const supervisor = new ClusterSupervisor({
    clock,
    logger,
    jobSetId: () => deps.config().jobSetId,
    jobSummaries: () =>
      jobSummaries(deps.scheduler(), advertised.of(deps.config().jobs), clock.now()),
    ...(deps.nodeStats === undefined ? {} : { nodeStats }),
    ...deps.supervisorSeams,
  });
  const gate = new ClusterGate(supervisor, logger);
  const seams = schedulerSeams({
    gate,
    deferrals: new DeferredReboots(supervisor, logger),
    onPass: () => supervisor.onSchedulerPass(),
  });
  const api: ClusterApiView = {
    status: () => supervisor.describe(),
    fleet: () => supervisor.fleet(),
    nodeStats,
    jobFields: (job) => jobClusterFields(job, supervisor, deps.config()),
  };
  const { events } = supervisor.transitions;
  return {
    supervisor,
    seams,
    api,
    resume: {
      running: () => supervisor.electLeaderConfigured() && supervisor.current() !== null,
      owns: (job) => gate.verdict(job, 'retry').kind === 'allow',
    },
    onOwnershipGained(gained) {
      const offLeader = events.on('leader:changed', (event) => {
        if (event.isLeader) gained();
      });
      const offQuorum = events.on('quorum:changed', (event) => {
        if (event.quorate) gained();
      });
      return () => {
        offLeader();
        offQuorum();
      };
    },
    reconcile: () => supervisor.reconcile(deps.config().cluster ?? null),
    stop: () => supervisor.stop(),
  };
}
