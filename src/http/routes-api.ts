// The JSON and text routes of the control API (docs/http-api.md "Routes", /metrics and the `GET /`
// dashboard page). 200s and the start/cancel 409s carry `web.headers` (docs/http-api.md "Responses,
// errors and limits"); 404s are bare.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { describeError, httpStatusOf, isYacronError, pythonRepr } from '../common/index.js';
import type { RouteContext } from './app.js';
import {
  CLUSTER_DISABLED,
  FLEET_DISABLED,
  renderClusterStatus,
  renderFleet,
  withClusterFields,
} from './cluster-views.js';
import { jobObject } from './job-object.js';
import { readJobTrends } from './job-trends.js';
import { loadDashboardPage } from './dashboard-page.js';
import { renderJobView, renderStatusEntry } from './job-views.js';
import {
  HTML_TYPE,
  JSON_TYPE,
  SECURITY_HEADERS,
  TEXT_TYPE,
  mergeHeaders,
  sendError,
} from './responses.js';
import { renderJobRuns } from './run-records.js';
import { formatStatusText } from './status-text.js';
import type { ClusterWire, FleetWire, JobSetIdWire } from './wire/index.js';

interface NameParams {
  readonly name: string;
}

/**
 * `Accept` equal to exactly `application/json` (docs/http-api.md "GET /status": string equality, no
 * media ranges).
 */
function wantsJson(accept: string | undefined): boolean {
  return accept === 'application/json';
}

export function registerApiRoutes(app: FastifyInstance, context: RouteContext): void {
  const { view, control, settings } = context;
  const headers = settings.headers;

  const sendJson = (reply: FastifyReply, body: string | Buffer, status = 200): FastifyReply =>
    reply.code(status).headers(headers).type(JSON_TYPE).send(body);
  const sendText = (reply: FastifyReply, body: string, status = 200): FastifyReply =>
    reply.code(status).headers(headers).type(TEXT_TYPE).send(body);

  if (settings.ui) {
    const page = loadDashboardPage();
    if (page.kind === 'placeholder' && page.problem !== null) {
      context.logger.warn(
        `web: serving the placeholder page at /, not the dashboard: ${page.problem} (run npm run build)`,
      );
    }
    const pageHeaders = mergeHeaders(
      { ...SECURITY_HEADERS, 'Content-Security-Policy': page.contentSecurityPolicy },
      headers,
    );
    app.get('/', (_request, reply) => reply.headers(pageHeaders).type(HTML_TYPE).send(page.html));
  }

  app.get('/version', (_request, reply) => sendText(reply, context.version));

  app.get('/job-set-id', (request, reply) => {
    const { jobSetId, jobs } = context.jobSet();
    if (wantsJson(request.headers.accept)) {
      const body: JobSetIdWire = { job_set_id: jobSetId, jobs };
      return sendJson(reply, JSON.stringify(body));
    }
    return sendText(reply, jobSetId);
  });

  app.get('/status', (request, reply) => {
    const nowMs = context.clock.now();
    const entries = view.getJobStates().map((state) => renderStatusEntry(state, nowMs));
    if (wantsJson(request.headers.accept)) return sendJson(reply, JSON.stringify(entries));
    return sendText(reply, formatStatusText(entries));
  });

  app.get('/jobs', (_request, reply) => sendJson(reply, context.jobList.render()));

  app.get<{ Params: NameParams }>('/jobs/:name', (request, reply) => {
    const { name } = request.params;
    const job = view.getJobConfig(name);
    if (job === undefined) return sendError(reply, 404);
    const rendered = renderJobView(view.getJobState(name), context.clock.now());
    const json = JSON.stringify(jobObject(rendered, context.resources));
    return sendJson(reply, withClusterFields(json, context.cluster?.jobFields(job) ?? null));
  });

  app.get<{ Params: NameParams }>('/jobs/:name/runs', (request, reply) => {
    const { name } = request.params;
    if (view.getJobConfig(name) === undefined) return sendError(reply, 404);
    return sendJson(reply, JSON.stringify(renderJobRuns(name, view.getRuns(name))));
  });

  app.get<{ Params: NameParams }>('/jobs/:name/trends', async (request, reply) => {
    const trends = await readJobTrends(context, request.params.name);
    if (trends === null) return sendError(reply, 404);
    return sendJson(reply, JSON.stringify(trends));
  });

  app.post<{ Params: NameParams }>('/jobs/:name/start', async (request, reply) => {
    const { name } = request.params;
    try {
      await control.startJob(name);
    } catch (error) {
      if (isYacronError(error, 'YC_ERR_JOB_UNKNOWN')) return sendError(reply, httpStatusOf(error));
      if (isYacronError(error, 'YC_ERR_JOB_DISABLED')) {
        return sendText(reply, `job ${pythonRepr(name)} is disabled`, httpStatusOf(error));
      }
      if (isYacronError(error, 'YC_ERR_SHUTTING_DOWN')) {
        return sendError(reply, httpStatusOf(error), describeError(error));
      }
      throw error;
    }
    return reply.code(200).headers(headers).send();
  });

  app.post<{ Params: NameParams }>('/jobs/:name/cancel', async (request, reply) => {
    const { name } = request.params;
    try {
      await control.cancelJob(name);
    } catch (error) {
      if (isYacronError(error, 'YC_ERR_JOB_UNKNOWN')) return sendError(reply, httpStatusOf(error));
      if (isYacronError(error, 'YC_ERR_JOB_NOT_RUNNING')) {
        return sendText(reply, `job ${pythonRepr(name)} is not running`, httpStatusOf(error));
      }
      throw error;
    }
    return reply.code(200).headers(headers).send();
  });

  // Served from held state (docs/clustering.md "Observing the cluster"): no peer traffic.
  app.get('/cluster', (_request, reply) => {
    const status = context.cluster?.status() ?? null;
    const body: ClusterWire =
      status === null
        ? CLUSTER_DISABLED
        : renderClusterStatus(status, context.cluster?.nodeStats() ?? null);
    return sendJson(reply, JSON.stringify(body));
  });
  app.get('/fleet', (_request, reply) => {
    const fleet = context.cluster?.fleet() ?? null;
    const body: FleetWire = fleet === null ? FLEET_DISABLED : renderFleet(fleet);
    return sendJson(reply, JSON.stringify(body));
  });

  const { renderMetrics } = context;
  if (settings.metrics.enabled && renderMetrics !== null) {
    // web.headers minus any content-type: the exposition type always wins (docs/metrics.md
    // "Scraping /metrics").
    const metricsHeaders = mergeHeaders({}, headers, ['content-type']);
    app.get('/metrics', async (request, reply) => {
      const exposition = await renderMetrics(request.headers.accept);
      return reply
        .code(200)
        .headers(metricsHeaders)
        .header('Content-Type', exposition.contentType)
        .send(exposition.body);
    });
  }
}
