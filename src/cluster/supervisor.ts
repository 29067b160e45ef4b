// The cluster's lifecycle across reloads (docs/clustering.md "Lifecycle"): start, keep, rebuild or
// stop the election backend on each housekeeping pass — the gossip manager (gossip-keeper.ts) or a
// lease elector (etcd, Kubernetes, filesystem) with its optional observability overlay — and fail
// a start without stopping the daemon. It is the LeadershipSource the gate reads and outlives
// every backend.
// Must not: leave the election flag from an old config in place while a new build is attempted,
// or let the overlay answer a gate read.
import { describeError, type Clock } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { ResolvedCluster, ResolvedGossipCluster } from '../config/index.js';
import {
  LeadershipTransitions,
  LeaseElector,
  createLeaseClient,
  type LeadershipBackend,
  type LeadershipSource,
  type LeaseClient,
  type LeaseElectorOptions,
  type ResolvedLeaseCluster,
} from '../leadership/index.js';
import type { ClusterMetricsSource, ClusterMetricsView } from '../metrics/index.js';
import { clusterMetricsView, describeCluster, type ClusterStatus } from './cluster-status.js';
import { describeFleet, type FleetStatus } from './fleet-status.js';
import type { GossipNode } from './gossip-node.js';
import { NO_ADVERTISED_JOBS } from './job-summaries.js';
import { GossipKeeper, StartFailures } from './gossip-keeper.js';
import { describeLeaseCluster, leaseMetricsView } from './lease-status.js';
import {
  sameFiles,
  snapshotFiles,
  type TlsFileSnapshot,
  type TlsMaterial,
} from './tls-material.js';
import type { PeerTransport } from './transport.js';
import type { AdvertisedJobs, NodeStatsReading } from './types.js';

export interface ClusterSupervisorDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  /** The live job-set id. */
  jobSetId(): string;
  jobSummaries?(): AdvertisedJobs;
  /** This node's resources reading (shared only when the config says so). */
  nodeStats?(): NodeStatsReading | null;
  /** Seams (tests): certificate loading and snapshots, and the transport (default: mTLS). */
  loadTls?(paths: ResolvedGossipCluster['tls']): Promise<TlsMaterial>;
  snapshotTls?(paths: ResolvedGossipCluster['tls']): Promise<TlsFileSnapshot>;
  createTransport?(cluster: ResolvedGossipCluster, material: TlsMaterial): PeerTransport;
  /** Seam (tests): the lease client for a lease config (default: the configured store). */
  createLeaseClient?(cluster: ResolvedLeaseCluster): {
    client: LeaseClient;
    options: LeaseElectorOptions;
  };
  /** The environment in-cluster Kubernetes credentials are found through (default: process). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

interface LeaseRunning {
  readonly config: ResolvedLeaseCluster;
  readonly elector: LeaseElector;
  /** The client's tracked files and their stamps at build. */
  readonly files: readonly string[];
  readonly stamps: readonly (string | null)[];
}

