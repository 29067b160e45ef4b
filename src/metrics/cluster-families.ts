// The yacron2_cluster_* families besides yacron2_cluster_enabled (docs/metrics.md "Cluster"): the
// transition counters, then the view gauges, read at scrape time from a source the cluster
// supervisor implements. Values mirror GET /cluster. A view that cannot be read drops the view
// families from that scrape (logged); the counters stay. Must not: import the cluster layer.
import { labelPair } from './exposition.js';
import { single } from './daemon-families.js';
import { MetricFamily, type SampleSink } from './family.js';

/** What a scrape reads of the running election backend. */
export interface ClusterMetricsView {
  readonly backend: string;
  readonly nodeName: string;
  readonly distribution: string;
  readonly clusterSize: number;
  readonly quorum: number;
  readonly quorate: boolean;
  /** Always false under spread. */
  readonly isLeader: boolean;
  /** null when there is none (not quorate, or spread). */
  readonly leaderName: string | null;
  readonly conflicts: {
    readonly nodename: boolean;
    readonly size: boolean;
    readonly policy: boolean;
  };
  /** Every status with its count, zero-filled, in display order; null without a peer list. */
  readonly peerStatuses: readonly (readonly [status: string, count: number])[] | null;
}

export interface ClusterMetricsSource {
  electLeaderConfigured(): boolean;
  leaderTransitions(): number;
  quorumTransitions(): number;
  /** null = no running backend (not configured, failed to start). May throw. */
  view(): ClusterMetricsView | null;
}

function fromView(
  source: ClusterMetricsSource,
  name: string,
  kind: 'gauge' | 'info',
  help: string,
  collect: (view: ClusterMetricsView, sink: SampleSink) => void,
): MetricFamily {
  return new MetricFamily({
    name,
    kind,
    help,
    collect(sink) {
      const view = source.view();
      if (view !== null) collect(view, sink);
    },
  });
}

export function createClusterFamilies(source: ClusterMetricsSource): MetricFamily[] {
  const counted = (value: () => number) => (): number | null =>
    source.electLeaderConfigured() || value() > 0 ? value() : null;
  const gauge = (name: string, help: string, value: (view: ClusterMetricsView) => number) =>
    fromView(source, name, 'gauge', help, (view, sink) => sink(name, '', value(view)));
  return [
    single(
      'yacron2_cluster_leader_transitions_total',
      'counter',
      'Times this node acquired or lost scheduled-job leadership',
      counted(() => source.leaderTransitions()),
    ),
    single(
      'yacron2_cluster_quorum_transitions_total',
      'counter',
      'Times this node joined or left quorum',
      counted(() => source.quorumTransitions()),
    ),
    fromView(source, 'yacron2_cluster_info', 'info', 'The running cluster backend', (view, sink) =>
      sink(
        'yacron2_cluster_info',
        [
          labelPair('backend', view.backend),
          labelPair('node_name', view.nodeName),
          labelPair('distribution', view.distribution),
        ].join(','),
        1,
      ),
    ),
    gauge('yacron2_cluster_size', 'Effective cluster size N', (view) => view.clusterSize),
    gauge('yacron2_cluster_quorum', 'Quorum: floor(N / 2) + 1', (view) => view.quorum),
    gauge('yacron2_cluster_quorate', 'Whether this node sees a quorum (1) or not (0)', (view) =>
      view.quorate ? 1 : 0,
    ),
    gauge(
      'yacron2_cluster_is_leader',
      'Whether this node is the elected leader (always 0 under spread)',
      (view) => (view.isLeader ? 1 : 0),
    ),
    fromView(source, 'yacron2_cluster_leader_info', 'info', 'The elected leader', (view, sink) => {
      if (view.leaderName !== null) {
        sink('yacron2_cluster_leader_info', labelPair('leader', view.leaderName), 1);
      }
    }),
    fromView(
      source,
      'yacron2_cluster_conflict',
      'gauge',
      'Whether a conflict of this kind stands Leader jobs down (1) or not (0)',
      (view, sink) => {
        for (const kind of ['nodename', 'size', 'policy'] as const) {
          sink('yacron2_cluster_conflict', labelPair('kind', kind), view.conflicts[kind] ? 1 : 0);
        }
      },
    ),
    fromView(
      source,
      'yacron2_cluster_peers',
      'gauge',
      'Configured peers by status',
      (view, sink) => {
        if (view.peerStatuses === null || view.peerStatuses.length === 0) return;
        const total = view.peerStatuses.reduce((sum, [, count]) => sum + count, 0);
        if (total === 0) return;
        for (const [status, count] of view.peerStatuses) {
          sink('yacron2_cluster_peers', labelPair('status', status), count);
        }
      },
    ),
  ];
}
