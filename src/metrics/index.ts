// The metrics door: Prometheus families over scheduler events (createMetrics, whose `render` is
// what GET /metrics serves) and per-job statsd datagrams (createStatsdPublisher).
export {
  createMetrics,
  type DagMetricsObserver,
  type Metrics,
  type MetricsConfig,
  type MetricsEventSource,
  type MetricsOptions,
  type RenderedMetrics,
  type RenderMetrics,
} from './create-metrics.js';
export type { CounterSnapshot, JobCounterSnapshot } from './counter-snapshot.js';
export {
  negotiateFormat,
  OPENMETRICS_CONTENT_TYPE,
  TEXT_CONTENT_TYPE,
  type ExpositionFormat,
} from './exposition.js';
export { DEFAULT_DURATION_BUCKETS_SECONDS } from './job-series.js';
export { parseExposition, type ParsedFamily, type ParsedSample } from './exposition-parser.js';
export {
  createStatsdPublisher,
  formatStartDatagram,
  formatStopDatagram,
  type StatsdDeps,
  type StatsdProcesses,
  type StatsdPublisher,
} from './statsd.js';
export { sendUdpDatagram, type DatagramSend } from './udp-send.js';
export {
  createClusterFamilies,
  type ClusterMetricsSource,
  type ClusterMetricsView,
} from './cluster-families.js';
