// The resources door: sampling of monitored runs' process trees (RunSampler), this node's CPU
// and memory (NodeStatsReader, NodeHistory), the values they produce and the wire rendering of
// a run record's `resources`. Linux /proc and cgroup v2; elsewhere the readings are empty.
export {
  RunSampler,
  FIRST_SAMPLE_GRID_MS,
  type MonitoredRun,
  type RunSamplerDeps,
  type SamplerStats,
} from './run-sampler.js';
export {
  cpuTotalSeconds,
  renderRunResources,
  renderUsagePoint,
  type CurrentUsage,
  type LiveRunUsage,
  type RunResourcesWire,
  type RunUsage,
  type RunUsageSummary,
} from './run-usage.js';
export type { UsagePoint } from './usage-series.js';
export {
  NodeStatsReader,
  MIN_REFRESH_MS,
  type NodeResources,
  type NodeStatsDeps,
} from './node-stats.js';
export {
  NodeHistory,
  type NodeHistoryDeps,
  type NodeHistorySettings,
  type NodeHistorySnapshot,
  type NodePoint,
} from './node-history.js';
export { createSystemProcSource, type ProcSource } from './proc-source.js';
export { readSystemConstants, type SystemConstants } from './system-constants.js';
