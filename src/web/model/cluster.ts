// The cluster panel's model (docs/dashboard.md "Cluster panel"): `GET /cluster` in both of its
// shapes (the gossip view with peers, the lease view of kubernetes / etcd / filesystem) read into
// one summary the page renders: this node's role, the agreement tally, the quorum, the peers with
// their dot colour, the conflict warnings that raise the CLUSTER ALERT, and the lease fields.
// Pure. Must not: read the clock or the DOM (callers pass `nowMs`).
import type { ClusterWire, LeaseBackend, NodeStatsWire, PeerWire } from '../../http/wire/index.js';
import { parseIso } from './format.js';

export type { ClusterWire, LeaseBackend, NodeStatsWire, PeerWire } from '../../http/wire/index.js';

/** A peer's status as `/cluster` reports it (the cluster's own vocabulary). */
export type PeerStatusWire = PeerWire['status'];

/** The dot beside a peer: green agreed, amber syncing, red trouble, grey gone, blue self. */
export type PeerDot = 'agreed' | 'syncing' | 'bad' | 'gone' | 'self' | 'unknown';

export function peerDot(status: PeerStatusWire): PeerDot {
  switch (status) {
    case 'agreed':
      return 'agreed';
    case 'syncing':
      return 'syncing';
    case 'drifted':
    case 'untrusted':
    case 'conflict':
      return 'bad';
    case 'unreachable':
      return 'gone';
    case 'self':
      return 'self';
    case 'unknown':
      return 'unknown';
  }
}

export interface PeerRow {
  readonly host: string;
  readonly node: string;
  readonly status: PeerStatusWire;
  readonly dot: PeerDot;
  /** Short job-set id (`v1:3f9a2c1b…`), '' when the peer sent none. */
  readonly jobSet: string;
  /** Wall instant of the last good poll, null if never. */
  readonly lastSeenMs: number | null;
  readonly lastError: string | null;
  /** `CPU 12% · MEM 40%` when the cluster shares node stats, else null. */
  readonly load: string | null;
  /** Jobs this peer owns under spread (from the job table's owners), else null. */
  readonly owns: number | null;
}

/** This node's part: what it does with `Leader` jobs right now. */
export type ClusterRole =
  | { readonly kind: 'leader' }
  | { readonly kind: 'follower'; readonly leader: string }
  | { readonly kind: 'no-quorum' }
  | { readonly kind: 'spread'; readonly quorate: boolean }
  | { readonly kind: 'conflict' };

export interface ClusterSummary {
  readonly backend: 'gossip' | LeaseBackend;
  readonly node: string;
  readonly role: ClusterRole;
  /** `leader`, `follower (leader b)`, `spread (per-job owner)`, `standing down (conflict)`, … */
  readonly roleText: string;
  /** Peers that agree on the job set, of the peers (self-listings excluded); null for leases. */
  readonly tally: { readonly agreed: number; readonly of: number } | null;
  readonly quorumText: string;
  /** Jobs this node owns under spread; null otherwise. */
  readonly owns: number | null;
  readonly peers: readonly PeerRow[];
  /** Every reason for the page-level CLUSTER ALERT (empty = none). */
  readonly alerts: readonly string[];
  /** The lease backends' `lease` fields that are not null, in the daemon's order. */
  readonly lease: readonly (readonly [string, string])[] | null;
  /** Whether `/fleet` can answer (always for gossip; the overlay's flag for leases). */
  readonly fleet: boolean;
}

/** `v1:3f9a2c1b…`: enough to tell two job sets apart. */
export function shortJobSetId(id: string | null): string {
  if (id === null) return '';
  return id.length > 11 ? `${id.slice(0, 11)}…` : id;
}

function loadText(stats: NodeStatsWire | null): string | null {
  if (stats === null) return null;
  const cpu = typeof stats.cpu_percent === 'number' ? `CPU ${Math.round(stats.cpu_percent)}%` : '';
  const mem = typeof stats.mem_percent === 'number' ? `MEM ${Math.round(stats.mem_percent)}%` : '';
  const text = [cpu, mem].filter((part) => part !== '').join(' · ');
  return text === '' ? null : text;
}

