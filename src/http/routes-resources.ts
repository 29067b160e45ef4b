// GET /jobs/{name}/resources (docs/http-api.md "GET /jobs/{name}/resources"): a job's monitored runs, live and finished, with
// their CPU/RSS series. Served only when the daemon hands in a ResourcesView.
import type { FastifyInstance } from 'fastify';
import { formatIsoUtc } from '../common/index.js';
import {
  renderCurrentUsage,
  renderRunResources,
  renderUsagePoint,
  type LiveRunUsage,
} from '../resources/index.js';
import type { RouteContext } from './app.js';
import { boundedInteger, type QueryValue } from './query.js';
import { sendError, sendJson } from './responses.js';
import { renderRunRecord } from './run-records.js';
import type { MonitoredRun } from './types.js';
import type { FinishedRunWire, JobResourcesWire, LiveRunWire } from './wire/index.js';

/** Finished runs shown by default, and at most (the in-memory history keeps 50). */
export const DEFAULT_RESOURCE_RUNS = 20;
export const MAX_RESOURCE_RUNS = 50;

function renderLive(live: LiveRunUsage): LiveRunWire {
  return {
    started_at: formatIsoUtc(live.startedAtMs),
    pid: live.pid,
    current: live.current === null ? null : renderCurrentUsage(live.current),
    series: live.usage.series.map(renderUsagePoint),
  };
}

function renderFinished({ run, usage }: MonitoredRun): FinishedRunWire {
  return { ...renderRunRecord(run), resources: renderRunResources(usage, true) };
}

export function registerResourceRoutes(app: FastifyInstance, context: RouteContext): void {
  const { view, resources, settings } = context;
  if (resources === undefined) return;
  app.get<{ Params: { name: string }; Querystring: { runs?: QueryValue } }>(
    '/jobs/:name/resources',
    (request, reply) => {
      const { name } = request.params;
      const job = view.getJobConfig(name);
      if (job === undefined) return sendError(reply, 404);
      const limit = boundedInteger(request.query.runs, DEFAULT_RESOURCE_RUNS, 0, MAX_RESOURCE_RUNS);
      const finished = resources.monitoredRuns(name);
      const body: JobResourcesWire = {
        name,
        monitored: job.monitorResources.enabled,
        interval: job.monitorResources.intervalMs / 1000,
        live: resources
          .liveRuns(name)
          .filter((live) => live.current !== null)
          .map(renderLive),
        runs: limit === 0 ? [] : finished.slice(-limit).map(renderFinished),
      };
      return sendJson(reply, settings.headers, body);
    },
  );
}
