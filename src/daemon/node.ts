// This node's CPU and memory for the control API (GET /node, /node/history): one NodeStatsReader
// (cgroup v2 limits honoured) and the `web.nodeHistory` ring, reconfigured on every (re)load.
// The reading is a plain value, so the gossip node-stats header can read the same one later.
// Must not: read /proc before something asks (a daemon without a web section never does); keep
// the ring's timer while the ring is off.
import type { NodeStatsReading } from '../cluster/index.js';
import type { Clock } from '../common/index.js';
import type { ResolvedConfig } from '../config/index.js';
import type { NodeView } from '../http/index.js';
import { NodeHistory, NodeStatsReader, renderNodeResources } from '../resources/index.js';

export interface NodeStatsHandle {
  readonly view: NodeView;
  /** The reading as the cluster shares it (the `/node` resources object), null when none. */
  clusterReading(): NodeStatsReading | null;
  /** Apply the config's `web.nodeHistory` (no web section: the ring is off). */
  configure(config: ResolvedConfig): void;
  close(): void;
}

export function createNodeStats(deps: {
  clock: Clock;
  /** The cluster's nodeName when a cluster section is loaded, else the host name. */
  nodeName: () => string;
}): NodeStatsHandle {
  let reader: NodeStatsReader | undefined;
  const read = () => {
    reader ??= new NodeStatsReader({ clock: deps.clock });
    return reader.read();
  };
  const history = new NodeHistory({ clock: deps.clock, reader: { read } });
  return {
    view: {
      nodeName: deps.nodeName,
      reading: read,
      history: () => history.snapshot(),
    },
    clusterReading: () => {
      const reading = read();
      if (reading === null) return null;
      const shared: Record<string, number> = {};
      for (const [key, value] of Object.entries(renderNodeResources(reading))) {
        if (typeof value === 'number') shared[key] = value;
      }
      return shared;
    },
    configure: (config) => history.configure(config.web?.nodeHistory ?? null),
    close: () => history.close(),
  };
}
