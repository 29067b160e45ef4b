// The daemon door: the composition root (startDaemon), the CLI's signal-driven run, and the
// cluster as the daemon builds it (loaded on demand; the bench measures the scheduler with it).
export { startDaemon, RELOAD_INTERVAL_MS, type Daemon, type DaemonOptions } from './start.js';
export { runDaemonUntilSignalled } from './signals.js';
export type { DaemonCluster, DaemonClusterDeps } from './cluster.js';
export {
  createLazyDaemonCluster,
  loadDaemonCluster,
  type DaemonClusterModule,
  type LazyDaemonCluster,
  type LazyDaemonClusterDeps,
} from './lazy-cluster.js';
