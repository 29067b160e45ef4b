// What the page knows about the daemon: the latest job snapshot with its derived rows, counts
// and verdict, the connection state, the daemon's version, job-set id and node reading, and the
// cluster view (`/cluster`, docs/dashboard.md "Cluster panel") and the DAG list (`/dags`).
// Components subscribe to its typed events; only the poller (poller.ts) writes the job data.
import { TypedEmitter } from '../../common/events.js';
import type { JobWire, NodeWire } from '../model/api-types.js';
import type { ClusterWire } from '../model/cluster.js';
import type { DagWire } from '../model/dags.js';
import { PeerTimeline } from '../model/peer-timeline.js';
import { countStatuses, nextRow, type JobRow, type StatusCounts } from '../model/job-status.js';
import { computeVerdict, type Verdict } from '../model/verdict.js';

export interface Snapshot {
  readonly rows: readonly JobRow[];
  readonly byName: ReadonlyMap<string, JobRow>;
  /** Wall instant (epoch ms) the response arrived. */
  readonly polledAtMs: number;
  readonly counts: StatusCounts;
  readonly verdict: Verdict;
}

export type Connection =
  | { readonly state: 'connecting' }
  | { readonly state: 'live' }
  | { readonly state: 'error'; readonly message: string }
  | { readonly state: 'unauthorized' };

/** The `/node` meter: unknown until asked, absent when the route answers 404. */
export type NodeState =
  | { readonly kind: 'unknown' }
  | { readonly kind: 'absent' }
  | { readonly kind: 'present'; readonly node: NodeWire };

/** `/cluster`: unknown until asked, off (no cluster section or no route), or the latest view. */
export type ClusterState =
  | { readonly kind: 'unknown' }
  | { readonly kind: 'off' }
  | { readonly kind: 'on'; readonly wire: Exclude<ClusterWire, { enabled: false }> };

export interface StoreEvents extends Record<string, unknown> {
  snapshot: Snapshot;
  connection: Connection;
  meta: { readonly version: string | null; readonly jobSetId: string | null };
  node: NodeState;
  cluster: ClusterState;
  dags: readonly DagWire[];
}

export class AppStore extends TypedEmitter<StoreEvents> {
  snapshot: Snapshot | null = null;
  connection: Connection = { state: 'connecting' };
  /** Wall instant of the last successful poll; null before the first. */
  lastGoodMs: number | null = null;
  version: string | null = null;
  jobSetId: string | null = null;
  node: NodeState = { kind: 'unknown' };
  cluster: ClusterState = { kind: 'unknown' };
  /** Peer status changes seen by this page (the cluster panel's swimlane). */
  readonly peerTimeline = new PeerTimeline();
  /** `/dags` (empty until asked, on a daemon without DAGs, or without the route). */
  dags: readonly DagWire[] = [];

  setJobs(jobs: readonly JobWire[], polledAtMs: number): Snapshot {
    const previous = this.snapshot?.byName;
    const rows = jobs.map((job) => nextRow(job, previous?.get(job.name), polledAtMs));
    const byName = new Map(rows.map((row) => [row.name, row]));
    const snapshot: Snapshot = {
      rows,
      byName,
      polledAtMs,
      counts: countStatuses(rows),
      verdict: computeVerdict(rows),
    };
    this.snapshot = snapshot;
    this.lastGoodMs = polledAtMs;
    this.setConnection({ state: 'live' });
    this.emit('snapshot', snapshot);
    return snapshot;
  }

  setConnection(connection: Connection): void {
    const same =
      connection.state === this.connection.state &&
      (connection.state !== 'error' ||
        (this.connection.state === 'error' && this.connection.message === connection.message));
    this.connection = connection;
    if (!same) this.emit('connection', connection);
  }

  setMeta(version: string | null, jobSetId: string | null): void {
    this.version = version;
    this.jobSetId = jobSetId;
    this.emit('meta', { version, jobSetId });
  }

  setNode(node: NodeState): void {
    this.node = node;
    this.emit('node', node);
  }

  setCluster(cluster: ClusterState): void {
    this.cluster = cluster;
    this.emit('cluster', cluster);
  }

  setDags(dags: readonly DagWire[]): void {
    this.dags = dags;
    this.emit('dags', dags);
  }
}
