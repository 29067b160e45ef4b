// The per-job families of docs/metrics.md "Per-job families", in spec order: cumulative ones
// (sorted by job name, zero-filled) then live ones (config order, computed at scrape time). Label
// `job_name`.
import { MetricFamily, type SampleSink } from './family.js';
import { infoLabels, type JobTable } from './job-table.js';
import type { DurationHistogram, JobSeries } from './job-series.js';

export interface JobFamilySources {
  readonly table: JobTable;
  /** Epoch ms of a job's next cron fire, or null (no scheduler subscribed, none due). */
  readonly nextFireAtMs: (name: string) => number | null;
}

/** A counter/gauge with one sample per series, skipped where `value` returns null. */
function perSeries(
  table: JobTable,
  name: string,
  kind: 'counter' | 'gauge',
  help: string,
  value: (series: JobSeries) => number | null,
  reset?: (series: JobSeries) => void,
): MetricFamily {
  return new MetricFamily({
    name,
    kind,
    help,
    collect(sink) {
      for (const series of table.sorted()) {
        const sample = value(series);
        if (sample !== null) sink(name, series.label, sample);
      }
    },
    ...(reset ? { reset: () => table.sorted().forEach(reset) } : {}),
  });
}

function cumulativeFamilies(table: JobTable): MetricFamily[] {
  const runs = 'yacron2_job_runs_total';
  const cpu = 'yacron2_job_cpu_seconds_total';
  const duration = 'yacron2_job_duration_seconds';
  return [
    new MetricFamily({
      name: runs,
      kind: 'counter',
      help: 'Finished runs of the job by status (runs that entered the run history)',
      collect(sink) {
        for (const series of table.sorted()) {
          sink(runs, `${series.label},status="success"`, series.runsSuccess);
          sink(runs, `${series.label},status="failure"`, series.runsFailure);
          sink(runs, `${series.label},status="cancelled"`, series.runsCancelled);
        }
      },
      reset: () =>
        table.sorted().forEach((series) => {
          series.runsSuccess = series.runsFailure = series.runsCancelled = 0;
        }),
    }),
    perSeries(
      table,
      'yacron2_job_retries_total',
      'counter',
      'Retries of the job actually launched',
      (series) => series.retries,
      (series) => (series.retries = 0),
    ),
    perSeries(
      table,
      'yacron2_job_permanent_failures_total',
      'counter',
      'Failures of the job with no retry left (onPermanentFailure)',
      (series) => series.permanentFailures,
      (series) => (series.permanentFailures = 0),
    ),
    perSeries(
      table,
      'yacron2_job_start_failures_total',
      'counter',
      'Runs of the job whose command could not be spawned (also counted as failures)',
      (series) => series.startFailures,
      (series) => (series.startFailures = 0),
    ),
    new MetricFamily({
      name: duration,
      kind: 'histogram',
      help: 'Duration of finished runs of the job in seconds',
      collect(sink) {
        const { leLabels } = table.layout;
        for (const series of table.sorted())
          writeHistogram(sink, duration, series.label, series.histogram, leLabels);
      },
      reset: () => table.setLayout(table.layout),
    }),
    perSeries(
      table,
      'yacron2_job_last_success_timestamp_seconds',
      'gauge',
      'When the last successful run of the job finished, seconds since the epoch',
      (series) => (series.lastSuccessMs === null ? null : series.lastSuccessMs / 1000),
    ),
    perSeries(
      table,
      'yacron2_job_last_failure_timestamp_seconds',
      'gauge',
      'When the last failed run of the job finished, seconds since the epoch',
      (series) => (series.lastFailureMs === null ? null : series.lastFailureMs / 1000),
    ),
    new MetricFamily({
      name: cpu,
      kind: 'counter',
      help: 'CPU seconds used by monitored runs of the job (monitorResources)',
      collect(sink) {
        for (const series of table.sorted()) {
          if (series.cpuUserSeconds === null || series.cpuSystemSeconds === null) continue;
          sink(cpu, `${series.label},mode="user"`, series.cpuUserSeconds);
          sink(cpu, `${series.label},mode="system"`, series.cpuSystemSeconds);
        }
      },
      reset: () =>
        table.sorted().forEach((series) => {
          series.cpuUserSeconds = series.cpuSystemSeconds = null;
        }),
    }),
    perSeries(
      table,
      'yacron2_job_peak_rss_bytes',
      'gauge',
      'Highest resident set size seen over all monitored runs of the job, bytes',
      (series) => series.peakRssBytes,
    ),
  ];
}

