// The vocabulary of the gossip view: peer statuses, what a poll of a peer's /peer observed, and
// the per-peer record the state machine keeps (docs/clustering.md "Per-peer status").
// Types only.
import type { ClusterDistributionSetting } from '../config/index.js';

/** In the order yacron2_cluster_peers{status} is zero-filled. */
export const PEER_STATUSES = [
  'unknown',
  'self',
  'agreed',
  'syncing',
  'drifted',
  'unreachable',
  'untrusted',
  'conflict',
] as const;
export type PeerStatus = (typeof PEER_STATUSES)[number];

export type Distribution = ClusterDistributionSetting;

/** The fingerprint scheme this node's job-set ids use (`v1:<hex>`). */
export const FINGERPRINT_SCHEME = 'v1';

/** One entry of a node's advertised `members` list. */
export interface MemberEntry {
  readonly nodeName: string;
  /** Our own advertisement may carry null for a peer that sent none; parsed entries never do. */
  readonly instanceId: string | null;
  readonly agreed: boolean;
}

/** The last outcome of a job as a peer summarises it (display only). */
export interface JobSummaryLast {
  readonly outcome: 'success' | 'failure' | 'cancelled' | 'unknown';
  readonly finishedAt: string;
  readonly durationSeconds: number | null;
  readonly exitCode: number | null;
}

/** One job of a node's run summary (display only: never an election input). */
export interface JobSummary {
  readonly running: boolean;
  readonly enabled: boolean;
  /** Seconds until the next fire at the time the summary was produced. */
  readonly scheduledInSeconds: number | null;
  readonly last: JobSummaryLast | null;
}

/** The summaries a node advertises: the sorted, capped prefix, and whether anything was left out. */
export interface AdvertisedJobs {
  readonly jobs: ReadonlyMap<string, JobSummary>;
  readonly truncated: boolean;
}

/** A node's `job_summaries` as received (stamped at receipt). */
export interface JobSummariesReport {
  readonly jobs: ReadonlyMap<string, JobSummary>;
  readonly truncated: boolean;
  readonly receivedAtMs: number;
}

/** The `/node` resources reading a peer shares in the node-stats header. */
export type NodeStatsReading = Readonly<Record<string, number>>;

/** A validated `GET /peer` body (docs/clustering.md "The /peer payload"). */
export interface PeerObservation {
  readonly nodeName: string | null;
  readonly jobSetId: string | null;
  readonly schemeVersion: string | null;
  readonly instanceId: string | null;
  readonly declaredSize: number | null;
  readonly declaredDistribution: string | null;
  readonly declaredElectLeader: boolean | null;
  readonly members: readonly MemberEntry[];
  /** False for a legacy peer (no members list): it is taken to see us. */
  readonly reportsMembers: boolean;
  readonly ranRebootJobs: ReadonlySet<string>;
  readonly mutualAgreeing: ReadonlySet<string>;
  readonly quorateVouched: ReadonlySet<string>;
  /** null = not reported (the previous snapshot is kept). */
  readonly summaries: JobSummariesReport | null;
}

/** What this node keeps about one configured peer host; mutated only by peer-state.ts. */
export interface PeerRecord {
  readonly host: string;
  status: PeerStatus;
  mismatchStreak: number;
  /** Latched by a self-listing success; a later failure still shows `self`. */
  selfConfirmed: boolean;
  nodeName: string | null;
  jobSetId: string | null;
  instanceId: string | null;
  lastSeenMs: number | null;
  lastError: string | null;
  /** null until the first success and after every failure. */
  members: readonly MemberEntry[] | null;
  reportsMembers: boolean;
  ranRebootJobs: ReadonlySet<string> | null;
  mutualAgreeing: ReadonlySet<string> | null;
  quorateVouched: ReadonlySet<string> | null;
  declaredSize: number | null;
  declaredDistribution: string | null;
  declaredElectLeader: boolean | null;
  summaries: JobSummariesReport | null;
  nodeStats: NodeStatsReading | null;
  nodeStatsAtMs: number | null;
}

/** A peer record as the derived-set functions read it. */
export type PeerView = Readonly<PeerRecord>;
