// The control API reconciled with the `web` section (docs/http-api.md), loaded only when a config
// has one, plus the metrics' duration buckets that the section sets. Its problems are logged and
// never block the rest of a start or reload.
// Ordering: built last at start-up (it serves views of everything else) and closed last on stop,
// once the jobs have finished.
import { describeError } from '../common/index.js';
import type { DaemonView, WebServer, WebServerDeps } from '../http/index.js';
import { DEFAULT_DURATION_BUCKETS_SECONDS, type Metrics } from '../metrics/index.js';
import type { DurableState } from '../durable/index.js';
import type { SchedulerView } from '../scheduler/index.js';
import type { Reconciler } from './reconciler.js';

export function webReconciler(deps: WebServerDeps, metrics: Metrics): Reconciler<WebServer> {
  return async (server, config) => {
    metrics.setDurationBuckets(
      config.web?.metrics.durationBuckets ?? DEFAULT_DURATION_BUCKETS_SECONDS,
    );
    if (server === undefined && !config.web) return undefined;
    try {
      const { WebServer } = await import('../http/index.js');
      const web = server ?? new WebServer(deps);
      await web.apply(config.web);
      return web;
    } catch (error) {
      deps.logger.error(`Cannot apply the web configuration: ${describeError(error)}`);
      return server;
    }
  };
}

/** The HTTP view: the scheduler's read-only view, plus durable trends while a store serves. */
export function daemonView(
  scheduler: SchedulerView,
  durable: () => DurableState | undefined,
): DaemonView {
  return {
    events: scheduler.events,
    getJobStates: () => scheduler.getJobStates(),
    getJobState: (name) => scheduler.getJobState(name),
    getRuns: (name) => scheduler.getRuns(name),
    getJobConfig: (name) => scheduler.getJobConfig(name),
    getNextFireAtMs: (name) => scheduler.getNextFireAtMs(name),
    // Without a store the route computes the memory windows itself.
    getTrends: (name) => durable()?.getTrends(name),
  };
}
