// The daemon door: the composition root (startDaemon) and the CLI's signal-driven run.
export { startDaemon, RELOAD_INTERVAL_MS, type Daemon, type DaemonOptions } from './start.js';
export { runDaemonUntilSignalled } from './signals.js';
