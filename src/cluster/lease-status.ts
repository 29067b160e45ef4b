// What a node on a lease backend reports (docs/clustering.md "Observing the cluster"): the
// lease-shaped GET /cluster view and the yacron2_cluster_* gauges, read from the elector's held
// state. A lease cluster is logically one holder: size and quorum 1, no peers, never a conflict;
// quorate means a fresh read of the store, and `lease` names the holder and, while this node
// leads, its expiry. Domain values; the HTTP layer renders the wire shape.
// Must not: read the observability overlay for anything but the `fleet` flag.
import type { LeaseDetails, LeaseElector } from '../leadership/index.js';
import type { ClusterMetricsView } from '../metrics/index.js';

export interface LeaseClusterStatus {
  readonly backend: 'kubernetes' | 'etcd' | 'filesystem';
  readonly nodeName: string;
  readonly jobSetId: string;
  readonly quorate: boolean;
  readonly leader: string | null;
  readonly isLeader: boolean;
  readonly lease: LeaseDetails;
  /** An observability overlay runs, so GET /fleet has data. */
  readonly fleet: boolean;
}

export function describeLeaseCluster(
  elector: LeaseElector,
  jobSetId: string,
  fleet: boolean,
): LeaseClusterStatus {
  return {
    backend: elector.backend,
    nodeName: elector.nodeName,
    jobSetId,
    quorate: elector.isQuorate(),
    leader: elector.leaderName(),
    isLeader: elector.isLeader(),
    lease: elector.leaseDetails(),
    fleet,
  };
}

export function leaseMetricsView(elector: LeaseElector): ClusterMetricsView {
  return {
    backend: elector.backend,
    nodeName: elector.nodeName,
    distribution: 'single-leader',
    clusterSize: 1,
    quorum: 1,
    quorate: elector.isQuorate(),
    isLeader: elector.isLeader(),
    leaderName: elector.leaderName(),
    conflicts: { nodename: false, size: false, policy: false },
    peerStatuses: null,
  };
}