function roleOf(wire: Exclude<ClusterWire, { enabled: false }>): ClusterRole {
  if (wire.conflict) return { kind: 'conflict' };
  if (wire.distribution === 'spread') return { kind: 'spread', quorate: wire.quorate };
  if (!wire.quorate) return { kind: 'no-quorum' };
  if (wire.is_leader) return { kind: 'leader' };
  return wire.leader === null ? { kind: 'no-quorum' } : { kind: 'follower', leader: wire.leader };
}

function roleText(role: ClusterRole, lease: boolean): string {
  switch (role.kind) {
    case 'leader':
      return 'leader';
    case 'follower':
      return `follower (leader ${role.leader})`;
    case 'no-quorum':
      return lease ? 'no quorum (lease store unreachable)' : 'no quorum';
    case 'spread':
      return role.quorate ? 'spread (per-job owner)' : 'spread (no quorum)';
    case 'conflict':
      return 'standing down (conflict)';
  }
}

function alertsOf(wire: Exclude<ClusterWire, { enabled: false }>, lease: boolean): string[] {
  const alerts: string[] = [];
  if (wire.conflict_names.length > 0)
    alerts.push(
      `Duplicate nodeName: ${wire.conflict_names.join(', ')} — two nodes claim the same name; this node stands down`,
    );
  if (wire.size_conflict)
    alerts.push(
      `Cluster size mismatch: this node says ${wire.cluster_size}, peers say ${wire.conflicting_sizes.join(', ')}`,
    );
  if (wire.policy_conflict)
    alerts.push(
      `Policy mismatch: peers run another distribution or electLeader (${wire.conflicting_policies.join(', ')})`,
    );
  if (wire.conflict && alerts.length === 0) alerts.push('Cluster conflict: this node stands down');
  if (!wire.quorate)
    alerts.push(
      lease
        ? `No quorum: the ${wire.backend} lease store did not answer; Leader jobs stand down`
        : `No quorum: fewer than ${wire.quorum} of ${wire.cluster_size} nodes agree; Leader jobs stand down`,
    );
  return alerts;
}

/**
 * Reads `/cluster` into the panel's summary; null when clustering is off. `owners` maps a node
 * name to the jobs it owns (from the jobs' `clusterOwner`, spread only).
 */
export function summarizeCluster(
  wire: ClusterWire,
  owners: ReadonlyMap<string, number> = new Map(),
): ClusterSummary | null {
  if (!wire.enabled) return null;
  const lease = wire.backend !== 'gossip';
  const spread = wire.distribution === 'spread';
  const others = wire.peers.filter((peer) => peer.status !== 'self');
  const peers: PeerRow[] = wire.peers.map((peer) => ({
    host: peer.host,
    node: peer.node_name ?? '',
    status: peer.status,
    dot: peerDot(peer.status),
    jobSet: shortJobSetId(peer.job_set_id),
    lastSeenMs: parseIso(peer.last_seen),
    lastError: peer.last_error,
    load: loadText(peer.node_stats),
    owns: spread && peer.node_name !== null ? (owners.get(peer.node_name) ?? 0) : null,
  }));
  const role = roleOf(wire);
  return {
    backend: wire.backend,
    node: wire.node_name,
    role,
    roleText: roleText(role, lease),
    tally: lease
      ? null
      : { agreed: others.filter((peer) => peer.status === 'agreed').length, of: others.length },
    quorumText: lease
      ? wire.quorate
        ? 'lease store answering'
        : 'lease store unreachable'
      : `quorum ${wire.quorum} of ${wire.cluster_size}`,
    owns: spread ? (owners.get(wire.node_name) ?? 0) : null,
    peers,
    alerts: alertsOf(wire, lease),
    lease: lease
      ? Object.entries(wire.lease)
          .filter((entry): entry is [string, string | number] => entry[1] !== null)
          .map(([key, value]) => [key, String(value)] as const)
      : null,
    fleet: lease ? wire.fleet : true,
  };
}

/** Jobs per owner node from the job table (`clusterOwner`; null owners are not counted). */
export function countOwners(
  owners: Iterable<string | null | undefined>,
): ReadonlyMap<string, number> {
  const counts = new Map<string, number>();
  for (const owner of owners) {
    if (typeof owner === 'string') counts.set(owner, (counts.get(owner) ?? 0) + 1);
  }
  return counts;
}
