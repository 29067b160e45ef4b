// The Prometheus side of metrics: per-job and daemon families kept current from scheduler events
// (docs/architecture.md "Layers": the scheduler never imports this), held in a prom-client Registry
// (never the global one) and rendered per request in the format the Accept header asks for.
import { Registry } from 'prom-client';
import { describeError, readPackageVersion, type Clock } from '../common/index.js';
import { silentLogger, type Logger } from '../logging/index.js';
import type { ResolvedConfig } from '../config/index.js';
import type { SchedulerView } from '../scheduler/index.js';
import {
  createClusterEnabledFamily,
  createDaemonFamilies,
  type DaemonState,
} from './daemon-families.js';
import { createClusterFamilies, type ClusterMetricsSource } from './cluster-families.js';
import { seedJobTable, snapshotJobTable, type CounterSnapshot } from './counter-snapshot.js';
import { contentTypeOf, labelPair, negotiateFormat } from './exposition.js';
import { registerFamily } from './family.js';
import { createDagFamilies } from './dag-families.js';
import { DagTable } from './dag-table.js';
import { createJobFamilies } from './job-families.js';
import { BucketLayout, DEFAULT_DURATION_BUCKETS_SECONDS } from './job-series.js';
import { JobTable } from './job-table.js';
import { renderRegistry } from './render.js';

/** The part of a configuration metrics read. */
export type MetricsConfig = Pick<ResolvedConfig, 'jobs' | 'jobSetId' | 'dags'>;

/** What metrics subscribe to: the scheduler's events and its next-fire index. */
export type MetricsEventSource = Pick<SchedulerView, 'events' | 'getNextFireAtMs'>;

export interface RenderedMetrics {
  readonly contentType: string;
  readonly body: string;
}

/**
 * A `/metrics` response for the request's Accept header (OpenMetrics 1.0 when it contains
 * `application/openmetrics-text`, else the text format 0.0.4). Never rejects.
 */
export type RenderMetrics = (accept?: string | readonly string[]) => Promise<RenderedMetrics>;

export interface MetricsOptions {
  readonly clock: Clock;
  /** The configuration the daemon starts with (its jobs are zero-filled at once). */
  readonly config: MetricsConfig;
  /** Where the families are registered; a fresh Registry by default (never the global one). */
  readonly registry?: Registry;
  /** For collect errors of other prom-client metrics in the registry (logger `prometheus`). */
  readonly logger?: Logger;
  /** yacron2_info's `version`; default: package.json's. */
  readonly version?: string;
  /** Histogram bounds (web.metrics.durationBuckets); default 0.1 … 3600. */
  readonly durationBucketsSeconds?: readonly number[];
  /** Process start, epoch ms; default: the clock's now minus the process uptime. */
  readonly processStartMs?: number;
  /** Feeds yacron2_cluster_enabled (always emitted); default: no cluster backend (0). */
  readonly isClusterEnabled?: () => boolean;
  /**
   * The cluster supervisor: registers the other yacron2_cluster_* families (after
   * yacron2_cluster_enabled) and, unless isClusterEnabled is given, feeds that one too.
   */
  readonly cluster?: ClusterMetricsSource;
}

export interface Metrics {
  readonly registry: Registry;
  /** Follow a scheduler's runs; returns the unsubscribe function. Subscribe before start(). */
  subscribe(scheduler: MetricsEventSource): () => void;
  /**
   * The result of a configuration parse: `ok` sets yacron2_config_last_reload_* ; with a config
   * the job set is replaced (new jobs zero-filled, removed ones pruned once they stop running).
   */
  onConfigReloaded(ok: boolean, config?: MetricsConfig): void;
  /** New histogram bounds; a change resets every job's histogram (counters are kept). */
  setDurationBuckets(boundsSeconds: readonly number[]): void;
  /**
   * The per-job cumulative accumulators of every job that has series (configured ones, and
   * removed ones still running), as plain JSON for the durable counters stream.
   * yacron2_start_time_seconds and the live gauges are not part of it.
   */
  snapshotCounters(): CounterSnapshot;
  /**
   * Add a snapshot read back from the store (untrusted: any value is accepted, malformed entries
   * are skipped, it never throws) into the accumulators of the jobs in `configuredJobNames` that
   * this Metrics also has configured. Counts are added, last success/failure timestamps take the
   * later instant, peak RSS the larger value; the duration histogram is restored only when the
   * snapshot's bucket bounds equal the current ones.
   *
   * Call it at most once per process, at boot, before the scheduler starts: seeding adds, so a
   * second seed would double-count. Every call after the first is ignored (returns 0 jobs).
   */
  seedCounters(snapshot: unknown, configuredJobNames: ReadonlySet<string>): { seededJobs: number };
  readonly render: RenderMetrics;
  /** The DAG engine's observer: feeds the yacron2_dag_* families (docs/metrics.md "DAG families"). */
  readonly dags: DagMetricsObserver;
}