export class ClusterSupervisor implements LeadershipSource, ClusterMetricsSource {
  readonly transitions: LeadershipTransitions;
  readonly #deps: ClusterSupervisorDeps;
  readonly #gossip: GossipKeeper;
  readonly #overlay: GossipKeeper;
  readonly #failures: StartFailures;
  #lease: LeaseRunning | null = null;
  #electLeader = false;
  #shareNodeStats = false;
  #advisedFor: string | null = null;
  /** reconcile() and stop() run one at a time, in call order; nothing is built after stop(). */
  #queue: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(deps: ClusterSupervisorDeps) {
    this.#deps = deps;
    this.transitions = new LeadershipTransitions(deps.logger);
    const monotonic = (): number => deps.clock.monotonic();
    this.#failures = new StartFailures(deps.logger, monotonic);
    const shareNodeStats = (): boolean => this.#shareNodeStats;
    this.#gossip = new GossipKeeper(
      deps,
      { prefix: 'cluster', beforeStop: () => this.transitions.managerStopping(), shareNodeStats },
      this.#failures,
    );
    this.#overlay = new GossipKeeper(
      deps,
      { prefix: 'cluster.observability', shareNodeStats },
      new StartFailures(deps.logger, monotonic),
    );
  }

  electLeaderConfigured(): boolean {
    return this.#electLeader;
  }

  current(): LeadershipBackend | null {
    return this.#gossip.running?.manager.node ?? this.#lease?.elector ?? null;
  }

  /** The running election gossip node (views, /fleet, metrics), or null. */
  node(): GossipNode | null {
    return this.#gossip.running?.manager.node ?? null;
  }

  /** The running lease elector, or null. */
  elector(): LeaseElector | null {
    return this.#lease?.elector ?? null;
  }

  /** GET /cluster's view; null without a running backend. */
  describe(): ClusterStatus | null {
    const jobSetId = this.#deps.jobSetId();
    const lease = this.#lease;
    if (lease !== null) {
      return describeLeaseCluster(lease.elector, jobSetId, this.#overlay.running !== null);
    }
    const running = this.#gossip.running;
    if (running === null) return null;
    return describeCluster(
      running.manager.node,
      jobSetId,
      this.#deps.clock.now(),
      running.config.intervalMs,
    );
  }

  /** GET /fleet's view: the election mesh, or a lease backend's overlay; null without one. */
  fleet(): FleetStatus | null {
    const running = this.#gossip.running ?? this.#overlay.running;
    if (running === null) return null;
    const deps = this.#deps;
    return describeFleet(running.manager.node, {
      ownJobs: deps.jobSummaries?.() ?? NO_ADVERTISED_JOBS,
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

  /** The election backend's view (never the overlay's). */
  view(): ClusterMetricsView | null {
    const lease = this.#lease;
    if (lease !== null) return leaseMetricsView(lease.elector);
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
   * a failed build leaves no backend (Leader jobs fail closed, PreferLeader runs).
   */
  reconcile(next: ResolvedCluster | null): Promise<void> {
    return this.#serially(() => this.#reconcile(next));
  }

  async #reconcile(next: ResolvedCluster | null): Promise<void> {
    if (this.#stopped) return;
    this.#electLeader = next?.electLeader ?? false;
    this.#shareNodeStats = next?.shareNodeStats ?? false;
    if (next === null) {
      await this.#gossip.stop('configuration changed');
      await this.#stopLease('configuration changed');
      await this.#overlay.stop('configuration changed');
      this.#advisedFor = null;
      return;
    }
    if (next.backend === 'gossip') {
      await this.#stopLease('configuration changed');
      await this.#overlay.stop('configuration changed');
      this.#adviseOnce(next);
      await this.#gossip.reconcile(next);
      return;
    }
    await this.#gossip.stop('configuration changed');
    const lease = this.#lease;
    if (lease !== null && leaseKey(lease.config) !== leaseKey(next)) {
      await this.#stopLease('configuration changed');
    } else if (lease !== null && lease.files.length > 0) {
      // Certificates or a kubeconfig renewed in place: rebuild (the client re-reads them).
      if (!sameFiles(await snapshotFiles(lease.files), lease.stamps)) {
        await this.#stopLease('TLS certificate files changed');
      }
    }
    if (this.#lease === null) await this.#buildLease(next);
    if (next.observabilityMesh === null) await this.#overlay.stop('configuration changed');
    else await this.#overlay.reconcile(next.observabilityMesh);
  }

  /** Shutdown: stop every backend (a lease holder releases); later reconciles do nothing. */
  stop(): Promise<void> {
    return this.#serially(async () => {
      this.#stopped = true;
      if (this.#gossip.running === null && this.#lease === null) {
        await this.#overlay.stop(null);
        return;
      }
      this.#deps.logger.info('Stopping cluster manager');
      await this.#gossip.stop(null);
      const lease = this.#lease;
      this.#lease = null;
      await lease?.elector.stop();
      await this.#overlay.stop(null);
    });
  }

  #serially(work: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(work);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #buildLease(config: ResolvedLeaseCluster): Promise<void> {
    this.#adviseOnce(config);
    const deps = this.#deps;
    try {
      const { client, options } =
        deps.createLeaseClient?.(config) ??
        (await createLeaseClient(config, {
          clock: deps.clock,
          logger: deps.logger,
          env: deps.env ?? process.env,
        }));
      const elector = await LeaseElector.start(client, options, {
        clock: deps.clock,
        logger: deps.logger,
        jobSetId: () => deps.jobSetId(),
      });
      // The list is known once the client started (a kubeconfig names its files), so the stamps
      // are taken right after it: a renewal inside that instant waits for the next change.
      const files = client.trackedFiles?.() ?? [];
      this.#lease = { config, elector, files, stamps: await snapshotFiles(files) };
      this.#failures.clear();
    } catch (error) {
      this.#failures.report('cluster', describeError(error));
    }
  }

  async #stopLease(reason: string): Promise<void> {
    const lease = this.#lease;
    if (lease === null) return;
    this.transitions.managerStopping();
    this.#deps.logger.info(`cluster: ${reason}, stopping`);
    this.#lease = null;
    await lease.elector.stop();
  }

  /** Advisories once per distinct configuration, not once per pass. */
  #adviseOnce(config: ResolvedCluster): void {
    const key = JSON.stringify(config);
    if (this.#advisedFor === key) return;
    this.#advisedFor = key;
    for (const advisory of config.advisories) this.#deps.logger.warn(advisory);
  }
}

/** A lease rebuild depends on everything but the stats flag, the advisories, the overlay and the location. */
function leaseKey(config: ResolvedLeaseCluster): string {
  const { shareNodeStats, observabilityMesh, advisories, source, ...rest } = config;
  void shareNodeStats;
  void observabilityMesh;
  void advisories;
  void source;
  return JSON.stringify(rest);
}
