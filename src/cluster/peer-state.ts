// The per-peer state machine (docs/clustering.md "Per-peer status"): how one poll outcome moves a
// configured peer between unknown / self / conflict / agreed / syncing / drifted / unreachable /
// untrusted, with the drift debounce. Deterministic; it mutates only the record it is given.
// Must not: reset the drift streak on a failed round (a flapping peer could postpone `drifted`).
import { pythonRepr } from '../common/index.js';
import {
  FINGERPRINT_SCHEME,
  type NodeStatsReading,
  type PeerObservation,
  type PeerRecord,
} from './types.js';

/** Who this node is, as the state machine compares a peer's report against it. */
export interface LocalIdentity {
  readonly nodeName: string;
  readonly instanceId: string;
  /** The live job-set id (it may change between rounds on a reload). */
  readonly jobSetId: string;
  readonly driftAfter: number;
}

export function newPeerRecord(host: string): PeerRecord {
  return {
    host,
    status: 'unknown',
    mismatchStreak: 0,
    selfConfirmed: false,
    nodeName: null,
    jobSetId: null,
    instanceId: null,
    lastSeenMs: null,
    lastError: null,
    members: null,
    reportsMembers: false,
    ranRebootJobs: null,
    mutualAgreeing: null,
    quorateVouched: null,
    declaredSize: null,
    declaredDistribution: null,
    declaredElectLeader: null,
    summaries: null,
    nodeStats: null,
    nodeStatsAtMs: null,
  };
}

/** A successful poll (a fresh body, or a 304 replaying the cached one). */
export function applyPeerSuccess(
  peer: PeerRecord,
  observation: PeerObservation,
  me: LocalIdentity,
  nowMs: number,
  nodeStats: NodeStatsReading | null,
): void {
  peer.nodeName = observation.nodeName;
  peer.jobSetId = observation.jobSetId;
  peer.instanceId = observation.instanceId;
  peer.members = observation.members;
  peer.reportsMembers = observation.reportsMembers;
  peer.ranRebootJobs = observation.ranRebootJobs;
  peer.declaredSize = observation.declaredSize;
  peer.declaredDistribution = observation.declaredDistribution;
  peer.declaredElectLeader = observation.declaredElectLeader;
  peer.mutualAgreeing = observation.mutualAgreeing;
  peer.quorateVouched = observation.quorateVouched;
  if (observation.summaries !== null) peer.summaries = observation.summaries;
  if (nodeStats !== null) {
    peer.nodeStats = nodeStats;
    peer.nodeStatsAtMs = nowMs;
  }
  peer.lastSeenMs = nowMs;
  peer.lastError = null;
  peer.selfConfirmed = false;

  const name = observation.nodeName;
  const instance = observation.instanceId;
  const scheme = observation.schemeVersion;
  if (name === me.nodeName && instance !== null && instance !== me.instanceId) {
    peer.status = 'conflict';
    peer.lastError = `duplicate nodeName ${pythonRepr(name)}: peer is a different instance`;
  } else if (name === me.nodeName) {
    peer.status = 'self';
    peer.mismatchStreak = 0;
    peer.selfConfirmed = true;
  } else if (scheme !== null && scheme !== FINGERPRINT_SCHEME) {
    peer.status = 'drifted';
    peer.lastError = `fingerprint scheme mismatch: ${pythonRepr(scheme)} != ${pythonRepr(FINGERPRINT_SCHEME)}`;
  } else if (observation.jobSetId === me.jobSetId) {
    peer.status = 'agreed';
    peer.mismatchStreak = 0;
  } else {
    peer.mismatchStreak += 1;
    peer.status = peer.mismatchStreak >= me.driftAfter ? 'drifted' : 'syncing';
  }
}

/**
 * A failed poll: the gossip sets are forgotten (a silent peer vouches for nothing), while the
 * identity, declared fields, streak, summaries and node stats are kept, so the cluster size stays
 * deduplicated and the fleet view keeps its last snapshot while the peer is down.
 */
export function applyPeerFailure(peer: PeerRecord, error: string, untrusted: boolean): void {
  peer.lastError = error;
  peer.status = peer.selfConfirmed ? 'self' : untrusted ? 'untrusted' : 'unreachable';
  peer.members = null;
  peer.ranRebootJobs = null;
  peer.mutualAgreeing = null;
  peer.quorateVouched = null;
  peer.reportsMembers = false;
}

/** Statuses that mean "not heard from this round" (no gossip sets are held). */
export function isStale(peer: Readonly<PeerRecord>): boolean {
  return peer.status === 'unknown' || peer.status === 'unreachable' || peer.status === 'untrusted';
}
