// Leadership, quorum and conflict transitions (docs/clustering.md "Logs and metrics"): evaluated
// once per scheduler pass from the current backend (none = not quorate, not leader), logged once
// per change, counted for yacron2_cluster_*_transitions_total and emitted as typed events.
// It outlives backend rebuilds. Must not: count or log while election is not configured.
import { TypedEmitter } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import { meshOf } from './gate.js';
import type { ConflictReport, LeadershipBackend } from './types.js';

export type ConflictKind = 'nodename' | 'size' | 'policy';

export interface LeadershipEvents {
  [event: string]: unknown;
  'leader:changed': { readonly isLeader: boolean; readonly leaderName: string | null };
  'quorum:changed': { readonly quorate: boolean };
  'conflict:changed': { readonly kind: ConflictKind; readonly active: boolean };
}

interface Observed {
  readonly quorate: boolean;
  readonly leader: boolean;
  readonly names: readonly string[];
  readonly sizes: readonly number[];
  readonly policies: readonly string[];
}

const NO_CONFLICTS: ConflictReport = { names: [], sizes: [], policies: [] };
const NOTHING: Observed = { quorate: false, leader: false, names: [], sizes: [], policies: [] };

export class LeadershipTransitions {
  readonly events = new TypedEmitter<LeadershipEvents>();
  readonly #logger: Logger;
  #last: Observed = NOTHING;
  #leaderTransitions = 0;
  #quorumTransitions = 0;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  get leaderTransitions(): number {
    return this.#leaderTransitions;
  }

  get quorumTransitions(): number {
    return this.#quorumTransitions;
  }

  /** One scheduler pass: compare the backend's state with the last pass. */
  evaluate(electLeaderConfigured: boolean, backend: LeadershipBackend | null): void {
    if (!electLeaderConfigured) {
      this.#last = NOTHING;
      return;
    }
    const next = observe(backend);
    const mesh = backend === null ? null : meshOf(backend);
    const distribution = mesh?.distribution ?? 'single-leader';
    this.#conflictTransitions(next, mesh?.clusterSize() ?? 1);
    if (next.quorate !== this.#last.quorate) {
      this.#quorumTransitions += 1;
      const spread = distribution === 'spread';
      this.#logger.info(
        next.quorate
          ? `cluster: this node joined quorum${spread ? '; per-job ownership active' : ''}`
          : spread
            ? 'cluster: this node left quorum; per-job ownership suspended'
            : 'cluster: this node left quorum; no majority reachable, so Leader jobs cannot run until one is',
      );
      this.events.emit('quorum:changed', { quorate: next.quorate });
    }
    const leader = distribution === 'single-leader' && next.leader;
    if (leader !== this.#last.leader) {
      this.#leaderTransitions += 1;
      this.#logger.info(
        `cluster: this node ${leader ? 'acquired' : 'lost'} scheduled-job leadership`,
      );
      this.events.emit('leader:changed', {
        isLeader: leader,
        leaderName: backend?.leaderName() ?? null,
      });
    }
    this.#last = { ...next, leader };
  }

  /**
   * The backend is being stopped for a rebuild (a config or certificate change): held leadership
   * and quorum end now, logged with that reason and counted.
   */
  managerStopping(): void {
    if (this.#last.leader) {
      this.#leaderTransitions += 1;
      this.#logger.info(
        'cluster: this node lost scheduled-job leadership (leadership manager stopped for reload)',
      );
      this.events.emit('leader:changed', { isLeader: false, leaderName: null });
    }
    if (this.#last.quorate) {
      this.#quorumTransitions += 1;
      this.#logger.info(
        'cluster: this node left quorum (leadership manager stopped for reload); Leader jobs stand down until the new manager sees a majority',
      );
      this.events.emit('quorum:changed', { quorate: false });
    }
    this.#last = { ...this.#last, quorate: false, leader: false };
  }

  #conflictTransitions(next: Observed, clusterSize: number): void {
    for (const kind of CONFLICT_KINDS) {
      const active = conflictLines[kind].present(next);
      if (active === conflictLines[kind].present(this.#last)) continue;
      if (active) this.#logger.error(conflictLines[kind].onset(next, clusterSize));
      else this.#logger.info(conflictLines[kind].cleared);
      this.events.emit('conflict:changed', { kind, active });
    }
  }
}

const CONFLICT_KINDS = ['nodename', 'size', 'policy'] as const;

/** Each conflict kind: when it is present, its ERROR onset line and its INFO clear line. */
const conflictLines: Record<
  ConflictKind,
  {
    present(observed: Observed): boolean;
    onset(observed: Observed, clusterSize: number): string;
    readonly cleared: string;
  }
> = {
  nodename: {
    present: (observed) => observed.names.length > 0,
    onset: (observed) =>
      `cluster: duplicate nodeName detected (${observed.names.join(', ')}) -- Leader jobs will stand down until every node has a unique cluster.nodeName`,
    cleared: 'cluster: nodeName conflict resolved; Leader jobs may run again',
  },
  size: {
    present: (observed) => observed.sizes.length > 0,
    onset: (observed, clusterSize) =>
      `cluster: cluster-size disagreement -- agreeing peers declare ${observed.sizes.join(', ')} but we declare ${clusterSize}; Leader jobs will stand down until every node's cluster.peers agree on the member set`,
    cleared: 'cluster: cluster-size disagreement resolved; Leader jobs may run again',
  },
  policy: {
    present: (observed) => observed.policies.length > 0,
    onset: (observed) =>
      `cluster: coordination-policy divergence -- agreeing peers declare ${observed.policies.join('; ')}; Leader jobs will stand down until every node's cluster.distribution and cluster.electLeader agree`,
    cleared: 'cluster: coordination-policy divergence resolved; Leader jobs may run again',
  },
};

function observe(backend: LeadershipBackend | null): Observed {
  if (backend === null) return NOTHING;
  const conflicts = meshOf(backend)?.conflicts() ?? NO_CONFLICTS;
  return {
    quorate: backend.isQuorate(),
    leader: backend.isLeader(),
    names: conflicts.names,
    sizes: conflicts.sizes,
    policies: conflicts.policies,
  };
}
