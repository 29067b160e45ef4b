// A gossip-shaped LeadershipBackend whose answers a test sets directly, and a LeadershipSource around it, for
// gate, @reboot and scheduler tests that are about decisions rather than elections.
// Must not: be used by the daemon.
import type {
  ClusterDistribution,
  ConflictReport,
  LeadershipBackend,
  LeadershipSource,
  MeshLeadership,
} from './types.js';

export interface StaticLeadershipState {
  nodeName: string;
  distribution: ClusterDistribution;
  clusterSize: number;
  quorate: boolean;
  leaderName: string | null;
  conflicts: ConflictReport;
  viewSettled: boolean;
  /** A peer vouches for this node's quorum (see MeshLeadership.quorumConfirmed). */
  quorumConfirmed: boolean;
  availableLeaderName: string;
  /** Per-job owners; absent jobs are owned by `defaultOwner`. */
  jobOwners: Map<string, string | null>;
  availableJobOwners: Map<string, string>;
  defaultOwner: string | null;
  rebootRan: Set<string>;
  /** Names passed to markRebootRan, in order. */
  marked: string[];
}

export class StaticLeadership implements MeshLeadership {
  readonly backend = 'gossip';
  readonly state: StaticLeadershipState;

  constructor(state: Partial<StaticLeadershipState> = {}) {
    const nodeName = state.nodeName ?? 'me';
    this.state = {
      nodeName,
      distribution: 'single-leader',
      clusterSize: 3,
      quorate: true,
      leaderName: nodeName,
      conflicts: { names: [], sizes: [], policies: [] },
      viewSettled: true,
      quorumConfirmed: true,
      availableLeaderName: nodeName,
      jobOwners: new Map(),
      availableJobOwners: new Map(),
      defaultOwner: nodeName,
      rebootRan: new Set(),
      marked: [],
      ...state,
    };
  }

  get nodeName(): string {
    return this.state.nodeName;
  }
  get distribution(): ClusterDistribution {
    return this.state.distribution;
  }
  clusterSize(): number {
    return this.state.clusterSize;
  }
  isQuorate(): boolean {
    return this.state.quorate;
  }
  isLeader(): boolean {
    return this.state.quorate && this.state.leaderName === this.state.nodeName;
  }
  leaderName(): string | null {
    return this.state.quorate ? this.state.leaderName : null;
  }
  hasConflict(): boolean {
    const { names, sizes, policies } = this.state.conflicts;
    return names.length + sizes.length + policies.length > 0;
  }
  conflicts(): ConflictReport {
    return this.state.conflicts;
  }
  viewSettled(): boolean {
    return this.state.viewSettled;
  }
  quorumConfirmed(): boolean {
    return this.state.quorate && this.state.quorumConfirmed;
  }
  jobOwner(job: string): string | null {
    if (!this.state.quorate) return null;
    return this.state.jobOwners.has(job)
      ? (this.state.jobOwners.get(job) ?? null)
      : this.state.defaultOwner;
  }
  isJobOwner(job: string): boolean {
    return this.jobOwner(job) === this.state.nodeName;
  }
  availableLeaderName(): string {
    return this.state.availableLeaderName;
  }
  isAvailableLeader(): boolean {
    return this.state.viewSettled && this.state.availableLeaderName === this.state.nodeName;
  }
  availableJobOwner(job: string): string {
    return this.state.availableJobOwners.get(job) ?? this.state.defaultOwner ?? this.state.nodeName;
  }
  isAvailableJobOwner(job: string): boolean {
    return this.state.viewSettled && this.availableJobOwner(job) === this.state.nodeName;
  }
  rebootRan(job: string): boolean {
    return this.state.rebootRan.has(job);
  }
  markRebootRan(job: string): Promise<void> {
    this.state.marked.push(job);
    this.state.rebootRan.add(job);
    return Promise.resolve();
  }
}

/** A source whose election flag and backend a test swaps at will. */
export class StaticLeadershipSource implements LeadershipSource {
  electLeader: boolean;
  backend: LeadershipBackend | null;

  constructor(electLeader: boolean, backend: LeadershipBackend | null) {
    this.electLeader = electLeader;
    this.backend = backend;
  }

  electLeaderConfigured(): boolean {
    return this.electLeader;
  }

  current(): LeadershipBackend | null {
    return this.backend;
  }
}
