// The three conflicts that stand Leader jobs down (docs/clustering.md "Conflicts"): a duplicate
// nodeName (first-hand, or corroborated one hop away by two reporters), an agreeing peer that
// declares another cluster size, and one that declares another distribution or electLeader.
// Pure. Must not: let one multi-homed peer corroborate its own claim (reporters are instances).
import { compareCodePoints, pythonRepr, sortByCodePoint } from '../common/index.js';
import { isStale } from './peer-state.js';
import type { ConflictReport } from '../leadership/index.js';
import type { Distribution, PeerView } from './types.js';

export interface ConflictIdentity {
  readonly nodeName: string;
  readonly instanceId: string;
  readonly electLeader: boolean;
  readonly distribution: Distribution;
}

export type Conflicts = ConflictReport;

export function hasConflict(conflicts: Conflicts): boolean {
  return conflicts.names.length > 0 || conflicts.sizes.length > 0 || conflicts.policies.length > 0;
}

export function findConflicts(
  me: ConflictIdentity,
  peers: readonly PeerView[],
  clusterSize: number,
): Conflicts {
  return {
    names: duplicateNames(me, peers),
    sizes: [
      ...new Set(
        peers
          .filter((peer) => peer.status === 'agreed' && peer.declaredSize !== null)
          .map((peer) => peer.declaredSize ?? clusterSize)
          .filter((size) => size !== clusterSize),
      ),
    ].sort((a, b) => a - b),
    policies: policyDivergences(me, peers),
  };
}

function duplicateNames(me: ConflictIdentity, peers: readonly PeerView[]): string[] {
  const firstParty = new Map<string, Set<string>>();
  // name -> instance -> the reporting instances
  const transitive = new Map<string, Map<string, Set<string>>>();
  const claim = (name: string, instance: string): void => {
    let instances = firstParty.get(name);
    if (instances === undefined) firstParty.set(name, (instances = new Set()));
    instances.add(instance);
  };
  claim(me.nodeName, me.instanceId);
  for (const peer of peers) {
    if (isStale(peer) || peer.status === 'self' || peer.nodeName === null) continue;
    const reporter = peer.instanceId ?? `host:${peer.host}`;
    claim(peer.nodeName, reporter);
    for (const entry of peer.members ?? []) {
      if (entry.instanceId === null) continue;
      let byInstance = transitive.get(entry.nodeName);
      if (byInstance === undefined)
        transitive.set(entry.nodeName, (byInstance = new Map<string, Set<string>>()));
      let reporters = byInstance.get(entry.instanceId);
      if (reporters === undefined) byInstance.set(entry.instanceId, (reporters = new Set()));
      reporters.add(reporter);
    }
  }
  const names = new Set([...firstParty.keys(), ...transitive.keys()]);
  const duplicated: string[] = [];
  for (const name of names) {
    const credible = new Set(firstParty.get(name));
    for (const [instance, reporters] of transitive.get(name) ?? []) {
      if (reporters.size >= 2) credible.add(instance);
    }
    if (credible.size >= 2) duplicated.push(name);
  }
  return sortByCodePoint(duplicated);
}

function policyDivergences(me: ConflictIdentity, peers: readonly PeerView[]): string[] {
  const out = new Set<string>();
  for (const peer of peers) {
    if (peer.status !== 'agreed') continue;
    if (peer.declaredDistribution !== null && peer.declaredDistribution !== me.distribution) {
      out.add(
        `distribution ${pythonRepr(peer.declaredDistribution)} != ${pythonRepr(me.distribution)}`,
      );
    }
    if (peer.declaredElectLeader !== null && peer.declaredElectLeader !== me.electLeader) {
      out.add(
        `electLeader ${pythonBool(peer.declaredElectLeader)} != ${pythonBool(me.electLeader)}`,
      );
    }
  }
  return [...out].sort(compareCodePoints);
}

function pythonBool(value: boolean): string {
  return value ? 'True' : 'False';
}
