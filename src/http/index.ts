// The http door: the control API's web controller (reconciled with the `web` section), the
// app builder for route tests, and the interfaces the daemon hands it.
export { WebServer, type WebServerDeps } from './web-server.js';
export { buildHttpApp, type HttpAppDeps, BODY_LIMIT_BYTES, MAX_PARAM_LENGTH } from './app.js';
export { JobListCache } from './job-list-cache.js';
export { viewWithTrends } from './view-with-trends.js';
export { OutputTracker } from './output-tracker.js';
export { DEFAULT_STREAM_LIMITS } from './sse-stream.js';
export { describeRelativeSeconds, formatStatusText } from './status-text.js';
export type {
  ArchiveReader,
  ClusterApiView,
  DaemonControl,
  DaemonEvents,
  DaemonView,
  JobClusterFields,
  JobSetInfo,
  MetricsExposition,
  MonitoredRun,
  NodeView,
  ResourcesView,
  StateInspectorSource,
  RenderMetrics,
  StreamLimits,
  WebSettings,
} from './types.js';
export { computeRunStats, renderJobRuns, renderRunRecord } from './run-records.js';
export { renderJobView, renderStatusEntry } from './job-views.js';
export { computeTrends, TREND_WINDOWS_MS, type TrendRuns } from './trends.js';
// The response bodies (the dashboard imports them from wire/index.ts itself).
export type {
  JobRuns,
  JobView,
  RetryView,
  RunRecord,
  RunRecordOutcome,
  RunStats,
  StatusEntry,
  TrendSource,
  TrendsView,
} from './wire/index.js';
export { renderClusterStatus, renderFleet } from './cluster-views.js';
