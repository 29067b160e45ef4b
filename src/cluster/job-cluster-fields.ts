// A job's election keys as GET /jobs shows them (docs/clustering.md "The per-job decision"): the policy
// while election is configured, and under spread the owner this node computes for it. Moved here
// from the daemon: it is cluster domain logic over the supervisor's backend. The control API's
// own `JobClusterFields` (http/, above this folder) accepts this shape as it is.
// Must not: decide anything (display only; the gate asks the backend itself).
import type { ClusterPolicy, ResolvedConfig, ResolvedJob } from '../config/index.js';
import { leadershipDistribution } from '../leadership/index.js';
import type { ClusterSupervisor } from './supervisor.js';

/** The election's keys of one job (GET /jobs): `clusterOwner` only under spread. */
export interface JobElectionFields {
  readonly clusterPolicy: ClusterPolicy;
  /** Only under `distribution: spread` for Leader/PreferLeader jobs; null = no owner. */
  readonly clusterOwner?: string | null;
}

/**
 * A job's cluster keys in GET /jobs: `clusterPolicy` only while election is configured,
 * `clusterOwner` only under spread and not for EveryNode (null without an owner or a manager).
 */
export function jobClusterFields(
  job: ResolvedJob,
  supervisor: Pick<ClusterSupervisor, 'electLeaderConfigured' | 'current'>,
  config: ResolvedConfig,
): JobElectionFields | null {
  if (!supervisor.electLeaderConfigured()) return null;
  const backend = supervisor.current();
  const distribution =
    backend === null ? config.cluster?.distribution : leadershipDistribution(backend);
  if (distribution !== 'spread' || job.clusterPolicy === 'EveryNode') {
    return { clusterPolicy: job.clusterPolicy };
  }
  let owner: string | null = null;
  if (backend !== null && backend.backend === 'gossip') {
    owner =
      job.clusterPolicy === 'PreferLeader'
        ? backend.availableJobOwner(job.name)
        : backend.jobOwner(job.name);
  }
  return { clusterPolicy: job.clusterPolicy, clusterOwner: owner };
}
