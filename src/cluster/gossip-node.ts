// One gossip node without timers (docs/clustering.md "Rounds"): its peer records, the /peer
// handler it serves, one polling round, and every read the leadership gate and the views need.
// The manager (gossip-manager.ts) adds the listener, the round loop and the lifecycle; the mesh
// tests drive rounds directly. Must not: do I/O from a read (reads answer from held state).
import { randomBytes } from 'node:crypto';
import { describeError, minByCodePoint, sortByCodePoint, type Clock } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { MeshLeadership } from '../leadership/index.js';
import { findConflicts, hasConflict, type Conflicts } from './conflicts.js';
import {
  cedesToDuplicate,
  deriveSets,
  type DerivedSets,
  type ViewIdentity,
} from './derived-sets.js';
import { hrwOwner } from './elect.js';
import { RendezvousOwners, ScoreCache } from './owner-cache.js';
import { NO_ADVERTISED_JOBS, summariesWire } from './job-summaries.js';
import { buildPeerPayload } from './payload-build.js';
import { createPeerHandler } from './peer-handler.js';
import type { PeerPayload, RebootRanPayload } from './peer-payload.js';
import { degenerateSelfListingWarning, logPeerTransition } from './peer-logs.js';
import { PeerPollCache, pollPeer, type PollOutcome } from './peer-poll.js';
import { applyPeerFailure, applyPeerSuccess, isStale, newPeerRecord } from './peer-state.js';
import { advertisedRanList, RebootRanSet } from './ran-set.js';
import type { PeerRequestHandler, PeerTransport } from './transport.js';
import type {
  Distribution,
  AdvertisedJobs,
  MemberEntry,
  NodeStatsReading,
  PeerRecord,
  PeerView,
} from './types.js';

/** The parts of the resolved gossip config a node runs on. */
export interface GossipSettings {
  readonly nodeName: string;
  /** Normalised peer hosts, config order. */
  readonly peers: readonly string[];
  readonly electLeader: boolean;
  readonly distribution: Distribution;
  readonly driftAfter: number;
  readonly connectTimeoutMs: number;
  /**
   * The round period, for stall detection (absent: never stale; the mesh tests drive rounds by
   * hand).
   */
  readonly intervalMs?: number;
}

/**
 * How much later than due the node may make progress before its view counts as stale: a round
 * due `interval` after the last one ended, or a round in flight past its `connectTimeout`
 * (docs/clustering.md "Rounds").
 */
export function stallToleranceMs(intervalMs: number): number {
  return Math.max(1000, intervalMs);
}

export interface GossipNodeDeps {
  readonly clock: Clock;
  readonly transport: PeerTransport;
  readonly logger: Logger;
  /** The live job-set id (it changes on a reload without a rebuild). */
  jobSetId(): string;
  /** The scheduler's per-job summaries for the fleet view; none by default. */
  jobSummaries?(): AdvertisedJobs;
  /** This node's resources reading when node stats are shared; null = not shared. */
  nodeStats?(): NodeStatsReading | null;
  /** Per-process id: 32 lowercase hex, new on every build. A test seam; random by default. */
  readonly instanceId?: string;
}

export class GossipNode implements MeshLeadership {
  readonly backend = 'gossip';
  readonly nodeName: string;
  readonly distribution: Distribution;
  readonly instanceId: string;
  readonly settings: GossipSettings;
  readonly handler: PeerRequestHandler;
  readonly #deps: GossipNodeDeps;
  readonly #identity: ViewIdentity;
  readonly #peers: PeerRecord[];
  readonly #pollCache = new PeerPollCache();
  readonly #ranSet = new RebootRanSet();
  readonly #lifetime = new AbortController();
  #completedRounds = 0;
  /** Monotonic start of the round in flight, or null. */
  #roundStartedMs: number | null = null;
  /** Monotonic end of the last completed round, or null before the first. */
  #lastRoundEndMs: number | null = null;
  /** When a stall was noticed; the view is stale until a round started since then completes. */
  #staleSinceMs: number | null = null;
  #version = 0;
  #derived: { version: number; sets: DerivedSets; conflicts: Conflicts } | null = null;
  #degenerateWarned = false;
  readonly #scores = new ScoreCache();
  readonly #jobOwners = new RendezvousOwners(this.#scores);
  readonly #availableOwners = new RendezvousOwners(this.#scores);

