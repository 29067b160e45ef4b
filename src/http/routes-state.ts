// The state inspector routes (docs/http-api.md "State inspector"): GET /state (what the store is, how it is doing,
// what it holds by prefix, leases, quarantine, this node's retries and slots), GET
// /state/documents?ns= (KV values reduced to size and type by the inspector) and GET
// /state/records?stream= (never the archived output of `logs` streams: 403). Store trouble is
// never an error here: the overview falls back to health only, the lists come back empty.
// Served only when the daemon hands in a StateInspectorSource.
import type { FastifyInstance } from 'fastify';
import type { StateOverview } from '../state/index.js';
import type { RouteContext } from './app.js';
import { renderRetryView } from './job-views.js';
import { boundedInteger, firstValue, type QueryValue } from './query.js';
import { sendError, sendJson } from './responses.js';
import type { DaemonView } from './types.js';
import type {
  PrefixWire,
  StateDocumentsWire,
  StateOpWire,
  StateOverviewWire,
  StateRecordsWire,
  StateRetryWire,
  StateStatsWire,
  StateWire,
} from './wire/index.js';

/** Scopes listed per prefix, and leases listed, at most. */
export const STATE_LIST_CAP = 200;
/** Documents of one namespace answered at most (the rest is flagged `truncated`). */
export const STATE_DOCUMENTS_CAP = 1000;
export const DEFAULT_RECORDS_LIMIT = 100;
export const MAX_RECORDS_LIMIT = 500;
const DOCUMENT_PREFIXES = ['kv/', 'cursor/', 'idem/'] as const;

/** A PrefixWire being counted. */
interface PrefixTally {
  count: number;
  streams: number;
  scopes: { scope: string; count: number }[];
}

/** `runs/backup` -> prefix `runs`, scope `backup`; names are sorted, so scopes come sorted. */
function byPrefix(entries: readonly { name: string; size: number }[]): Record<string, PrefixWire> {
  const out: Record<string, PrefixTally> = {};
  for (const { name, size } of entries) {
    const slash = name.indexOf('/');
    const prefix = slash < 0 ? name : name.slice(0, slash);
    const summary = (out[prefix] ??= { count: 0, streams: 0, scopes: [] });
    summary.count += size;
    summary.streams += 1;
    if (summary.scopes.length < STATE_LIST_CAP) {
      summary.scopes.push({ scope: slash < 0 ? '' : name.slice(slash + 1), count: size });
    }
  }
  return out;
}

function renderStats(overview: StateOverview): StateStatsWire {
  const { stats, writeQueue } = overview;
  const ops: Record<string, StateOpWire> = {};
  for (const [op, value] of Object.entries(stats?.ops ?? {})) ops[op] = { ...value };
  return {
    ops,
    lock: {
      acquisitions: stats?.lock.acquisitions ?? 0,
      wait_seconds: stats?.lock.waitSeconds ?? 0,
    },
    throttle: { count: stats?.throttle.count ?? 0, wait_seconds: stats?.throttle.waitSeconds ?? 0 },
    workers:
      writeQueue === null
        ? {}
        : {
            writes: {
              inflight: writeQueue.runningLanes,
              capacity: writeQueue.concurrency,
              pending: writeQueue.pending,
              max_pending: writeQueue.maxPending,
            },
          },
  };
}

/** This node's armed retries, from the job states (config order). */
function retriesOf(view: DaemonView): StateRetryWire[] {
  const retries: StateRetryWire[] = [];
  for (const state of view.getJobStates()) {
    if (state.retry === null) continue;
    const { attempt, nextRetryAt, delaySeconds } = renderRetryView(state.retry);
    retries.push({ job: state.job.name, attempt, nextRetryAt, delaySeconds });
  }
  return retries;
}

function renderOverview(
  context: RouteContext,
  overview: StateOverview,
  nowMs: number,
): StateOverviewWire {
  const { view, contents, node } = overview;
  return {
    enabled: true,
    view: {
      backend: view.backend,
      path: view.path,
      namespace: view.namespace,
      topology: view.topology,
      shared_locking: view.sharedLocking,
      job_set_id: context.jobSet().jobSetId,
    },
    stats: renderStats(overview),
    enumerable: contents !== null,
    records: byPrefix(
      contents?.inventory.streams.map((s) => ({ name: s.name, size: s.records })) ?? [],
    ),
    documents: byPrefix(
      contents?.inventory.documentNamespaces.map((d) => ({ name: d.ns, size: d.documents })) ?? [],
    ),
    leases: (contents?.leases ?? []).slice(0, STATE_LIST_CAP).map((lease) => ({
      name: lease.name,
      holder: lease.holder,
      fence: lease.fence,
      expiresAt: lease.expiresAtMs / 1000,
      expired: nowMs >= lease.expiresAtMs,
    })),
    quarantine: contents?.inventory.quarantined ?? 0,
    node: {
      host: node.host,
      retries: retriesOf(context.view),
      slots: node.slots.slice(0, STATE_LIST_CAP).map((slot) => ({
        slot: slot.slot,
        holder: slot.holder,
        fence: slot.fence,
        expiresAt: slot.expiresAtMs / 1000,
        refs: slot.refs,
      })),
    },
  };
}

export function registerStateRoutes(app: FastifyInstance, context: RouteContext): void {
  const { stateInspector: source, settings, clock } = context;
  if (source === undefined) return;
  const headers = settings.headers;

  app.get('/state', async (_request, reply) => {
    const inspector = source();
    if (inspector === null) return sendJson(reply, headers, { enabled: false } satisfies StateWire);
    const overview = await inspector.overview();
    const body: StateWire = renderOverview(context, overview, clock.now());
    return sendJson(reply, headers, body);
  });

  app.get<{ Querystring: { ns?: QueryValue } }>('/state/documents', async (request, reply) => {
    const inspector = source();
    if (inspector === null) return sendError(reply, 404);
    const ns = firstValue(request.query.ns);
    if (ns === undefined || !DOCUMENT_PREFIXES.some((prefix) => ns.startsWith(prefix))) {
      return sendError(reply, 400);
    }
    const { bodies, truncated } = await inspector.documents(ns, STATE_DOCUMENTS_CAP);
    const body: StateDocumentsWire = { namespace: ns, documents: bodies, truncated };
    return sendJson(reply, headers, body);
  });

  app.get<{ Querystring: { stream?: QueryValue; limit?: QueryValue } }>(
    '/state/records',
    async (request, reply) => {
      const inspector = source();
      if (inspector === null) return sendError(reply, 404);
      const stream = firstValue(request.query.stream);
      if (stream === undefined || stream === '') return sendError(reply, 400);
      // Archived job output may hold anything a job printed: never through the inspector.
      if (stream === 'logs' || stream.startsWith('logs/')) return sendError(reply, 403);
      const limit = boundedInteger(
        request.query.limit,
        DEFAULT_RECORDS_LIMIT,
        1,
        MAX_RECORDS_LIMIT,
      );
      const body: StateRecordsWire = { stream, records: await inspector.records(stream, limit) };
      return sendJson(reply, headers, body);
    },
  );
}
