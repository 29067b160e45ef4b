// The daemon families of docs/metrics.md "Daemon families" (and the always-present
// `yacron2_cluster_enabled` of docs/metrics.md "Cluster families"), read from a small mutable state
// object that createMetrics keeps current.
import { labelPair } from './exposition.js';
import { MetricFamily } from './family.js';
import type { JobTable } from './job-table.js';

export interface DaemonState {
  readonly versionLabel: string;
  readonly startTimeSeconds: number;
  jobSetId: string;
  /** null until the first parse result. */
  lastReloadSuccessful: boolean | null;
  lastReloadSuccessMs: number | null;
}

/** A family with at most one unlabelled sample (null = no sample: the family is omitted). */
export function single(
  name: string,
  kind: 'gauge' | 'counter',
  help: string,
  value: () => number | null,
): MetricFamily {
  return new MetricFamily({
    name,
    kind,
    help,
    collect(sink) {
      const sample = value();
      if (sample !== null) sink(name, '', sample);
    },
  });
}

export function createDaemonFamilies(state: DaemonState, table: JobTable): MetricFamily[] {
  return [
    new MetricFamily({
      name: 'yacron2_info',
      kind: 'info',
      help: 'yacron2 version',
      collect: (sink) => sink('yacron2_info', state.versionLabel, 1),
    }),
    single(
      'yacron2_start_time_seconds',
      'gauge',
      'When this daemon process started, seconds since the epoch',
      () => state.startTimeSeconds,
    ),
    new MetricFamily({
      name: 'yacron2_job_set_info',
      kind: 'info',
      help: 'Identifier of the current job set',
      collect: (sink) => sink('yacron2_job_set_info', labelPair('job_set_id', state.jobSetId), 1),
    }),
    new MetricFamily({
      name: 'yacron2_jobs',
      kind: 'gauge',
      help: 'Configured jobs by state',
      collect(sink) {
        let enabled = 0;
        const live = table.live();
        for (const { job } of live) if (job.enabled) enabled += 1;
        sink('yacron2_jobs', 'state="enabled"', enabled);
        sink('yacron2_jobs', 'state="disabled"', live.length - enabled);
      },
    }),
    single(
      'yacron2_config_last_reload_successful',
      'gauge',
      'Whether the latest configuration parse succeeded (1) or not (0)',
      () => (state.lastReloadSuccessful === null ? null : state.lastReloadSuccessful ? 1 : 0),
    ),
    single(
      'yacron2_config_last_reload_success_timestamp_seconds',
      'gauge',
      'When the configuration was last parsed successfully, seconds since the epoch',
      () => (state.lastReloadSuccessMs === null ? null : state.lastReloadSuccessMs / 1000),
    ),
  ];
}

/** `yacron2_cluster_enabled` is emitted always (0 without a running cluster backend). */
export function createClusterEnabledFamily(isClusterEnabled: () => boolean): MetricFamily {
  return single(
    'yacron2_cluster_enabled',
    'gauge',
    'Whether a cluster backend is running (1) or not (0)',
    () => (isClusterEnabled() ? 1 : 0),
  );
}
