// What this node derives from its peer records (docs/clustering.md "Derived sets"): the effective
// cluster size, the mutually agreeing live set, the confirmed candidates (incl. bridges), the
// unconfirmed and available contenders, the leaders, and whether a fresh view has settled.
// Pure. Must not: count a self-listing or a second address of one instance toward the size.
import { sortByCodePoint } from '../common/index.js';
import { electAvailableLeader, electLeader, quorumSize } from './elect.js';
import { isStale } from './peer-state.js';
import type { Distribution, PeerView } from './types.js';

/** This node's side of every comparison. */
export interface ViewIdentity {
  readonly nodeName: string;
  readonly instanceId: string;
  readonly electLeader: boolean;
  readonly distribution: Distribution;
}

export interface DerivedSets {
  readonly clusterSize: number;
  readonly quorum: number;
  /** Mutually agreeing peers, config order, one per instance. */
  readonly live: readonly PeerView[];
  readonly liveNames: readonly string[];
  /** Non-live names enough live peers agree with to be confirmed quorate (sorted). */
  readonly bridge: readonly string[];
  /** Quorate-confirmed candidates: live peers that report a quorum, then the bridge. */
  readonly eligible: readonly string[];
  /** Names live peers vouch for that we cannot confirm (sorted). */
  readonly unconfirmed: readonly string[];
  /** Names live peers agree with, without any quorum test (sorted). */
  readonly availableContenders: readonly string[];
  readonly leaderName: string | null;
  readonly availableLeaderName: string;
  /** live ++ available contenders: the availability electorate. */
  readonly availableView: readonly string[];
  /** eligible ++ unconfirmed: the quorum-gated per-job electorate (besides this node). */
  readonly ownerCandidates: readonly string[];
  /** Identify the two lists above (per-job owners are cached while they stay the same). */
  readonly availableViewKey: string;
  readonly ownerCandidatesKey: string;
  readonly viewSettled: boolean;
}

/** Rounds after a (re)build after which the view counts as settled whatever peers report. */
export const SETTLE_ROUNDS = 3;

export function deriveSets(
  me: ViewIdentity,
  peers: readonly PeerView[],
  completedRounds: number,
): DerivedSets {
  const clusterSize = effectiveClusterSize(peers);
  const quorum = quorumSize(clusterSize);
  const live = liveSet(me, peers, clusterSize);
  const liveNames = live.map((peer) => peer.nodeName ?? '');
  const liveNameSet = new Set(liveNames);

  const witnesses = new Map<string, Set<string>>();
  for (const witness of live) {
    for (const name of witness.mutualAgreeing ?? []) {
      if (name === me.nodeName || liveNameSet.has(name)) continue;
      let by = witnesses.get(name);
      if (by === undefined) witnesses.set(name, (by = new Set()));
      by.add(witness.nodeName ?? '');
    }
  }
  const bridge = sortByCodePoint(
    [...witnesses].filter(([, by]) => by.size + 1 >= quorum).map(([name]) => name),
  );
  const eligible = [
    ...live
      .filter((peer) => (peer.mutualAgreeing?.size ?? 0) + 1 >= quorum)
      .map((peer) => peer.nodeName ?? ''),
    ...bridge,
  ];
  const eligibleSet = new Set(eligible);
  const outsiders = (pick: (peer: PeerView) => ReadonlySet<string> | null): Set<string> => {
    const out = new Set<string>();
    for (const peer of live) {
      for (const name of pick(peer) ?? []) {
        if (name !== '' && name !== me.nodeName && !liveNameSet.has(name)) out.add(name);
      }
    }
    return out;
  };
  const unconfirmed = sortByCodePoint(
    [...outsiders((peer) => peer.quorateVouched)].filter((name) => !eligibleSet.has(name)),
  );
  const availableContenders = sortByCodePoint(outsiders((peer) => peer.mutualAgreeing));
  const availableView = [...liveNames, ...availableContenders];
  const ownerCandidates = [...eligible, ...unconfirmed];
  return {
    clusterSize,
    quorum,
    live,
    liveNames,
    bridge,
    eligible,
    unconfirmed,
    availableContenders,
    leaderName: electLeader(me.nodeName, liveNames, clusterSize, eligible),
    availableLeaderName: electAvailableLeader(me.nodeName, availableView),
    availableView,
    ownerCandidates,
    availableViewKey: JSON.stringify(availableView),
    ownerCandidatesKey: JSON.stringify(ownerCandidates),
    viewSettled: isViewSettled(me, peers, completedRounds),
  };
}

/**
 * N = configured peers + 1, minus self-listings, minus every further address of an instance
 * already counted (a stale peer keeps its last instance id, so a multi-homed node stays one).
 */
export function effectiveClusterSize(peers: readonly PeerView[]): number {
  let size = peers.length + 1;
  const seen = new Set<string>();
  for (const peer of peers) {
    if (peer.status === 'self') {
      size -= 1;
      continue;
    }
    if (peer.instanceId === null) continue;
    if (seen.has(peer.instanceId)) size -= 1;
    else seen.add(peer.instanceId);
  }
  return size;
}

/**
 * Peers that agree with us and see us agreeing with them (a legacy peer without a members list
 * is taken to), declaring our size and coordination policy; one entry per instance.
 */
function liveSet(me: ViewIdentity, peers: readonly PeerView[], clusterSize: number): PeerView[] {
  const live: PeerView[] = [];
  const taken = new Set<string>();
  for (const peer of peers) {
    if (peer.status !== 'agreed' || peer.nodeName === null) continue;
    const seesUs =
      !peer.reportsMembers ||
      (peer.members ?? []).some((entry) => entry.agreed && entry.instanceId === me.instanceId);
    if (!seesUs) continue;
    if (peer.declaredSize !== null && peer.declaredSize !== clusterSize) continue;
    if (peer.declaredDistribution !== null && peer.declaredDistribution !== me.distribution)
      continue;
    if (peer.declaredElectLeader !== null && peer.declaredElectLeader !== me.electLeader) continue;
    if (peer.instanceId !== null) {
      if (taken.has(peer.instanceId)) continue;
      taken.add(peer.instanceId);
    }
    live.push(peer);
  }
  return live;
}

/**
 * A fresh manager's view is unsettled while any peer is unpolled, and (for at most the first
 * SETTLE_ROUNDS rounds) while an agreed peer has not yet seen this incarnation.
 */
function isViewSettled(
  me: ViewIdentity,
  peers: readonly PeerView[],
  completedRounds: number,
): boolean {
  if (peers.some((peer) => peer.status === 'unknown')) return false;
  if (completedRounds >= SETTLE_ROUNDS) return true;
  return !peers.some(
    (peer) =>
      peer.status === 'agreed' &&
      peer.reportsMembers &&
      !(peer.members ?? []).some((entry) => entry.instanceId === me.instanceId),
  );
}

/**
 * Whether a live duplicate of our own name (a lower instance id) owns what we would own: then it
 * runs the availability-owned work and we stand aside. `owns(name, view)` is the policy's test.
 */
export function cedesToDuplicate(
  me: ViewIdentity,
  peers: readonly PeerView[],
  owns: (name: string, view: ReadonlySet<string>) => boolean,
): boolean {
  return peers.some(
    (peer) =>
      !isStale(peer) &&
      peer.nodeName === me.nodeName &&
      peer.instanceId !== null &&
      peer.instanceId !== '' &&
      peer.instanceId < me.instanceId &&
      owns(me.nodeName, peer.mutualAgreeing ?? new Set()),
  );
}
