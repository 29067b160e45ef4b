// The cluster's lifecycle across reloads (docs/clustering.md "Lifecycle"): start, keep, rebuild or
// stop the gossip manager on each housekeeping pass; rebuild on a certificate renewed in place only
// once the new files load (a half-written rotation is retried next pass); fail a start without
// stopping the daemon. It is the LeadershipSource the gate reads and outlives every manager.
// Must not: leave the election flag from an old config in place while a new build is attempted.
import { describeError, type Clock, type Logger } from '../common/index.js';
import type { ResolvedCluster, ResolvedGossipCluster } from '../config/index.js';
import {
  LeadershipTransitions,
  type LeadershipBackend,
  type LeadershipSource,
} from '../leadership/index.js';
import type { ClusterMetricsSource, ClusterMetricsView } from '../metrics/index.js';
import { clusterMetricsView, describeCluster, type ClusterStatus } from './cluster-status.js';
import { describeFleet, type FleetStatus } from './fleet-status.js';
import { GossipManager } from './gossip-manager.js';
import type { GossipNode } from './gossip-node.js';
import {
  loadTlsMaterial,
  sameTlsFiles,
  snapshotTlsFiles,
  type TlsFileSnapshot,
  type TlsMaterial,
} from './tls-material.js';
import { TlsPeerTransport } from './tls-transport.js';
import type { PeerTransport } from './transport.js';
import type { JobSummary, NodeStatsReading } from './types.js';

export interface ClusterSupervisorDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  /** The live job-set id. */
  jobSetId(): string;
  jobSummaries?(): ReadonlyMap<string, JobSummary>;
  /** This node's resources reading (shared only when the config says so). */
  nodeStats?(): NodeStatsReading | null;
  /** Seams (tests): certificate loading and snapshots, and the transport (default: mTLS). */
  loadTls?(paths: ResolvedGossipCluster['tls']): Promise<TlsMaterial>;
  snapshotTls?(paths: ResolvedGossipCluster['tls']): Promise<TlsFileSnapshot>;
  createTransport?(cluster: ResolvedGossipCluster, material: TlsMaterial): PeerTransport;
}

interface Running {
  readonly config: ResolvedGossipCluster;
  readonly manager: GossipManager;
  readonly files: TlsFileSnapshot;
}

/** A failing start is re-logged at ERROR at most this often with the same message. */
const REPEAT_ERROR_MS = 15 * 60_000;

export class ClusterSupervisor implements LeadershipSource, ClusterMetricsSource {
  readonly transitions: LeadershipTransitions;
  readonly #deps: ClusterSupervisorDeps;
  #electLeader = false;
  #shareNodeStats = false;
  #running: Running | null = null;
  #advisedFor: string | null = null;
  /** reconcile() and stop() run one at a time, in call order; nothing is built after stop(). */
  #queue: Promise<void> = Promise.resolve();
  #stopped = false;
  #lastFailure: { message: string; atMs: number; repeats: number } | null = null;

  constructor(deps: ClusterSupervisorDeps) {
    this.#deps = deps;
    this.transitions = new LeadershipTransitions(deps.logger);
  }

  electLeaderConfigured(): boolean {
    return this.#electLeader;
  }

  current(): LeadershipBackend | null {
    return this.#running?.manager.node ?? null;
  }

  /** The running gossip node (views, /fleet, metrics), or null. */
  node(): GossipNode | null {
    return this.#running?.manager.node ?? null;
  }

  /** GET /cluster's view; null without a running manager. */
  describe(): ClusterStatus | null {
    const running = this.#running;
    if (running === null) return null;
    return describeCluster(
      running.manager.node,
      this.#deps.jobSetId(),
      this.#deps.clock.now(),
      running.config.intervalMs,
    );
  }

  /** GET /fleet's view; null without a running manager. */
  fleet(): FleetStatus | null {
    const running = this.#running;
    if (running === null) return null;
    const deps = this.#deps;
    return describeFleet(running.manager.node, {
      ownJobs: deps.jobSummaries?.() ?? new Map(),
      ownStats: deps.nodeStats?.() ?? null,
      nowMs: deps.clock.now(),
      intervalMs: running.config.intervalMs,
    });
  }

  // ClusterMetricsSource (the daemon registers createClusterFamilies(supervisor)).
  leaderTransitions(): number {
    return this.transitions.leaderTransitions;
  }

  quorumTransitions(): number {
    return this.transitions.quorumTransitions;
  }

  view(): ClusterMetricsView | null {
    const node = this.node();
    return node === null ? null : clusterMetricsView(node);
  }

  /** One scheduler pass: log and count leadership, quorum and conflict transitions. */
  onSchedulerPass(): void {
    try {
      this.transitions.evaluate(this.#electLeader, this.current());
    } catch (error) {
      this.#deps.logger.error(
        `cluster: cannot evaluate leadership transitions: ${describeError(error)}`,
      );
    }
  }

  /**
   * One housekeeping pass with the newly loaded config (null: no cluster section). Never throws:
   * a failed build leaves no manager (Leader jobs fail closed, PreferLeader runs).
   */
  reconcile(next: ResolvedCluster | null): Promise<void> {
    return this.#serially(() => this.#reconcile(next));
  }

