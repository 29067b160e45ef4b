// A running gossip node (docs/clustering.md "Rounds"): bind the peer listener, run one full
// round inline (so the first scheduler pass sees a polled view), then a round every `interval`
// after the previous one ends (at once after a stall: the node's view is stale), until stop(). Peers learn of a stop only by failed polls.
// Must not: let a round outlive stop(), or leave a timer or a listener behind.
import { TaskSet, describeError } from '../common/index.js';
import { GossipNode, type GossipNodeDeps, type GossipSettings } from './gossip-node.js';
import type { PeerListener } from './transport.js';

export interface GossipManagerSettings extends GossipSettings {
  readonly intervalMs: number;
  /** The listen address as configured, for the start-up line. */
  readonly listen: string;
}

export class GossipManager {
  readonly node: GossipNode;
  readonly #deps: GossipNodeDeps;
  readonly #settings: GossipManagerSettings;
  readonly #tasks: TaskSet;
  readonly #stop = new AbortController();
  #listener: PeerListener | null = null;
  #stopped: Promise<void> | null = null;

  private constructor(settings: GossipManagerSettings, deps: GossipNodeDeps) {
    this.#settings = settings;
    this.#deps = deps;
    this.node = new GossipNode(settings, deps);
    this.#tasks = new TaskSet((error) =>
      deps.logger.error(`cluster: gossip loop failed: ${describeError(error)}`),
    );
  }

  /** Bind, run the first round, start the loop. Rejects (nothing left running) if the bind fails. */
  static async start(
    settings: GossipManagerSettings,
    deps: GossipNodeDeps,
  ): Promise<GossipManager> {
    const manager = new GossipManager(settings, deps);
    try {
      manager.#listener = await deps.transport.listen(manager.node.handler);
    } catch (error) {
      await deps.transport.close();
      throw error;
    }
    deps.logger.info(
      `cluster: node '${settings.nodeName}' serving mTLS /peer on ${settings.listen}, polling ${settings.peers.length} peer(s) every ${settings.intervalMs / 1000}s`,
    );
    await manager.node.runRound();
    manager.#tasks.run(() => manager.#loop());
    return manager;
  }

  async #loop(): Promise<void> {
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      // A stale view (the process stalled) re-polls at once; otherwise wait out the interval.
      if (!this.node.needsRound) {
        try {
          await this.#deps.clock.sleep(this.#settings.intervalMs, signal);
        } catch {
          return; // stopped while waiting
        }
      }
      await this.node.runRound();
    }
  }

  /** Stop the loop, abort polls in flight, close the listener and the client session. */
  stop(): Promise<void> {
    this.#stopped ??= (async () => {
      this.#stop.abort(new Error('cluster manager stopped'));
      this.node.abort();
      await this.#tasks.close();
      await this.#listener?.close();
      await this.#deps.transport.close();
    })();
    return this.#stopped;
  }
}