/** One histogram's samples: cumulative `_bucket`s, `_sum`, `_count` (job and DAG task series). */
export function writeHistogram(
  sink: SampleSink,
  name: string,
  label: string,
  histogram: DurationHistogram,
  leLabels: readonly string[],
): void {
  const bucket = `${name}_bucket`;
  let cumulative = 0;
  leLabels.forEach((le, index) => {
    cumulative += histogram.counts[index] ?? 0;
    sink(bucket, `${label},${le}`, cumulative);
  });
  sink(`${name}_sum`, label, histogram.sum);
  sink(`${name}_count`, label, histogram.count);
}

/** A live gauge over the configured jobs in config order, skipped where `value` is null. */
function liveGauge(
  table: JobTable,
  name: string,
  help: string,
  value: (live: ReturnType<JobTable['live']>[number]) => number | null,
): MetricFamily {
  return new MetricFamily({
    name,
    kind: 'gauge',
    help,
    collect(sink) {
      for (const live of table.live()) {
        const sample = value(live);
        if (sample !== null) sink(name, live.series.label, sample);
      }
    },
  });
}

function liveFamilies({ table, nextFireAtMs }: JobFamilySources): MetricFamily[] {
  const info = 'yacron2_job_info';
  return [
    new MetricFamily({
      name: info,
      kind: 'info',
      help: 'Configured job: its schedule and cluster policy',
      collect(sink) {
        for (const live of table.live()) sink(info, infoLabels(live), 1);
      },
    }),
    liveGauge(table, 'yacron2_job_enabled', 'Whether the job is enabled (1) or not (0)', (live) =>
      live.job.enabled ? 1 : 0,
    ),
    liveGauge(
      table,
      'yacron2_job_running',
      'Running instances of the job',
      (live) => live.series.running,
    ),
    liveGauge(
      table,
      'yacron2_job_next_run_timestamp_seconds',
      'When the job fires next, seconds since the epoch (absent for disabled and @reboot jobs)',
      ({ job }) => {
        if (!job.enabled || job.schedule.kind !== 'cron') return null;
        const atMs = nextFireAtMs(job.name);
        return atMs === null ? null : atMs / 1000;
      },
    ),
    liveGauge(
      table,
      'yacron2_job_last_run_timestamp_seconds',
      'When the latest run of the job finished, seconds since the epoch',
      ({ series }) => (series.lastRun ? series.lastRun.finishedAtMs / 1000 : null),
    ),
    liveGauge(
      table,
      'yacron2_job_last_run_duration_seconds',
      'Duration of the latest run of the job in seconds',
      ({ series }) => series.lastRun?.durationSeconds ?? null,
    ),
    liveGauge(
      table,
      'yacron2_job_last_run_exit_code',
      'Exit code of the latest run of the job',
      ({ series }) => series.lastRun?.exitCode ?? null,
    ),
    liveGauge(
      table,
      'yacron2_job_last_run_success',
      'Whether the latest run of the job succeeded (1) or not (0)',
      ({ series }) => (series.lastRun ? (series.lastRun.success ? 1 : 0) : null),
    ),
    liveGauge(
      table,
      'yacron2_job_last_run_cpu_seconds',
      'CPU seconds of the latest run of the job (monitored runs only)',
      ({ series }) => series.lastRun?.cpuSeconds ?? null,
    ),
    liveGauge(
      table,
      'yacron2_job_last_run_max_rss_bytes',
      'Peak resident set size of the latest run of the job, bytes (monitored runs only)',
      ({ series }) => series.lastRun?.maxRssBytes ?? null,
    ),
  ];
}

/** Every per-job family, in exposition order. */
export function createJobFamilies(sources: JobFamilySources): MetricFamily[] {
  return [...cumulativeFamilies(sources.table), ...liveFamilies(sources)];
}