  async #reconcile(next: ResolvedCluster | null): Promise<void> {
    if (this.#stopped) return;
    this.#electLeader = next?.electLeader ?? false;
    if (next === null) {
      if (this.#running) await this.#stopRunning('configuration changed');
      this.#advisedFor = null;
      return;
    }
    if (next.backend !== 'gossip') {
      if (this.#running) await this.#stopRunning('configuration changed');
      this.#adviseOnce(next);
      this.#startFailed(
        `the '${next.backend}' backend is not supported by this version yet (Leader jobs fail closed, PreferLeader jobs run)`,
      );
      return;
    }
    this.#shareNodeStats = next.shareNodeStats;
    const running = this.#running;
    if (running === null) {
      await this.#build(next, null);
      return;
    }
    if (settingsKey(running.config) === settingsKey(next)) {
      const files = await this.#snapshot(next);
      if (sameTlsFiles(files, running.files)) return;
      const material = await this.#dryRun(
        next,
        'cluster: TLS certificate files changed but the new material is not yet loadable (a partial/half-written rotation?); keeping the running manager and retrying next reload',
      );
      if (material === null) return;
      await this.#stopRunning('TLS certificate files changed');
      await this.#build(next, { material, files });
      return;
    }
    const material = await this.#dryRun(
      next,
      'cluster: configuration changed but the new TLS material is not yet loadable; keeping the running manager and retrying next reload',
    );
    if (material === null) return;
    await this.#stopRunning('configuration changed');
    await this.#build(next, { material, files: await this.#snapshot(next) });
  }

  /** Shutdown: stop the manager (peers learn by failed polls); later reconciles do nothing. */
  stop(): Promise<void> {
    return this.#serially(async () => {
      this.#stopped = true;
      if (this.#running === null) return;
      this.#deps.logger.info('Stopping cluster manager');
      const running = this.#running;
      this.#running = null;
      await running.manager.stop();
    });
  }

  #serially(work: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(work);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #dryRun(next: ResolvedGossipCluster, warning: string): Promise<TlsMaterial | null> {
    try {
      return await (this.#deps.loadTls ?? loadTlsMaterial)(next.tls);
    } catch (error) {
      this.#deps.logger.warn(`${warning}: ${describeError(error)}`);
      return null;
    }
  }

  #snapshot(config: ResolvedGossipCluster): Promise<TlsFileSnapshot> {
    return (this.#deps.snapshotTls ?? snapshotTlsFiles)(config.tls);
  }

  async #stopRunning(reason: string): Promise<void> {
    const running = this.#running;
    if (running === null) return;
    this.transitions.managerStopping();
    this.#deps.logger.info(`cluster: ${reason}, stopping`);
    this.#running = null;
    await running.manager.stop();
  }

  async #build(
    config: ResolvedGossipCluster,
    loaded: { material: TlsMaterial; files: TlsFileSnapshot } | null,
  ): Promise<void> {
    this.#adviseOnce(config);
    const deps = this.#deps;
    try {
      // The snapshot is taken before the load: a change during the load shows next pass.
      const files = loaded?.files ?? (await this.#snapshot(config));
      const material = loaded?.material ?? (await (deps.loadTls ?? loadTlsMaterial)(config.tls));
      const transport =
        deps.createTransport?.(config, material) ??
        new TlsPeerTransport({
          listen: config.listen,
          material,
          connectTimeoutMs: config.connectTimeoutMs,
          clock: deps.clock,
          logger: deps.logger,
        });
      const manager = await GossipManager.start(
        { ...config, listen: config.listen.text },
        {
          clock: deps.clock,
          transport,
          logger: deps.logger,
          jobSetId: () => deps.jobSetId(),
          jobSummaries: () => deps.jobSummaries?.() ?? new Map(),
          nodeStats: () => (this.#shareNodeStats ? (deps.nodeStats?.() ?? null) : null),
        },
      );
      this.#running = { config, manager, files };
      this.#lastFailure = null;
    } catch (error) {
      this.#startFailed(describeError(error));
    }
  }

  /** Advisories once per distinct configuration, not once per pass. */
  #adviseOnce(config: ResolvedCluster): void {
    const key = JSON.stringify(config);
    if (this.#advisedFor === key) return;
    this.#advisedFor = key;
    for (const advisory of config.advisories) this.#deps.logger.warn(advisory);
  }

  /** `cluster: failed to start`, at ERROR when new, then at most every 15 minutes. */
  #startFailed(message: string): void {
    const now = this.#deps.clock.monotonic();
    const last = this.#lastFailure;
    const text = `cluster: failed to start: ${message}`;
    if (last !== null && last.message === text && now - last.atMs < REPEAT_ERROR_MS) {
      last.repeats += 1;
      this.#deps.logger.debug(text);
      return;
    }
    const repeats = last !== null && last.message === text ? last.repeats : 0;
    this.#deps.logger.error(
      repeats > 0
        ? `${text} (still failing: ${repeats} more attempt(s) since the last report)`
        : text,
    );
    this.#lastFailure = { message: text, atMs: now, repeats: 0 };
  }
}

/** What a rebuild depends on: everything but the stats flag, the advisories and the location. */
function settingsKey(config: ResolvedGossipCluster): string {
  return JSON.stringify([
    config.nodeName,
    config.connectTimeoutMs,
    config.electLeader,
    config.distribution,
    config.intervalMs,
    config.driftAfter,
    config.listen.text,
    config.tls,
    config.peers,
  ]);
}
