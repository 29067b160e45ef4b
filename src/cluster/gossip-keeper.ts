// One gossip manager kept across reloads (docs/clustering.md "Lifecycle"): build it, keep it while
// its settings and certificate files are unchanged, rebuild it when they change but only once the
// new files load (a half-written rotation is retried next pass). The election mesh and the lease
// backends' observability overlay are each one keeper, told apart by their log prefix
// (`cluster:` / `cluster.observability:`). A failed start is reported at ERROR when new, then at
// most every 15 minutes.
// Must not: hot-swap TLS contexts in place, or leave a manager running after stop().
import { describeError } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { ResolvedGossipCluster } from '../config/index.js';
import { GossipManager } from './gossip-manager.js';
import { NO_ADVERTISED_JOBS } from './job-summaries.js';
import {
  loadTlsMaterial,
  sameTlsFiles,
  snapshotTlsFiles,
  type TlsFileSnapshot,
  type TlsMaterial,
} from './tls-material.js';
import { TlsPeerTransport } from './tls-transport.js';
import type { ClusterSupervisorDeps } from './supervisor.js';

export interface GossipRunning {
  readonly config: ResolvedGossipCluster;
  readonly manager: GossipManager;
  readonly files: TlsFileSnapshot;
}

export interface GossipKeeperHooks {
  /** `cluster` or `cluster.observability` (log lines start `<prefix>: `). */
  readonly prefix: string;
  /** Called before a running manager is stopped for a rebuild or a config change. */
  beforeStop?(): void;
  shareNodeStats(): boolean;
}

/** A failing start is re-logged at ERROR at most this often with the same message. */
const REPEAT_ERROR_MS = 15 * 60_000;

/** `<prefix>: failed to start: …` at ERROR when new, then at DEBUG for 15 minutes. */
export class StartFailures {
  readonly #logger: Logger;
  readonly #monotonic: () => number;
  #last: { message: string; atMs: number; repeats: number } | null = null;

  constructor(logger: Logger, monotonic: () => number) {
    this.#logger = logger;
    this.#monotonic = monotonic;
  }

  report(prefix: string, message: string): void {
    const now = this.#monotonic();
    const last = this.#last;
    const text = `${prefix}: failed to start: ${message}`;
    if (last !== null && last.message === text && now - last.atMs < REPEAT_ERROR_MS) {
      last.repeats += 1;
      this.#logger.debug(text);
      return;
    }
    const repeats = last !== null && last.message === text ? last.repeats : 0;
    this.#logger.error(
      repeats > 0
        ? `${text} (still failing: ${repeats} more attempt(s) since the last report)`
        : text,
    );
    this.#last = { message: text, atMs: now, repeats: 0 };
  }

  clear(): void {
    this.#last = null;
  }
}

export class GossipKeeper {
  readonly #deps: ClusterSupervisorDeps;
  readonly #hooks: GossipKeeperHooks;
  readonly #failures: StartFailures;
  #running: GossipRunning | null = null;

  constructor(deps: ClusterSupervisorDeps, hooks: GossipKeeperHooks, failures: StartFailures) {
    this.#deps = deps;
    this.#hooks = hooks;
    this.#failures = failures;
  }

  get running(): GossipRunning | null {
    return this.#running;
  }

  async reconcile(next: ResolvedGossipCluster): Promise<void> {
    const running = this.#running;
    if (running === null) {
      await this.#build(next, null);
      return;
    }
    const prefix = this.#hooks.prefix;
    if (settingsKey(running.config) === settingsKey(next)) {
      const files = await this.#snapshot(next);
      if (sameTlsFiles(files, running.files)) return;
      const material = await this.#dryRun(
        next,
        `${prefix}: TLS certificate files changed but the new material is not yet loadable (a partial/half-written rotation?); keeping the running manager and retrying next reload`,
      );
      if (material === null) return;
      await this.stop('TLS certificate files changed');
      await this.#build(next, { material, files });
      return;
    }
    const material = await this.#dryRun(
      next,
      `${prefix}: configuration changed but the new TLS material is not yet loadable; keeping the running manager and retrying next reload`,
    );
    if (material === null) return;
    await this.stop('configuration changed');
    await this.#build(next, { material, files: await this.#snapshot(next) });
  }

  /** Stop the running manager; `reason` null = shutdown (no line, no hook). */
  async stop(reason: string | null): Promise<void> {
    const running = this.#running;
    if (running === null) return;
    if (reason !== null) {
      this.#hooks.beforeStop?.();
      this.#deps.logger.info(`${this.#hooks.prefix}: ${reason}, stopping`);
    }
    this.#running = null;
    await running.manager.stop();
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

  async #build(
    config: ResolvedGossipCluster,
    loaded: { material: TlsMaterial; files: TlsFileSnapshot } | null,
  ): Promise<void> {
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
          jobSummaries: () => deps.jobSummaries?.() ?? NO_ADVERTISED_JOBS,
          nodeStats: () => (this.#hooks.shareNodeStats() ? (deps.nodeStats?.() ?? null) : null),
        },
      );
      this.#running = { config, manager, files };
      this.#failures.clear();
    } catch (error) {
      this.#failures.report(this.#hooks.prefix, describeError(error));
    }
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