/** What the DAG engine reports (the shape of the dags layer's DagObserver). */
export type DagMetricsObserver = Pick<
  DagTable,
  'runAdvanced' | 'runReleased' | 'runFinished' | 'attemptStarted' | 'attemptFinished'
>;

export function createMetrics(options: MetricsOptions): Metrics {
  const { clock } = options;
  const logger = options.logger ?? silentLogger();
  const registry = options.registry ?? new Registry();
  const table = new JobTable(
    new BucketLayout(options.durationBucketsSeconds ?? DEFAULT_DURATION_BUCKETS_SECONDS),
  );
  const state: DaemonState = {
    versionLabel: labelPair('version', options.version ?? readPackageVersion()),
    startTimeSeconds: (options.processStartMs ?? clock.now() - process.uptime() * 1000) / 1000,
    jobSetId: options.config.jobSetId,
    lastReloadSuccessful: null,
    lastReloadSuccessMs: null,
  };
  table.applyJobs(options.config.jobs);
  const dagTable = new DagTable(table.layout);
  dagTable.applyDags(options.config.dags ?? []);
  let source: MetricsEventSource | null = null;
  let seeded = false;

  const families = [
    ...createDaemonFamilies(state, table),
    ...createJobFamilies({
      table,
      nextFireAtMs: (name) => source?.getNextFireAtMs(name) ?? null,
    }),
    ...createDagFamilies(dagTable),
    createClusterEnabledFamily(
      options.isClusterEnabled ??
        (() => (options.cluster === undefined ? false : options.cluster.view() !== null)),
    ),
    ...(options.cluster === undefined ? [] : createClusterFamilies(options.cluster)),
  ];
  for (const family of families) registerFamily(registry, family);

  const onCollectError = (metricName: string, error: unknown): void =>
    logger.error(
      { logger: 'prometheus', err: error },
      `Cannot collect metric ${metricName}: ${describeError(error)}`,
    );

  return {
    registry,
    subscribe(scheduler) {
      source = scheduler;
      const unsubscribers = [
        scheduler.events.on('run:started', (event) => table.onRunStarted(event)),
        scheduler.events.on('run:finished', (event) => table.onRunFinished(event)),
        scheduler.events.on('report:permanently-failed', (event) =>
          table.onPermanentFailure(event),
        ),
      ];
      return () => {
        for (const unsubscribe of unsubscribers) unsubscribe();
        if (source === scheduler) source = null;
      };
    },
    onConfigReloaded(ok, config) {
      state.lastReloadSuccessful = ok;
      if (!ok) return;
      state.lastReloadSuccessMs = clock.now();
      if (config) {
        state.jobSetId = config.jobSetId;
        table.applyJobs(config.jobs);
        dagTable.applyDags(config.dags ?? []);
      }
    },
    setDurationBuckets(boundsSeconds) {
      if (table.layout.sameBounds(boundsSeconds)) return;
      const layout = new BucketLayout(boundsSeconds);
      table.setLayout(layout);
      dagTable.setLayout(layout);
    },
    snapshotCounters() {
      return snapshotJobTable(table);
    },
    seedCounters(snapshot, configuredJobNames) {
      if (seeded) return { seededJobs: 0 };
      seeded = true;
      return { seededJobs: seedJobTable(table, snapshot, configuredJobNames) };
    },
    dags: dagTable,
    async render(accept) {
      const format = negotiateFormat(accept);
      const body = await renderRegistry(registry, format, onCollectError);
      return { contentType: contentTypeOf(format), body };
    },
  };
}
