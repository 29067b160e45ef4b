// What the control API needs from the daemon, declared here so http/ never imports daemon/: a
// read-only view in domain values (the scheduler's view satisfies it; http/ renders the wire
// shapes) and manual control, plus the dependencies of one server. Types only.
import type { ClusterStatus, FleetStatus, NodeStatsReading } from '../cluster/index.js';
import type { ResolvedJob } from '../config/index.js';
import type { ResolvedWeb } from '../config/index.js';
import type {
  JobState,
  ManualStartResult,
  RunSummary,
  SchedulerEvents,
} from '../scheduler/index.js';
import type {
  LiveRunUsage,
  NodeHistorySnapshot,
  NodeResources,
  RunUsage,
} from '../resources/index.js';
import type { StateInspector } from '../state/index.js';
import type { DagEngine } from '../dags/index.js';
import type { ArchiveEntry, ArchiveLookup } from '../durable/index.js';
import type { TrendRuns } from './trends.js';
import type { JobClusterFields } from './wire/index.js';

export type { JobClusterFields, JobSlotField } from './wire/index.js';

/** The scheduler events the API subscribes to (job-list cache, output buffers, SSE). */
export interface DaemonEvents {
  on<K extends keyof SchedulerEvents>(
    event: K,
    listener: (payload: SchedulerEvents[K]) => void,
  ): () => void;
}

/** Read-only daemon state, in domain values. Throwing getters throw YC_ERR_JOB_UNKNOWN. */
export interface DaemonView {
  readonly events: DaemonEvents;
  /** Every configured job's state, in config order. */
  getJobStates(): readonly JobState[];
  getJobState(name: string): JobState;
  /** The in-memory history, oldest first. */
  getRuns(name: string): readonly RunSummary[];
  getJobConfig(name: string): ResolvedJob | undefined;
  getNextFireAtMs(name: string): number | null;
  /**
   * The runs GET /jobs/{name}/trends computes its windows over: the durable run ledger's, while
   * a `state` section is configured (absent, or answering undefined = the route uses getRuns(),
   * source "memory"; a daemon whose state section comes and goes with reloads answers
   * undefined). A rejection (the store failed or timed out) is logged and answered from memory,
   * except YC_ERR_JOB_UNKNOWN (-> 404): the route owns the one fallback (job-trends.ts).
   */
  getTrends?(name: string): Promise<TrendRuns> | undefined;
  /**
   * The reader of archived output (docs/http-api.md "GET /jobs/{name}/output"): the durable
   * state serving now; absent, or answering undefined, while no `state` section is configured
   * (the output routes then answer 404).
   */
  archives?(): ArchiveReader | undefined;
}

/**
 * Archived run output in the store (the durable state serves it). Rejections carry
 * YC_ERR_STATE_UNAVAILABLE while the store is still opening (a 503), or the store's error.
 */
export interface ArchiveReader {
  /** The job's archives, newest first, at most `limit`. */
  listArchives(name: string, limit: number): Promise<readonly ArchiveEntry[]>;
  readArchive(name: string, id: string): Promise<ArchiveLookup>;
}

/**
 * Manual control (docs/http-api.md "POST /jobs/{name}/start and cancel"). Rejections carry
 * YC_ERR_JOB_UNKNOWN / _DISABLED / _NOT_RUNNING / YC_ERR_SHUTTING_DOWN.
 */
export interface DaemonControl {
  startJob(name: string): Promise<ManualStartResult>;
  cancelJob(name: string): Promise<void>;
}

/** The cluster as the API shows it (GET /cluster, GET /fleet, the jobs' cluster keys). */
export interface ClusterApiView {
  /** The running backend's view; null without one (no section, or it failed to start). */
  status(): ClusterStatus | null;
  fleet(): FleetStatus | null;
  /** This node's resources reading (`node_stats`); null when none. */
  nodeStats(): NodeStatsReading | null;
  /** null when election is not configured (no cluster keys at all). */
  jobFields(job: ResolvedJob): JobClusterFields | null;
}

/** A rendered metrics scrape. */
export interface MetricsExposition {
  readonly contentType: string;
  readonly body: string;
}

/**
 * Renders /metrics for the request's Accept header (docs/metrics.md "Scraping /metrics" chooses the
 * format).
 */
export type RenderMetrics = (accept: string | undefined) => Promise<MetricsExposition>;

/** The job-set id and job count (`GET /job-set-id`). */
export interface JobSetInfo {
  readonly jobSetId: string;
  readonly jobs: number;
}

export type WebSettings = ResolvedWeb;

/** A finished monitored run: its summary and its resource usage with the series. */
export interface MonitoredRun {
  readonly run: RunSummary;
  readonly usage: RunUsage;
}

/**
 * Resource usage of monitored runs (`running_resources`, GET /jobs/{name}/resources). Cheap,
 * synchronous.
 */
export interface ResourcesView {
  /** The job's running monitored instances, sampled or not yet, oldest first. */
  liveRuns(jobName: string): readonly LiveRunUsage[];
  /** The job's finished monitored runs still in its history, oldest first. */
  monitoredRuns(jobName: string): readonly MonitoredRun[];
}

/** This node (GET /node, /node/history). */
export interface NodeView {
  /** The cluster nodeName, or the hostname. */
  nodeName(): string;
  /** A fresh (or just-taken) reading; null when the host cannot be sampled. */
  reading(): NodeResources | null;
  history(): NodeHistorySnapshot;
}

/** The DAG engine serving now; null while the config has no DAGs or no store. */
export type DagSource = () => DagEngine | null;

/** The inspector of the configured `state` section; null while none is configured. */
export type StateInspectorSource = () => StateInspector | null;

/** Limits that keep one client from costing the daemon unbounded memory. */
export interface StreamLimits {
  /** Bytes an SSE client may have queued (the replay included) before it is cut off. */
  readonly maxQueuedBytes: number;
  /** Open SSE streams across all listeners (a 503 beyond). */
  readonly maxStreams: number;
  /** Open SSE streams per client IP address (a 429 beyond). */
  readonly maxStreamsPerClient: number;
  /** Time a cut-off client gets to take its end marker before its socket is destroyed. */
  readonly closeGraceMs: number;
  /** A keep-alive comment after this long without an event. */
  readonly keepAliveMs: number;
}
