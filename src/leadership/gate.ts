// The cluster gate (docs/clustering.md "The per-job decision"): may this node run this job now,
// for a scheduled fire, an @reboot one-shot, a backfill, a DAG or a retry; and for a due retry
// that is denied, whether to defer it or abandon it because ownership moved. Backend-independent.
// Must not: gate manual starts, or let a throwing read allow a run (it fails closed).
import { describeError } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type {
  ClusterDistribution,
  ClusterVerdict,
  GatedJob,
  GateTrigger,
  LeadershipBackend,
  LeadershipSource,
  MeshLeadership,
  RetryGateDecision,
} from './types.js';

type Deny = ClusterVerdict & { readonly kind: 'deny' };

const deny = (reason: Deny['reason'], detail: string): Deny => ({ kind: 'deny', reason, detail });

/** The decision table, first match; `backend` reads may throw (the caller fails closed). */
export function decideClusterGate(
  job: GatedJob,
  trigger: GateTrigger,
  electLeaderConfigured: boolean,
  backend: LeadershipBackend | null,
): ClusterVerdict {
  if (trigger === 'manual') return { kind: 'allow', basis: 'manual' };
  if (!electLeaderConfigured) return { kind: 'allow', basis: 'election-off' };
  switch (job.clusterPolicy) {
    case 'EveryNode':
      return { kind: 'allow', basis: 'every-node' };
    case 'PreferLeader':
      if (backend === null) return { kind: 'allow', basis: 'no-manager-never-skip' };
      return preferLeader(job.name, backend);
    case 'Leader':
      if (backend === null) {
        return deny('no-manager', 'no cluster manager is running, so Leader jobs fail closed');
      }
      return leader(job.name, backend);
  }
}

/** How the backend splits Leader work: a lease backend always has one leader. */
export function leadershipDistribution(backend: LeadershipBackend): ClusterDistribution {
  return meshOf(backend)?.distribution ?? 'single-leader';
}

/** The gossip mesh's own reads, or null for a lease backend. */
export function meshOf(backend: LeadershipBackend): MeshLeadership | null {
  return backend.backend === 'gossip' ? backend : null;
}

/** The mesh whose jobs are spread over owners, or null (single leader, or a lease backend). */
function spreadMesh(backend: LeadershipBackend): MeshLeadership | null {
  const mesh = meshOf(backend);
  return mesh?.distribution === 'spread' ? mesh : null;
}

function preferLeader(job: string, backend: LeadershipBackend): ClusterVerdict {
  const spread = spreadMesh(backend);
  if (spread ? spread.isAvailableJobOwner(job) : backend.isAvailableLeader()) {
    return { kind: 'allow', basis: spread ? 'available-job-owner' : 'available-leader' };
  }
  if (meshOf(backend)?.viewSettled() === false) {
    return deny('converging', 'the cluster view is still converging after a (re)build');
  }
  const owner = spread ? spread.availableJobOwner(job) : backend.availableLeaderName();
  const reason = spread ? 'not-owner' : 'not-leader';
  if (owner !== backend.nodeName) {
    return deny(reason, `the lowest reachable agreeing ${spread ? 'owner' : 'node'} is ${owner}`);
  }
  return deny(reason, 'an instance of this nodeName with a lower instance id takes it');
}

function leader(job: string, backend: LeadershipBackend): ClusterVerdict {
  if (meshOf(backend)?.hasConflict() === true) {
    return deny('conflict', 'a cluster conflict (nodeName, size or policy) is visible');
  }
  if (!backend.isQuorate()) return deny('no-quorum', 'this node sees no quorum');
  const spread = spreadMesh(backend);
  if (spread) {
    if (!spread.isJobOwner(job)) {
      return deny('not-owner', `the owner of this job is ${spread.jobOwner(job) ?? 'unconfirmed'}`);
    }
    return confirmed(spread) ?? { kind: 'allow', basis: 'job-owner' };
  }
  if (!backend.isLeader()) {
    return deny('not-leader', `the elected leader is ${backend.leaderName() ?? 'unknown'}`);
  }
  return confirmed(backend) ?? handedOver(backend) ?? { kind: 'allow', basis: 'leader' };
}

/**
 * A lease holder that has just gained the lease holds its Leader jobs for a second: slots are
 * named by the firing node's wall clock, so a new holder whose clock runs behind the previous
 * holder's would otherwise fire again the slots that holder ran last (docs/clustering.md
 * "Clock skew").
 */
function handedOver(backend: LeadershipBackend): Deny | null {
  if (backend.backend === 'gossip' || !backend.handoverHeld()) return null;
  return deny('handover', 'this node gained the lease under a second ago (the clock-skew hold)');
}

/**
 * A node that joins (or comes back) leads its own view up to a round before the others cede to
 * it; the Leader contract is "a skip, never a double", so it waits until a peer vouches for its
 * quorum (docs/clustering.md "Guarantees and trade-offs"). A held lease needs no peer.
 */
function confirmed(backend: LeadershipBackend): Deny | null {
  if (meshOf(backend)?.quorumConfirmed() !== false) return null;
  return deny('unconfirmed', 'no peer has confirmed this node quorate yet');
}

/**
 * Whether ownership of `job` positively moved to another node: a running backend, no conflict, a
 * quorum, a settled view, and the availability owner is someone else. Anything less is transient.
 */
export function ownershipMoved(job: string, backend: LeadershipBackend | null): boolean {
  if (backend === null) return false;
  const mesh = meshOf(backend);
  if (mesh?.hasConflict() === true || !backend.isQuorate()) return false;
  if (mesh !== null && !mesh.viewSettled()) return false;
  const spread = spreadMesh(backend);
  return spread ? !spread.isAvailableJobOwner(job) : !backend.isAvailableLeader();
}

/** The gate the scheduler consults, reading the current backend from its source. */
export class ClusterGate {
  readonly #source: LeadershipSource;
  readonly #logger: Logger;

  constructor(source: LeadershipSource, logger: Logger) {
    this.#source = source;
    this.#logger = logger;
  }

  /** May this node run `job` now? Synchronous; never throws. */
  verdict(job: GatedJob, trigger: GateTrigger): ClusterVerdict {
    try {
      return decideClusterGate(
        job,
        trigger,
        this.#source.electLeaderConfigured(),
        this.#source.current(),
      );
    } catch (error) {
      this.#logger.error(
        `cluster: error evaluating the leader gate for job ${job.name}; failing closed: ${describeError(error)}`,
      );
      return deny('error', describeError(error));
    }
  }

  /** A due retry: launch, defer (transient denial) or abandon (ownership moved). */
  retryDecision(job: GatedJob): RetryGateDecision {
    const verdict = this.verdict(job, 'retry');
    if (verdict.kind === 'allow') return { kind: 'launch' };
    let moved = false;
    try {
      moved = ownershipMoved(job.name, this.#source.current());
    } catch {
      moved = false; // a read error is not a positive observation
    }
    return moved ? { kind: 'abandon', verdict } : { kind: 'defer', verdict };
  }

  /** Whether ownership of `job` positively moved (for a pending retry); false on a read error. */
  observedOwnershipMove(job: GatedJob): boolean {
    try {
      return ownershipMoved(job.name, this.#source.current());
    } catch {
      return false;
    }
  }
}
