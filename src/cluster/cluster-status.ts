// What a node reports about its view (docs/clustering.md "Observing the cluster"): the domain
// values behind GET /cluster and the yacron2_cluster_* gauges, both read from held state.
// Epoch milliseconds and camelCase here; the HTTP layer renders the wire shape.
// Must not: show a leader under spread (there is none; per-job owners are on the jobs).
import type { ClusterMetricsView } from '../metrics/index.js';
import type { GossipNode } from './gossip-node.js';
import type { LeaseClusterStatus } from './lease-status.js';
import { freshNodeStats } from './node-stats.js';
import { PEER_STATUSES, type NodeStatsReading, type PeerStatus } from './types.js';

export interface PeerStatusReport {
  readonly host: string;
  readonly status: PeerStatus;
  readonly nodeName: string | null;
  readonly jobSetId: string | null;
  readonly lastSeenMs: number | null;
  readonly lastError: string | null;
  readonly mismatchStreak: number;
  /** Only a reading younger than 3 intervals. */
  readonly nodeStats: NodeStatsReading | null;
}

/** GET /cluster's view: the gossip shape, or the lease-shaped one (lease-status.ts). */
export type ClusterStatus = GossipClusterStatus | LeaseClusterStatus;

export interface GossipClusterStatus {
  readonly backend: 'gossip';
  readonly nodeName: string;
  readonly jobSetId: string;
  readonly clusterSize: number;
  readonly quorum: number;
  readonly electLeader: boolean;
  readonly distribution: 'single-leader' | 'spread';
  readonly conflict: boolean;
  readonly conflictNames: readonly string[];
  readonly sizeConflict: boolean;
  readonly conflictingSizes: readonly number[];
  readonly policyConflict: boolean;
  readonly conflictingPolicies: readonly string[];
  readonly quorate: boolean;
  readonly leader: string | null;
  readonly isLeader: boolean;
  readonly peers: readonly PeerStatusReport[];
}

export function describeCluster(
  node: GossipNode,
  jobSetId: string,
  nowMs: number,
  intervalMs: number,
): GossipClusterStatus {
  const sets = node.derived();
  const conflicts = node.conflicts();
  const spread = node.distribution === 'spread';
  return {
    backend: 'gossip',
    nodeName: node.nodeName,
    jobSetId,
    clusterSize: sets.clusterSize,
    quorum: sets.quorum,
    electLeader: node.settings.electLeader,
    distribution: node.distribution,
    conflict: node.hasConflict(),
    conflictNames: conflicts.names,
    sizeConflict: conflicts.sizes.length > 0,
    conflictingSizes: conflicts.sizes,
    policyConflict: conflicts.policies.length > 0,
    conflictingPolicies: conflicts.policies,
    quorate: node.isQuorate(),
    leader: spread ? null : node.leaderName(),
    isLeader: !spread && node.isLeader(),
    peers: node.peers().map((peer) => ({
      host: peer.host,
      status: peer.status,
      nodeName: peer.nodeName,
      jobSetId: peer.jobSetId,
      lastSeenMs: peer.lastSeenMs,
      lastError: peer.lastError,
      mismatchStreak: peer.mismatchStreak,
      nodeStats: freshNodeStats(peer, nowMs, intervalMs),
    })),
  };
}

export function clusterMetricsView(node: GossipNode): ClusterMetricsView {
  const spread = node.distribution === 'spread';
  const conflicts = node.conflicts();
  const counts = new Map<PeerStatus, number>(PEER_STATUSES.map((status) => [status, 0]));
  for (const peer of node.peers()) counts.set(peer.status, (counts.get(peer.status) ?? 0) + 1);
  return {
    backend: 'gossip',
    nodeName: node.nodeName,
    distribution: node.distribution,
    clusterSize: node.clusterSize(),
    quorum: node.quorum(),
    quorate: node.isQuorate(),
    isLeader: !spread && node.isLeader(),
    leaderName: spread ? null : node.leaderName(),
    conflicts: {
      nodename: conflicts.names.length > 0,
      size: conflicts.sizes.length > 0,
      policy: conflicts.policies.length > 0,
    },
    peerStatuses: node.peers().length === 0 ? null : [...counts],
  };
}