  constructor(settings: GossipSettings, deps: GossipNodeDeps) {
    this.settings = settings;
    this.nodeName = settings.nodeName;
    this.distribution = settings.distribution;
    this.instanceId = deps.instanceId ?? randomBytes(16).toString('hex');
    this.#deps = deps;
    this.#identity = {
      nodeName: settings.nodeName,
      instanceId: this.instanceId,
      electLeader: settings.electLeader,
      distribution: settings.distribution,
    };
    this.#peers = settings.peers.map(newPeerRecord);
    this.handler = createPeerHandler({
      clock: deps.clock,
      payload: () => this.payload(),
      nodeStats: () => deps.nodeStats?.() ?? null,
      receiveRebootRan: (payload) =>
        this.#ranSet.receive(payload.job_set_id, payload.names, deps.jobSetId()),
    });
  }

  /** Rounds completed since this node was built (the first, inline round counts). */
  get completedRounds(): number {
    return this.#completedRounds;
  }

  peers(): readonly PeerView[] {
    return this.#peers;
  }

  /** Poll every peer once, concurrently, each bounded by connectTimeout. */
  async runRound(): Promise<void> {
    const clock = this.#deps.clock;
    const startedMs = clock.monotonic();
    // A round that starts late (the process was paused, or its loop starved) starts from a view
    // that old: stale until this round is done.
    this.#noticeStall(startedMs);
    this.#roundStartedMs = startedMs;
    const liveId = this.#deps.jobSetId();
    this.#ranSet.reconcile(liveId);
    try {
      await Promise.all(this.#peers.map((peer) => this.#pollOne(peer)));
    } finally {
      this.#roundStartedMs = null;
    }
    const endedMs = clock.monotonic();
    this.#noticeStall(endedMs, startedMs);
    this.#lastRoundEndMs = endedMs;
    if (this.#staleSinceMs !== null && startedMs >= this.#staleSinceMs) {
      this.#staleSinceMs = null;
      this.#deps.logger.info('cluster: a fresh round completed; the view of the peers is current');
    }
    this.#completedRounds += 1;
    this.#version += 1;
    this.#checkDegenerateSelfListing();
  }

  /**
   * Whether this node's view of its peers is too old to elect on: it made no progress for longer
   * than a round allows (paused by SIGSTOP, a frozen VM, a starved event loop), so answers it
   * polled before the stall may describe a cluster that has moved on. Until a round started after
   * the stall completes, the node counts as not quorate: Leader jobs skip rather than replay the
   * slots missed during the stall on that old view (docs/clustering.md "Guarantees and
   * trade-offs").
   */
  viewStale(): boolean {
    this.#noticeStall(this.#deps.clock.monotonic());
    return this.#staleSinceMs !== null;
  }

  /** The manager re-polls at once instead of waiting out its interval. */
  get needsRound(): boolean {
    return this.#staleSinceMs !== null;
  }

  /**
   * Marks the view stale when `nowMs` is past the progress due: a round in flight (or the one
   * started at `roundStartedMs`) within connectTimeout, else the next round within an interval
   * of the last one's end, each plus the tolerance.
   */
  #noticeStall(nowMs: number, roundStartedMs = this.#roundStartedMs): void {
    const intervalMs = this.settings.intervalMs;
    if (intervalMs === undefined || this.#staleSinceMs !== null) return;
    const inFlight = roundStartedMs !== null;
    const sinceMs = inFlight ? roundStartedMs : this.#lastRoundEndMs;
    if (sinceMs === null) return;
    const allowedMs = inFlight ? this.settings.connectTimeoutMs : intervalMs;
    if (nowMs - sinceMs - allowedMs <= stallToleranceMs(intervalMs)) return;
    this.#staleSinceMs = nowMs;
    this.#version += 1;
    const ago = ((nowMs - sinceMs) / 1000).toFixed(1);
    this.#deps.logger.warn(
      `cluster: this node's ${inFlight ? 'round in flight started' : 'last round ended'} ${ago} s ago (the process was paused or stalled); its view of the peers is stale, so Leader jobs stand down until a fresh round completes`,
    );
  }

  /** Abort every poll and push in flight (the manager is stopping). */
  abort(): void {
    this.#lifetime.abort(new Error('cluster manager stopped'));
  }

  async #pollOne(peer: PeerRecord): Promise<void> {
    const timeout = new AbortController();
    const onStop = (): void => timeout.abort(this.#lifetime.signal.reason);
    this.#lifetime.signal.addEventListener('abort', onStop, { once: true });
    const timer = this.#deps.clock.setTimer(
      () => timeout.abort(new Error('timed out')),
      this.settings.connectTimeoutMs,
    );
    let outcome: PollOutcome;
    try {
      outcome = await pollPeer(
        this.#deps.transport,
        this.#pollCache,
        peer.host,
        timeout.signal,
        () => this.#deps.clock.now(),
      );
    } catch (error) {
      this.#deps.logger.error(
        `cluster: unexpected error polling ${peer.host}: ${describeError(error)}`,
      );
      return;
    } finally {
      timer.cancel();
      this.#lifetime.signal.removeEventListener('abort', onStop);
    }
    if (this.#lifetime.signal.aborted) return;
    this.#apply(peer, outcome);
  }

  #apply(peer: PeerRecord, outcome: PollOutcome): void {
    const before = peer.status;
    if (outcome.kind === 'success') {
      applyPeerSuccess(
        peer,
        outcome.observation,
        {
          nodeName: this.nodeName,
          instanceId: this.instanceId,
          jobSetId: this.#deps.jobSetId(),
          driftAfter: this.settings.driftAfter,
        },
        this.#deps.clock.now(),
        outcome.nodeStats,
      );
    } else {
      applyPeerFailure(peer, outcome.error, outcome.untrusted);
    }
    this.#version += 1;
    const degenerate = peer.status === 'self' && before !== 'self' && this.#isDegenerate();
    logPeerTransition(this.#deps.logger, before, peer, degenerate);
    if (degenerate) this.#checkDegenerateSelfListing();
  }

  #isDegenerate(): boolean {
    return (
      this.settings.electLeader &&
      this.#peers.some((peer) => peer.status === 'self') &&
      this.#sets().clusterSize === 2
    );
  }

  #checkDegenerateSelfListing(): void {
    if (this.#degenerateWarned || !this.#isDegenerate()) return;
    this.#degenerateWarned = true;
    const hosts = this.#peers.filter((peer) => peer.status === 'self').map((peer) => peer.host);
    this.#deps.logger.warn(degenerateSelfListingWarning(hosts));
  }

  // --- derived reads -------------------------------------------------------------------------

  #current(): { sets: DerivedSets; conflicts: Conflicts } {
    if (this.#derived === null || this.#derived.version !== this.#version) {
      const sets = deriveSets(this.#identity, this.#peers, this.#completedRounds);
      this.#derived = {
        version: this.#version,
        sets,
        conflicts: findConflicts(this.#identity, this.#peers, sets.clusterSize),
      };
    }
    return this.#derived;
  }

  #sets(): DerivedSets {
    return this.#current().sets;
  }

  derived(): DerivedSets {
    return this.#sets();
  }

  conflicts(): Conflicts {
    return this.#current().conflicts;
  }

  clusterSize(): number {
    return this.#sets().clusterSize;
  }

  quorum(): number {
    return this.#sets().quorum;
  }

  hasConflict(): boolean {
    return hasConflict(this.conflicts());
  }

  leaderName(): string | null {
    return this.#sets().leaderName;
  }

  isLeader(): boolean {
    return this.#sets().leaderName === this.nodeName && !this.viewStale();
  }

  isQuorate(): boolean {
    return this.#sets().leaderName !== null && !this.viewStale();
  }

  viewSettled(): boolean {
    return this.#sets().viewSettled;
  }

  quorumConfirmed(): boolean {
    const sets = this.#sets();
    if (sets.leaderName === null || this.viewStale()) return false;
    if (sets.quorum <= 1) return true;
    return sets.live.some((peer) => peer.quorateVouched?.has(this.nodeName) === true);
  }

  availableLeaderName(): string {
    return this.#sets().availableLeaderName;
  }

  isAvailableLeader(): boolean {
    const sets = this.#sets();
    if (!sets.viewSettled || sets.availableLeaderName !== this.nodeName) return false;
    return !cedesToDuplicate(
      this.#identity,
      this.#peers,
      (name, view) => minByCodePoint(name, view) === name,
    );
  }

  /** The quorum-gated rendezvous owner of `job` (eligible and unconfirmed candidates). */
  jobOwner(job: string): string | null {
    if (!this.isQuorate()) return null;
    const sets = this.#sets();
    return this.#jobOwners.owner(job, this.nodeName, sets.ownerCandidates, sets.ownerCandidatesKey);
  }

  isJobOwner(job: string): boolean {
    return this.jobOwner(job) === this.nodeName;
  }

  availableJobOwner(job: string): string {
    const sets = this.#sets();
    return this.#availableOwners.owner(
      job,
      this.nodeName,
      sets.availableView,
      sets.availableViewKey,
    );
  }

  isAvailableJobOwner(job: string): boolean {
    if (!this.#sets().viewSettled || this.availableJobOwner(job) !== this.nodeName) return false;
    return !cedesToDuplicate(
      this.#identity,
      this.#peers,
      (name, view) => hrwOwner(job, [name, ...view], this.#scores.score) === name,
    );
  }

  // --- @reboot ran-set -----------------------------------------------------------------------

  advertisedRanJobs(): ReadonlySet<string> {
    return this.#ranSet.advertised(this.#deps.jobSetId(), this.#peers);
  }

  rebootRan(job: string): boolean {
    return this.advertisedRanJobs().has(job);
  }

  /** Seed the local ran-set (tests replaying a recorded cluster). */
  seedRebootRan(names: Iterable<string>): void {
    for (const name of names) this.#ranSet.mark(name, this.#deps.jobSetId());
  }

  /**
   * Record that this node runs the deferred one-shot `job`, then push the advertised set to every
   * peer (concurrently, each bounded by connectTimeout; failures ignored: the next /peer poll
   * carries the set anyway).
   */
  async markRebootRan(job: string): Promise<void> {
    const liveId = this.#deps.jobSetId();
    this.#ranSet.mark(job, liveId);
    const names = advertisedRanList(this.advertisedRanJobs());
    if (this.#peers.length === 0 || names.length === 0) return;
    const payload: RebootRanPayload = { job_set_id: liveId, names };
    const body = new TextEncoder().encode(JSON.stringify(payload));
    await Promise.all(
      this.#peers.map(async (peer) => {
        const timeout = new AbortController();
        const timer = this.#deps.clock.setTimer(
          () => timeout.abort(new Error('timed out')),
          this.settings.connectTimeoutMs,
        );
        try {
          // Never rejects by contract; a failed push is repaired by the next /peer poll.
          await this.#deps.transport.request(peer.host, {
            method: 'POST',
            path: '/reboot-ran',
            headers: { 'Content-Type': 'application/json' },
            body,
            signal: AbortSignal.any([timeout.signal, this.#lifetime.signal]),
          });
        } finally {
          timer.cancel();
        }
      }),
    );
  }

  // --- what we advertise ---------------------------------------------------------------------

  /** Our `members`: ourselves, then every heard-from peer with a name, config order. */
  members(): MemberEntry[] {
    const out: MemberEntry[] = [
      { nodeName: this.nodeName, instanceId: this.instanceId, agreed: true },
    ];
    for (const peer of this.#peers) {
      if (isStale(peer) || peer.nodeName === null) continue;
      out.push({
        nodeName: peer.nodeName,
        instanceId: peer.instanceId,
        agreed: peer.status === 'agreed',
      });
    }
    return out;
  }

  /** The `GET /peer` body, built fresh. */
  payload(): PeerPayload {
    const sets = this.#sets();
    const summaries = summariesWire(this.#deps.jobSummaries?.() ?? NO_ADVERTISED_JOBS);
    return buildPeerPayload({
      nodeName: this.nodeName,
      jobSetId: this.#deps.jobSetId(),
      instanceId: this.instanceId,
      clusterSize: sets.clusterSize,
      distribution: this.distribution,
      electLeader: this.settings.electLeader,
      members: this.members(),
      ranRebootJobs: advertisedRanList(this.advertisedRanJobs()),
      mutualAgreeing: sortByCodePoint(sets.liveNames),
      quorateVouched: sortByCodePoint(sets.eligible),
      jobSummaries: summaries.jobSummaries,
      jobSummariesTruncated: summaries.truncated,
    });
  }
}
