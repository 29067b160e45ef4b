// The DAG routes (docs/dags.md "HTTP"): the DAG list with run roll-ups, run summaries, a run's
// document and XCom, the log stream of a task attempt running here, and the POSTs — trigger,
// backfill, approval decision, and cancel (a yacron2 addition) — with the reference's error table
// (backfill refusals are 400s, every decision refusal but a bad value or `by` is a 409 whose body
// is the reason). A refused `by` is a 400 whose body is the reason. Store trouble on a read omits
// the roll-ups or empties a list.
// Until the store has opened, every route that needs it answers 503 with Retry-After.
// Served on every listener; without DAGs the list is [] and the rest 404.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { describeError, httpStatusOf, isYacronError } from '../common/index.js';
import type { ResolvedDag } from '../config/index.js';
import type * as DagsModule from '../dags/index.js';
import type { DagEngine, RunDocument, RunState } from '../dags/index.js';
import type { RouteContext } from './app.js';
import { boundedInteger, type QueryValue } from './query.js';
import { JSON_TYPE, TEXT_TYPE, sendError, sendJson } from './responses.js';
import { streamOutput } from './routes-streams.js';
import type {
  DagBackfillWire,
  DagCancelWire,
  DagDecisionWire,
  DagRunSummaryWire,
  DagRunsWire,
  DagTaskWire,
  DagTriggerWire,
  DagWire,
  RunDocumentWire,
  XcomWire,
} from './wire/index.js';

/** The dags door (its engine, the run store, XCom): loaded on the first DAG request. */
type DagsDoor = typeof DagsModule;

/**
 * The door is imported when a DAG route is first asked, not with this module: a daemon without
 * `dags:` would otherwise load it and, through it, the state store and the durable layer
 * (docs/performance.md "A node in a fleet"). With `dags:` the daemon has loaded it already.
 */
function dagsDoor(): Promise<DagsDoor> {
  return import('../dags/index.js');
}

export const DEFAULT_RUNS_LIMIT = 50;
export const MAX_RUNS_LIMIT = 500;
/** Retry-After (seconds) of a 503 while the store is still opening. */
export const STORE_RETRY_AFTER_SECONDS = 5;

interface DagParams {
  readonly name: string;
}
interface RunParams extends DagParams {
  readonly runKey: string;
}
interface TaskParams extends RunParams {
  readonly taskKey: string;
}

function taskViews(dag: ResolvedDag): DagTaskWire[] {
  return dag.tasks.map((task) => ({
    id: task.id,
    type: task.kind,
    dependsOn: task.dependsOn,
    triggerRule: task.triggerRule,
    retries: task.retries,
    mapped: task.kind === 'task' && task.expand !== null,
  }));
}

function runSummary(dags: DagsDoor, run: RunDocument): DagRunSummaryWire {
  return {
    runKey: run.runKey,
    runId: run.runId,
    state: run.state,
    kind: run.kind,
    ...dags.runTimesBody(run),
    taskStates: dags.countTaskStates(run),
  };
}

/** A DAG's run roll-ups; none when it has no runs or the store cannot answer. */
async function rollUps(
  dags: DagsDoor,
  engine: DagEngine,
  name: string,
): Promise<Pick<DagWire, 'latestRun' | 'runCounts' | 'totalRuns'>> {
  try {
    const { runs } = await dags.listRuns(engine.store(), name);
    const latest = runs[0];
    if (latest === undefined) return {};
    const { runKey, state, kind } = latest;
    const { createdAt, updatedAt } = dags.runTimesBody(latest);
    const counts: Partial<Record<RunState, number>> = {};
    for (const run of runs) counts[run.state] = (counts[run.state] ?? 0) + 1;
    return {
      latestRun: { runKey, state, kind, createdAt, updatedAt },
      runCounts: counts,
      totalRuns: runs.length,
    };
  } catch {
    return {};
  }
}

