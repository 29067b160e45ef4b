// The cluster's bodies (docs/clustering.md "Observing the cluster"): `GET /cluster` in its three
// shapes (off, the gossip view with peers, a lease backend's view) and `GET /fleet`, snake_case
// keys, ISO instants, seconds. Rendered by http/cluster-views.ts from the cluster's domain
// values. Types only.
import type {
  JobSummaryLast,
  LeaseClusterStatus,
  NodeStatsReading,
  PeerStatus,
} from '../../cluster/index.js';
import type { LeaseDetails } from '../../leadership/index.js';

/** Node resources shared through the cluster (`node_stats`: the `/node` reading's numbers). */
export type NodeStatsWire = NodeStatsReading;

export interface PeerWire {
  readonly host: string;
  readonly status: PeerStatus;
  readonly node_name: string | null;
  readonly job_set_id: string | null;
  readonly last_seen: string | null;
  readonly last_error: string | null;
  readonly mismatch_streak: number;
  readonly node_stats: NodeStatsWire | null;
}

export type Distribution = 'single-leader' | 'spread';

interface ClusterCommonWire {
  readonly enabled: true;
  readonly node_name: string;
  readonly job_set_id: string;
  readonly cluster_size: number;
  readonly quorum: number;
  readonly elect_leader: boolean;
  readonly distribution: Distribution;
  readonly conflict: boolean;
  readonly conflict_names: readonly string[];
  readonly size_conflict: boolean;
  readonly conflicting_sizes: readonly number[];
  readonly policy_conflict: boolean;
  readonly conflicting_policies: readonly string[];
  readonly quorate: boolean;
  readonly leader: string | null;
  readonly is_leader: boolean;
  readonly node_stats: NodeStatsWire | null;
}

/** The gossip view: every peer as this node sees it. */
export interface GossipClusterWire extends ClusterCommonWire {
  readonly backend: 'gossip';
  readonly peers: readonly PeerWire[];
}

export type LeaseBackend = LeaseClusterStatus['backend'];

/** A lease backend's view: one holder, no peers, never a conflict, plus `lease` and `fleet`. */
export interface LeaseClusterWire extends ClusterCommonWire {
  readonly backend: LeaseBackend;
  readonly cluster_size: 1;
  readonly quorum: 1;
  readonly elect_leader: true;
  readonly distribution: 'single-leader';
  readonly conflict: false;
  readonly conflict_names: readonly [];
  readonly size_conflict: false;
  readonly conflicting_sizes: readonly [];
  readonly policy_conflict: false;
  readonly conflicting_policies: readonly [];
  readonly peers: readonly [];
  readonly lease: LeaseDetails;
  /** An observability overlay runs, so GET /fleet has data. */
  readonly fleet: boolean;
}

export interface ClusterDisabledWire {
  readonly enabled: false;
  readonly peers: readonly [];
}

/** `GET /cluster`. */
export type ClusterWire = ClusterDisabledWire | GossipClusterWire | LeaseClusterWire;

/** What a node last knew of one job (display only). */
export interface FleetJobWire {
  readonly running: boolean;
  readonly enabled: boolean;
  readonly scheduled_in: number | null;
  readonly last: {
    readonly outcome: JobSummaryLast['outcome'];
    readonly finished_at: string;
    readonly duration: number | null;
    readonly exit_code: number | null;
  } | null;
}

export interface FleetNodeWire {
  readonly node_name: string | null;
  /** null for this node. */
  readonly host: string | null;
  readonly self: boolean;
  readonly status: PeerStatus;
  readonly as_of: string | null;
  /** The node advertised only a prefix of its jobs. */
  readonly truncated: boolean;
  /** null: no snapshot ever received from that node. */
  readonly jobs: Readonly<Record<string, FleetJobWire>> | null;
  readonly node_stats: NodeStatsWire | null;
}

export interface FleetDisabledWire {
  readonly enabled: false;
  readonly nodes: readonly [];
}

/** `GET /fleet`: off (no cluster, or a lease backend without the overlay) or every node's jobs. */
export type FleetWire =
  | FleetDisabledWire
  | {
      readonly enabled: true;
      readonly backend: 'gossip';
      readonly node_name: string;
      readonly distribution: Distribution;
      readonly elect_leader: boolean;
      /** Seconds between polls. */
      readonly interval: number;
      readonly nodes: readonly FleetNodeWire[];
    };
