// The scheduler's subscribers that the daemon owns: Prometheus families, statsd (also fed by the
// DAG engine), and the report hooks (dispatched through a TaskSet that stop() drains). The
// scheduler never imports them.
import { Counter } from 'prom-client';
import { describeError, TaskSet, type Clock } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { ResolvedConfig } from '../config/index.js';
import {
  createMetrics,
  createStatsdPublisher,
  type ClusterMetricsSource,
  type Metrics,
  type StatsdProcesses,
} from '../metrics/index.js';
import { dispatchReport, type ReporterDeps } from '../report/index.js';
import type { Scheduler } from '../scheduler/index.js';

export interface Observers {
  /** Prometheus families; `metrics.render(accept)` is the GET /metrics response. */
  readonly metrics: Metrics;
  /** statsd for processes the scheduler does not launch (DAG task attempts and pokes). */
  readonly statsd: StatsdProcesses;
  /** Unsubscribe everything (after close()). */
  readonly unsubscribe: () => void;
  /** Let the pending reports and statsd sends finish. */
  close(): Promise<void>;
  /** Stop waiting for the pending reports: their shell reporters' groups get SIGKILL. */
  abandonReports(): void;
}

export interface ObserverDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly env: NodeJS.ProcessEnv;
  /** The yacron2_cluster_* families' source (the cluster supervisor). */
  readonly cluster?: ClusterMetricsSource;
}

export function subscribeObservers(
  deps: ObserverDeps,
  scheduler: Scheduler,
  config: ResolvedConfig,
): Observers {
  const { clock, logger, env } = deps;
  const reports = new TaskSet((error) =>
    logger.error(`Problem running a reporter: ${describeError(error)}`),
  );
  const metrics = createMetrics({
    clock,
    logger,
    config,
    ...(deps.cluster === undefined ? {} : { cluster: deps.cluster }),
  });
  // Reporter failures are logged by the dispatcher and counted here (not a reference family).
  const reportFailures = new Counter({
    name: 'yacron2_report_failures_total',
    help: 'Reports that could not be delivered, by job and reporter.',
    labelNames: ['job_name', 'reporter'] as const,
    registers: [metrics.registry],
  });
  const abandonReports = new AbortController();
  const reporterDeps: ReporterDeps = {
    logger,
    clock,
    baseEnv: env,
    tasks: reports,
    abandon: abandonReports.signal,
    onReporterFailed: (reporter, jobName) => reportFailures.inc({ job_name: jobName, reporter }),
  };
  metrics.onConfigReloaded(true, config);
  const statsd = createStatsdPublisher({ clock, logger });
  const unsubscribers = [
    metrics.subscribe(scheduler),
    statsd.subscribe(scheduler),
    scheduler.events.on('report:failed', (event) => dispatchReport(reporterDeps, 'failure', event)),
    scheduler.events.on('report:permanently-failed', (event) =>
      dispatchReport(reporterDeps, 'permanent-failure', event),
    ),
    scheduler.events.on('report:succeeded', (event) =>
      dispatchReport(reporterDeps, 'success', event),
    ),
  ];
  return {
    metrics,
    statsd,
    unsubscribe: () => {
      for (const off of unsubscribers) off();
    },
    async close(): Promise<void> {
      await reports.close();
      await statsd.close();
    },
    abandonReports: () => abandonReports.abort(),
  };
}
