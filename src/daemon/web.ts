// The control API reconciled with the `web` section (docs/http-api.md), loaded only when a config
// has one, plus the metrics' duration buckets that the section sets. Its problems are logged and
// never block the rest of a start or reload.
// Ordering: built last at start-up (it serves views of everything else) and closed last on stop,
// once the jobs have finished.
import { describeError } from '../common/index.js';
import type { WebServer, WebServerDeps } from '../http/index.js';
import { DEFAULT_DURATION_BUCKETS_SECONDS, type Metrics } from '../metrics/index.js';
import type { DurableState } from '../durable/index.js';
import type { SchedulerView } from '../scheduler/index.js';
import type { Reconciler } from './reconciler.js';

export interface WebDeps extends Omit<WebServerDeps, 'view'> {
  readonly scheduler: SchedulerView;
  /** The durable collaborator serving now: the trends source while a store is configured. */
  readonly durable: () => DurableState | undefined;
}

export function webReconciler(deps: WebDeps, metrics: Metrics): Reconciler<WebServer> {
  return async (server, config) => {
    metrics.setDurationBuckets(
      config.web?.metrics.durationBuckets ?? DEFAULT_DURATION_BUCKETS_SECONDS,
    );
    if (server === undefined && !config.web) return undefined;
    try {
      const { WebServer, viewWithTrends } = await import('../http/index.js');
      const { scheduler, durable, ...serverDeps } = deps;
      // The scheduler's view plus durable trends and archived output while a store serves
      // (without one the trends route computes the memory windows itself, the output routes 404).
      const view = viewWithTrends(
        scheduler,
        (name) => durable()?.getTrends(name),
        () => durable(),
      );
      const web = server ?? new WebServer({ ...serverDeps, view });
      await web.apply(config.web);
      return web;
    } catch (error) {
      deps.logger.error(`Cannot apply the web configuration: ${describeError(error)}`);
      return server;
    }
  };
}
