// The resources door: sampling of monitored runs' process trees (RunSampler), this node's CPU
// and memory (NodeStatsReader, NodeHistory), the values they produce and their wire shapes
// (wire.ts). Linux /proc and cgroup v2; elsewhere the readings are empty.
export {
  RunSampler,
  FIRST_SAMPLE_GRID_MS,
  type MonitoredRun,
  type RunSamplerDeps,
  type SamplerStats,
} from './run-sampler.js';
export type { CurrentUsage, LiveRunUsage, RunUsage, RunUsageSummary } from './run-usage.js';
export {
  renderCurrentUsage,
  renderNodeResources,
  renderRunningResources,
  renderRunResources,
  renderUsagePoint,
  type CurrentUsageWire,
  type NodeResourcesWire,
  type RunningResourcesWire,
  type RunResourcesWire,
  type UsagePointWire,
} from './wire.js';
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
