// The fleet view (docs/clustering.md "Observing the cluster"): this node's own job summaries and
// every peer's last gossiped ones, served from held state with no peer traffic. Display only.
// Domain values (epoch ms); the HTTP layer renders GET /fleet.
// Must not: show a self-listing, or one instance twice (a multi-homed peer is listed once).
import type { GossipNode } from './gossip-node.js';
import { freshNodeStats } from './node-stats.js';
import type { AdvertisedJobs, JobSummary, NodeStatsReading, PeerStatus } from './types.js';

export interface FleetNode {
  readonly nodeName: string | null;
  /** null for this node. */
  readonly host: string | null;
  readonly self: boolean;
  readonly status: PeerStatus;
  /** When the jobs were true: now for this node, the last poll for a peer. */
  readonly asOfMs: number | null;
  readonly truncated: boolean;
  /** null: no snapshot ever received from that node. */
  readonly jobs: ReadonlyMap<string, JobSummary> | null;
  readonly nodeStats: NodeStatsReading | null;
}

export interface FleetStatus {
  readonly backend: 'gossip';
  readonly nodeName: string;
  readonly distribution: 'single-leader' | 'spread';
  readonly electLeader: boolean;
  readonly intervalMs: number;
  readonly nodes: readonly FleetNode[];
}

export interface FleetInputs {
  /** What this node advertises of its own jobs. */
  readonly ownJobs: AdvertisedJobs;
  readonly ownStats: NodeStatsReading | null;
  readonly nowMs: number;
  readonly intervalMs: number;
}

export function describeFleet(node: GossipNode, inputs: FleetInputs): FleetStatus {
  const { nowMs, intervalMs } = inputs;
  const own = inputs.ownJobs;
  const nodes: FleetNode[] = [
    {
      nodeName: node.nodeName,
      host: null,
      self: true,
      status: 'self',
      asOfMs: nowMs,
      truncated: own.truncated,
      jobs: own.jobs,
      nodeStats: inputs.ownStats,
    },
  ];
  const seen = new Set<string>([node.instanceId]);
  for (const peer of node.peers()) {
    if (peer.status === 'self') continue;
    if (peer.instanceId !== null) {
      if (seen.has(peer.instanceId)) continue;
      seen.add(peer.instanceId);
    }
    const summaries = peer.summaries;
    nodes.push({
      nodeName: peer.nodeName,
      host: peer.host,
      self: false,
      status: peer.status,
      asOfMs: peer.lastSeenMs,
      truncated: summaries?.truncated ?? false,
      jobs: summaries === null ? null : aged(summaries.jobs, nowMs - summaries.receivedAtMs),
      nodeStats: freshNodeStats(peer, nowMs, intervalMs),
    });
  }
  return {
    backend: 'gossip',
    nodeName: node.nodeName,
    distribution: node.distribution,
    electLeader: node.settings.electLeader,
    intervalMs,
    nodes,
  };
}

/** `scheduled_in` counted down by the age of the snapshot, clamped at 0. */
function aged(jobs: ReadonlyMap<string, JobSummary>, ageMs: number): Map<string, JobSummary> {
  const out = new Map<string, JobSummary>();
  for (const [name, job] of jobs) {
    out.set(
      name,
      job.scheduledInSeconds === null
        ? job
        : { ...job, scheduledInSeconds: Math.max(0, job.scheduledInSeconds - ageMs / 1000) },
    );
  }
  return out;
}
