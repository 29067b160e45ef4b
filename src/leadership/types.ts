// The leadership seam (docs/clustering.md "The scheduler's interface"): what any election backend
// answers (the reads every backend has, and what a gossip mesh adds), and the verdicts the
// scheduler consumes. Types only.
import type { ClusterBackend, ClusterDistributionSetting, ClusterPolicy } from '../config/index.js';

export type { ClusterPolicy };
/** The config's own unions: one definition of each. */
export type ClusterBackendName = ClusterBackend;
export type ClusterDistribution = ClusterDistributionSetting;

/**
 * The reads every running election backend answers, synchronously, from state it already holds
 * (no I/O on the scheduling path). A read may throw only on a bug; the gate then fails closed.
 * A lease backend (etcd, Kubernetes, filesystem) answers these and nothing more: its store is the
 * one view, so there is no cluster size, no conflict, no convergence and no per-job owner.
 */
export interface LeadershipReads {
  /** Which backend answers; 'gossip' is the mesh, every other name a lease store. */
  readonly backend: ClusterBackendName;
  readonly nodeName: string;
  /** A quorum (gossip) or a fresh store read (lease backends) backs this node's view. */
  isQuorate(): boolean;
  isLeader(): boolean;
  leaderName(): string | null;
  /** The quorum-free availability leader is this node (view settled, no duplicate owns it). */
  isAvailableLeader(): boolean;
  availableLeaderName(): string;
  /** A deferred @reboot one-shot already ran somewhere in the cluster (this job set). */
  rebootRan(job: string): boolean;
  /** Record (and tell the peers) that this node is about to run the deferred one-shot. */
  markRebootRan(job: string): Promise<void>;
}

/** A lease backend: the store's single holder is the whole answer. */
export interface LeaseLeadership extends LeadershipReads {
  readonly backend: Exclude<ClusterBackendName, 'gossip'>;
  /**
   * This node gained the lease under a second ago: Leader jobs wait, so a wall clock behind the
   * previous holder's cannot name (and run) a slot that holder already ran.
   */
  handoverHeld(): boolean;
}

/** What a peer mesh (gossip) adds: a view of N peers that may disagree, converge and split jobs. */
export interface MeshLeadership extends LeadershipReads {
  readonly backend: 'gossip';
  readonly distribution: ClusterDistribution;
  /** Effective cluster size N (its quorum is the status view's business). */
  clusterSize(): number;
  /** A duplicate nodeName, a cluster-size or a coordination-policy disagreement is visible. */
  hasConflict(): boolean;
  /** The conflicts in detail. */
  conflicts(): ConflictReport;
  /** false while a freshly (re)built view is converging (the never-skip gates hold). */
  viewSettled(): boolean;
  /**
   * A peer confirms this node's quorum: a live peer lists this node among the candidates it
   * vouches quorate, or this node alone is a quorum. A node that has just joined can be leader of
   * its own view for a round before any peer vouches for it (and before the old leader cedes);
   * Leader jobs wait for this. (A held lease is its own confirmation.)
   */
  quorumConfirmed(): boolean;
  /** The quorum-gated per-job owner (spread) is this node. */
  isJobOwner(job: string): boolean;
  jobOwner(job: string): string | null;
  isAvailableJobOwner(job: string): boolean;
  availableJobOwner(job: string): string;
}

/** What the gate, the @reboot deferral and the transition log read, told apart by `backend`. */
export type LeadershipBackend = LeaseLeadership | MeshLeadership;

/** What stands Leader jobs down, by kind (docs/clustering.md "Conflicts"). */
export interface ConflictReport {
  /** Duplicated nodeNames (sorted). */
  readonly names: readonly string[];
  /** Cluster sizes agreeing peers declare that differ from ours (ascending). */
  readonly sizes: readonly number[];
  /** `distribution 'spread' != 'single-leader'`, `electLeader False != True` (sorted). */
  readonly policies: readonly string[];
}

/**
 * Where the gate reads the cluster from: whether election is configured (set from each new config
 * before any rebuild, so a failed build still fails Leader jobs closed) and the running backend,
 * null when none runs (not configured, failed to start, being rebuilt).
 */
export interface LeadershipSource {
  electLeaderConfigured(): boolean;
  current(): LeadershipBackend | null;
}

/** Why the scheduler asks (its RunTrigger names; `catchup` = a backfill); manual is never gated. */
export type GateTrigger = 'schedule' | 'reboot' | 'retry' | 'catchup' | 'dag' | 'manual';

export type AllowBasis =
  /** No election configured: every node runs everything. */
  | 'election-off'
  | 'every-node'
  /** PreferLeader without a running backend: never skip (the documented double-run cost). */
  | 'no-manager-never-skip'
  | 'leader'
  | 'job-owner'
  | 'available-leader'
  | 'available-job-owner'
  | 'manual';

export type DenyReason =
  /** Leader job and no running backend (fail closed). */
  | 'no-manager'
  | 'conflict'
  | 'no-quorum'
  | 'not-leader'
  | 'not-owner'
  /** PreferLeader held while a (re)built view converges. */
  | 'converging'
  /** Leader: this node leads its own view, but no peer has vouched for its quorum yet. */
  | 'unconfirmed'
  /** Leader: this node gained its lease under a second ago (the skew hold of a handover). */
  | 'handover'
  /** A backend read threw: fail closed. */
  | 'error';

export type ClusterVerdict =
  | { readonly kind: 'allow'; readonly basis: AllowBasis }
  | { readonly kind: 'deny'; readonly reason: DenyReason; readonly detail: string };

/** What a due retry should do (docs/clustering.md "Retries under election"). */
export type RetryGateDecision =
  | { readonly kind: 'launch' }
  /** A transient denial: re-check after max(retry delay, 1 s). */
  | { readonly kind: 'defer'; readonly verdict: ClusterVerdict & { readonly kind: 'deny' } }
  /** Ownership positively moved to another node: abandon (WARNING + cancelled run record). */
  | { readonly kind: 'abandon'; readonly verdict: ClusterVerdict & { readonly kind: 'deny' } };

/** The job fields the gate reads. */
export interface GatedJob {
  readonly name: string;
  readonly clusterPolicy: ClusterPolicy;
}
