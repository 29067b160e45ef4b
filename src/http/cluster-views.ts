// The cluster's wire shapes (docs/clustering.md "Observing the cluster", and the jobs'
// `clusterPolicy` / `clusterOwner`), rendered from the cluster's domain values: snake_case keys
// in the reference's order, ISO instants, seconds (the types: wire/cluster.ts). Pure.
import { formatIsoUtc } from '../common/index.js';
import type {
  ClusterStatus,
  FleetStatus,
  LeaseClusterStatus,
  NodeStatsReading,
} from '../cluster/index.js';
import type {
  ClusterDisabledWire,
  FleetDisabledWire,
  FleetWire,
  GossipClusterWire,
  JobClusterFields,
  LeaseClusterWire,
} from './wire/index.js';
import { summariesToWire } from '../cluster/summary-wire/index.js';

export const CLUSTER_DISABLED: ClusterDisabledWire = { enabled: false, peers: [] };
export const FLEET_DISABLED: FleetDisabledWire = { enabled: false, nodes: [] };

const isoOrNull = (ms: number | null): string | null => (ms === null ? null : formatIsoUtc(ms));

export function renderClusterStatus(
  status: ClusterStatus,
  nodeStats: NodeStatsReading | null,
): GossipClusterWire | LeaseClusterWire {
  if (status.backend !== 'gossip') return renderLeaseStatus(status, nodeStats);
  return {
    enabled: true,
    backend: status.backend,
    node_name: status.nodeName,
    job_set_id: status.jobSetId,
    cluster_size: status.clusterSize,
    quorum: status.quorum,
    elect_leader: status.electLeader,
    distribution: status.distribution,
    conflict: status.conflict,
    conflict_names: status.conflictNames,
    size_conflict: status.sizeConflict,
    conflicting_sizes: status.conflictingSizes,
    policy_conflict: status.policyConflict,
    conflicting_policies: status.conflictingPolicies,
    quorate: status.quorate,
    leader: status.leader,
    is_leader: status.isLeader,
    peers: status.peers.map((peer) => ({
      host: peer.host,
      status: peer.status,
      node_name: peer.nodeName,
      job_set_id: peer.jobSetId,
      last_seen: isoOrNull(peer.lastSeenMs),
      last_error: peer.lastError,
      mismatch_streak: peer.mismatchStreak,
      node_stats: peer.nodeStats,
    })),
    node_stats: nodeStats,
  };
}

/** The lease-shaped view: one holder, no peers, never a conflict, plus `lease` and `fleet`. */
function renderLeaseStatus(
  status: LeaseClusterStatus,
  nodeStats: NodeStatsReading | null,
): LeaseClusterWire {
  return {
    enabled: true,
    backend: status.backend,
    node_name: status.nodeName,
    job_set_id: status.jobSetId,
    cluster_size: 1,
    quorum: 1,
    elect_leader: true,
    distribution: 'single-leader',
    conflict: false,
    conflict_names: [],
    size_conflict: false,
    conflicting_sizes: [],
    policy_conflict: false,
    conflicting_policies: [],
    quorate: status.quorate,
    leader: status.leader,
    is_leader: status.isLeader,
    peers: [],
    lease: status.lease,
    fleet: status.fleet,
    node_stats: nodeStats,
  };
}

/** A number the summary carries, or null for none or a non-finite one. */
export function renderFleet(fleet: FleetStatus): Exclude<FleetWire, FleetDisabledWire> {
  return {
    enabled: true,
    backend: fleet.backend,
    node_name: fleet.nodeName,
    distribution: fleet.distribution,
    elect_leader: fleet.electLeader,
    interval: fleet.intervalMs / 1000,
    nodes: fleet.nodes.map((node) => ({
      node_name: node.nodeName,
      host: node.host,
      self: node.self,
      status: node.status,
      as_of: isoOrNull(node.asOfMs),
      truncated: node.truncated,
      jobs: node.jobs === null ? null : summariesToWire(node.jobs),
      node_stats: node.nodeStats,
    })),
  };
}

/** The job object's cluster keys as JSON members (`,"clusterPolicy":…`), '' when none. */
export function clusterFieldsJson(fields: JobClusterFields | null): string {
  if (fields === null) return '';
  let out = '';
  if (fields.concurrencyScope !== undefined)
    out += `,"concurrencyScope":${JSON.stringify(fields.concurrencyScope)}`;
  if (fields.slot !== undefined) out += `,"slot":${JSON.stringify(fields.slot)}`;
  if (fields.clusterPolicy !== undefined)
    out += `,"clusterPolicy":${JSON.stringify(fields.clusterPolicy)}`;
  if (fields.clusterOwner !== undefined)
    out += `,"clusterOwner":${JSON.stringify(fields.clusterOwner)}`;
  return out;
}

/** A job object's JSON with its cluster keys appended (they come last in the reference's order). */
export function withClusterFields(json: string, fields: JobClusterFields | null): string {
  const members = clusterFieldsJson(fields);
  return members === '' ? json : `${json.slice(0, -1)}${members}}`;
}