/** An empty body is `{}`; anything else must be a JSON object. */
function bodyObject(request: FastifyRequest): Record<string, unknown> | null {
  // app.ts hands every body over as its raw bytes.
  const raw = request.body;
  if (!Buffer.isBuffer(raw)) return {};
  const text = raw.toString('utf8');
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

export function registerDagRoutes(app: FastifyInstance, context: RouteContext): void {
  const headers = context.settings.headers;
  const engineOf = (): DagEngine | null => context.dags?.() ?? null;
  const text = (reply: FastifyReply, status: number, body: string): FastifyReply =>
    reply.code(status).headers(headers).type(TEXT_TYPE).send(body);
  /** A 400 whose body says what is wrong (a bare `400: Bad Request` would not). */
  const badRequest = (reply: FastifyReply, reason: string): FastifyReply =>
    reply.code(400).type(TEXT_TYPE).send(reason);
  const json = (reply: FastifyReply, status: number, body: unknown): FastifyReply =>
    reply.code(status).headers(headers).type(JSON_TYPE).send(JSON.stringify(body));
  /** A 503 with Retry-After when `error` says the store is not open yet; else null. */
  const storeNotOpen = (reply: FastifyReply, error: unknown): FastifyReply | null => {
    if (!isYacronError(error, 'YC_ERR_STATE_UNAVAILABLE')) return null;
    reply.header('retry-after', String(STORE_RETRY_AFTER_SECONDS));
    return sendError(reply, 503, describeError(error));
  };
  /** The DAG and the engine, or null after a 404 (unknown DAG, or no store for `needStore`). */
  const lookup = (name: string, reply: FastifyReply) => {
    const engine = engineOf();
    const dag = engine?.dags().find((candidate) => candidate.name === name);
    if (engine === null || dag === undefined) {
      sendError(reply, 404);
      return null;
    }
    return { engine, dag };
  };

  app.get('/dags', async (_request, reply) => {
    const engine = engineOf();
    if (engine === null) return sendJson(reply, headers, []);
    const dags = await dagsDoor();
    const views: DagWire[] = [];
    for (const dag of engine.dags()) {
      views.push({
        name: dag.name,
        enabled: dag.enabled,
        scheduled: dag.schedule !== null,
        retainRuns: dag.retainRuns,
        tasks: taskViews(dag),
        // Not in the reference's shape (docs/deviations.md "GET /dags names a scheduled DAG's
        // timezone"): the zone the schedule is read in, with the job object's meaning (null = the
        // daemon's local time).
        ...(dag.schedule === null ? {} : { schedule: dag.schedule.text, timezone: dag.timezone }),
        ...(await rollUps(dags, engine, dag.name)),
      });
    }
    return sendJson(reply, headers, views);
  });

  app.get<{ Params: DagParams; Querystring: { limit?: QueryValue } }>(
    '/dags/:name/runs',
    async (request, reply) => {
      const found = lookup(request.params.name, reply);
      if (found === null) return reply;
      const limit = boundedInteger(request.query.limit, DEFAULT_RUNS_LIMIT, 1, MAX_RUNS_LIMIT);
      let store;
      try {
        store = found.engine.store();
      } catch (error) {
        return storeNotOpen(reply, error) ?? sendError(reply, 404);
      }
      const dags = await dagsDoor();
      let runs: readonly RunDocument[] = [];
      try {
        runs = (await dags.listRuns(store, found.dag.name)).runs;
      } catch (error) {
        context.logger.error(
          `web: cannot list the runs of DAG ${found.dag.name}: ${describeError(error)}`,
        );
      }
      const body: DagRunsWire = {
        dag: found.dag.name,
        runs: runs.slice(0, limit).map((run) => runSummary(dags, run)),
      };
      return sendJson(reply, headers, body);
    },
  );

  /**
   * The run, or null after a 404 (unknown DAG or run, unreadable run) or a 503 (store not open
   * yet).
   */
  const runOf = async (params: RunParams, reply: FastifyReply) => {
    const found = lookup(params.name, reply);
    if (found === null) return null;
    try {
      const store = found.engine.store();
      const run = await (await dagsDoor()).readRun(store, found.dag.name, params.runKey);
      if (run !== undefined) return { ...found, store, run };
    } catch (error) {
      if (storeNotOpen(reply, error) !== null) return null;
      context.logger.error(
        `web: cannot read run ${params.runKey} of DAG ${params.name}: ${describeError(error)}`,
      );
    }
    sendError(reply, 404);
    return null;
  };

  app.get<{ Params: RunParams }>('/dags/:name/runs/:runKey', async (request, reply) => {
    const found = await runOf(request.params, reply);
    if (found === null) return reply;
    const body: RunDocumentWire = (await dagsDoor()).runDocumentBody(found.run);
    return sendJson(reply, headers, body);
  });

  app.get<{ Params: RunParams }>('/dags/:name/runs/:runKey/xcom', async (request, reply) => {
    const found = await runOf(request.params, reply);
    if (found === null) return reply;
    const { run, store } = found;
    const dags = await dagsDoor();
    let listing: Awaited<ReturnType<DagsDoor['listXcom']>> = { entries: [], truncated: false };
    try {
      listing = await dags.listXcom(store, run);
    } catch (error) {
      context.logger.error(
        `web: cannot list the XCom of run ${run.runKey}: ${describeError(error)}`,
      );
    }
    const body: XcomWire = { dag: run.dag, runKey: run.runKey, runId: run.runId, ...listing };
    return sendJson(reply, headers, body);
  });

  // Only an attempt running on this node has output; anything else (unknown run or task, a task
  // not running, or running on another node) ends at once with `no-output`.
  app.get<{ Params: TaskParams }>(
    '/dags/:name/runs/:runKey/tasks/:taskKey/logs',
    (request, reply) => {
      const { name, runKey, taskKey } = request.params;
      const found = lookup(name, reply);
      if (found === null) return reply;
      return streamOutput(
        context,
        request,
        reply,
        found.engine.taskOutput(found.dag.name, runKey, taskKey),
      );
    },
  );

  app.post<{ Params: DagParams }>('/dags/:name/trigger', async (request, reply) => {
    const found = lookup(request.params.name, reply);
    if (found === null) return reply;
    try {
      const runKey = await found.engine.trigger(found.dag.name);
      const body: DagTriggerWire = { dag: found.dag.name, runKey };
      return json(reply, 200, body);
    } catch (error) {
      const refused = storeNotOpen(reply, error);
      if (refused !== null) return refused;
      context.logger.error(`web: cannot trigger DAG ${found.dag.name}: ${describeError(error)}`);
      return sendError(reply, 500, `cannot create the run: ${describeError(error)}`);
    }
  });

  app.post<{ Params: DagParams }>('/dags/:name/backfill', async (request, reply) => {
    const body = bodyObject(request);
    if (body === null) return sendError(reply, 400, 'the body must be a JSON object');
    const engine = engineOf();
    const dag = engine?.dags().find((candidate) => candidate.name === request.params.name);
    if (engine === null || dag === undefined)
      return sendError(reply, 400, `unknown DAG '${request.params.name}'`);
    if (dag.schedule === null) return sendError(reply, 400, `DAG '${dag.name}' has no schedule`);
    const { from, to } = body;
    if (typeof from !== 'string' || typeof to !== 'string') {
      return sendError(reply, 400, "'from' and 'to' must be ISO date strings");
    }
    const { parseLogicalDate } = await dagsDoor();
    const fromMs = parseLogicalDate(from);
    const toMs = parseLogicalDate(to);
    if (!Number.isFinite(fromMs) || !Number.isFinite(toMs))
      return sendError(reply, 400, 'unparseable date');
    if (toMs < fromMs) return sendError(reply, 400, "'to' is before 'from'");
    try {
      const created = await engine.backfill(dag.name, fromMs, toMs);
      const body: DagBackfillWire = { ok: true, created };
      return json(reply, 200, body);
    } catch (error) {
      const refused = storeNotOpen(reply, error);
      if (refused !== null) return refused;
      context.logger.error(`web: cannot backfill DAG ${dag.name}: ${describeError(error)}`);
      return sendError(reply, 500, `cannot create the runs: ${describeError(error)}`);
    }
  });

  app.post<{ Params: TaskParams }>(
    '/dags/:name/runs/:runKey/tasks/:taskKey/decision',
    async (request, reply) => {
      const body = bodyObject(request);
      if (body === null) return sendError(reply, 400, 'the body must be a JSON object');
      const { decision, by } = body;
      if (decision !== 'approve' && decision !== 'reject') {
        return sendError(reply, 400, "decision must be 'approve' or 'reject'");
      }
      const actor = (await dagsDoor()).actorOf(by);
      if (actor.kind === 'refused') return badRequest(reply, actor.reason);
      const { name, runKey, taskKey } = request.params;
      const engine = engineOf();
      if (engine === null) return text(reply, 409, `unknown DAG '${name}'`);
      try {
        const state = await engine.decide(name, runKey, taskKey, decision, actor.by);
        const body: DagDecisionWire = { ok: true, state };
        return json(reply, 200, body);
      } catch (error) {
        return storeNotOpen(reply, error) ?? text(reply, 409, describeError(error));
      }
    },
  );

  // A yacron2 addition (docs/dags.md "Ending a run early"): 404 for an unknown DAG or run, 409
  // with the reason as text for a run that has already ended.
  app.post<{ Params: RunParams }>('/dags/:name/runs/:runKey/cancel', async (request, reply) => {
    const body = bodyObject(request);
    if (body === null) return badRequest(reply, 'the body must be a JSON object');
    const actor = (await dagsDoor()).actorOf(body['by']);
    if (actor.kind === 'refused') return badRequest(reply, actor.reason);
    const found = lookup(request.params.name, reply);
    if (found === null) return reply;
    try {
      const run = await found.engine.cancel(found.dag.name, request.params.runKey, actor.by);
      const body: DagCancelWire = { ok: true, dag: run.dag, runKey: run.runKey, state: run.state };
      return json(reply, 200, body);
    } catch (error) {
      const refused = storeNotOpen(reply, error);
      if (refused !== null) return refused;
      if (isYacronError(error, 'YC_ERR_DAG_RUN_UNKNOWN')) return sendError(reply, 404);
      if (isYacronError(error, 'YC_ERR_DAG_RUN_ENDED')) {
        return text(reply, httpStatusOf(error), describeError(error));
      }
      context.logger.error(
        `web: cannot cancel run ${request.params.runKey} of DAG ${found.dag.name}: ${describeError(error)}`,
      );
      return sendError(reply, 500, `cannot cancel the run: ${describeError(error)}`);
    }
  });
}
