// The archived-output routes (docs/http-api.md "GET /jobs/{name}/output" and "GET
// /jobs/{name}/runs/{id}/output"): a job's archived runs, newest first, and one archived run's
// lines as text or JSON lines, read from the `logs/<job>` records through the daemon's
// ArchiveReader (the durable state). Like the other state-backed routes: 404 without a `state`
// section (as /state/records and the DAG routes), 503 with Retry-After while the store opens.
// Must not: serve anything but the stored (redacted) text, or a record that does not parse, that
// the store cannot read, or that holds more than MAX_SERVED_LINES lines (a clear 500 instead); or
// put a store path in an answer.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { describeError, formatIsoUtc, isYacronError } from '../common/index.js';
import type { ArchiveEntry, ArchiveHeader, ArchiveLookup } from '../durable/index.js';
import type { RouteContext } from './app.js';
import { firstValue, type QueryValue } from './query.js';
import { JSON_TYPE, TEXT_TYPE, sendError } from './responses.js';
import { STORE_RETRY_AFTER_SECONDS } from './routes-dags.js';
import type { ArchiveReader } from './types.js';
import type {
  ArchiveEntryWire,
  ArchiveHeaderWire,
  ArchivedLineWire,
  JobArchivesWire,
} from './wire/index.js';

export const DEFAULT_OUTPUT_LIMIT = 20;
export const MAX_OUTPUT_LIMIT = 100;
export const NDJSON_TYPE = 'application/x-ndjson';

interface NameParams {
  readonly name: string;
}
interface RunParams extends NameParams {
  readonly id: string;
}

/** `limit` as 1..MAX_OUTPUT_LIMIT digits; absent = the default; anything else null (a 400). */
export function parseOutputLimit(value: QueryValue): number | null {
  const text = firstValue(value);
  if (text === undefined) return DEFAULT_OUTPUT_LIMIT;
  if (!/^\d{1,4}$/.test(text)) return null;
  const limit = Number(text);
  return limit >= 1 && limit <= MAX_OUTPUT_LIMIT ? limit : null;
}

/**
 * A record the store found but can never read as it is (a link, a directory, over the record
 * cap, a newer scheme, a stream directory that is a link): a 500 naming the run, not a 503
 * (waiting will not help).
 */
function isUnreadableRecord(error: unknown): boolean {
  return (
    isYacronError(error, 'YC_ERR_STATE_CORRUPT') ||
    isYacronError(error, 'YC_ERR_STATE_SCHEMA') ||
    isYacronError(error, 'YC_ERR_STATE_UNSAFE')
  );
}

export function renderArchiveHeader(header: ArchiveHeader): ArchiveHeaderWire {
  return {
    finished_at: formatIsoUtc(header.finishedAtMs),
    outcome: header.outcome,
    exit_code: header.exitCode,
    redacted: header.redacted,
    dropped_lines: header.droppedLines,
  };
}

export function renderArchiveEntry(entry: ArchiveEntry): ArchiveEntryWire {
  return { id: entry.id, ...renderArchiveHeader(entry), lines: entry.lineCount };
}

export function registerOutputRoutes(app: FastifyInstance, context: RouteContext): void {
  const { view, settings, logger } = context;
  const headers = settings.headers;
  const badRequest = (reply: FastifyReply, reason: string): FastifyReply =>
    reply.code(400).type(TEXT_TYPE).send(reason);

  /** The reader, or null after a 404 (unknown job, or no `state` section). */
  const readerFor = (name: string, reply: FastifyReply): ArchiveReader | null => {
    const reader = view.getJobConfig(name) === undefined ? undefined : view.archives?.();
    if (reader === undefined) {
      sendError(reply, 404);
      return null;
    }
    return reader;
  };

  /** A store that cannot answer: 503 (with Retry-After while it opens). */
  const storeTrouble = (reply: FastifyReply, name: string, error: unknown): FastifyReply => {
    if (isYacronError(error, 'YC_ERR_STATE_UNAVAILABLE')) {
      reply.header('retry-after', String(STORE_RETRY_AFTER_SECONDS));
      return sendError(reply, 503, describeError(error));
    }
    logger.error(
      `web: cannot read the archived output of job ${JSON.stringify(name)}: ${describeError(error)}`,
    );
    return sendError(reply, 503, 'the state store could not answer');
  };

  app.get<{ Params: NameParams; Querystring: { limit?: QueryValue } }>(
    '/jobs/:name/output',
    async (request, reply) => {
      const { name } = request.params;
      const reader = readerFor(name, reply);
      if (reader === null) return reply;
      const limit = parseOutputLimit(request.query.limit);
      if (limit === null) {
        return badRequest(reply, `limit must be an integer from 1 to ${MAX_OUTPUT_LIMIT}`);
      }
      let entries: readonly ArchiveEntry[];
      try {
        entries = await reader.listArchives(name, limit);
      } catch (error) {
        return storeTrouble(reply, name, error);
      }
      const body: JobArchivesWire = { name, archives: entries.map(renderArchiveEntry) };
      return reply.code(200).headers(headers).type(JSON_TYPE).send(JSON.stringify(body));
    },
  );

  app.get<{ Params: RunParams; Querystring: { format?: QueryValue } }>(
    '/jobs/:name/runs/:id/output',
    async (request, reply) => {
      const { name, id } = request.params;
      const reader = readerFor(name, reply);
      if (reader === null) return reply;
      const format = firstValue(request.query.format) ?? 'text';
      if (format !== 'text' && format !== 'jsonl') {
        return badRequest(reply, 'format must be text or jsonl');
      }
      let lookup: ArchiveLookup;
      try {
        lookup = await reader.readArchive(name, id);
      } catch (error) {
        if (!isUnreadableRecord(error)) return storeTrouble(reply, name, error);
        // The message names a path on the daemon's host: logged, not served.
        logger.error(
          `web: cannot read the archived output of job ${JSON.stringify(name)} run ${JSON.stringify(id)}: ${describeError(error)}`,
        );
        return sendError(
          reply,
          500,
          `the archived output of run ${id} cannot be read: the store cannot read its record (the daemon log says why)`,
        );
      }
      switch (lookup.kind) {
        case 'absent':
          return reply.code(404).type(TEXT_TYPE).send(`no archived output for run ${id}`);
        case 'malformed':
          return sendError(
            reply,
            500,
            `the archived output of run ${id} cannot be read: ${lookup.reason}`,
          );
        case 'oversize':
          return sendError(
            reply,
            500,
            `the archived output of run ${id} holds ${lookup.lines} lines, more than the ${lookup.cap} served`,
          );
        case 'found':
          break;
      }
      if (format === 'text') {
        const text = lookup.lines.map((item) => item.line).join('');
        return reply.code(200).headers(headers).type(TEXT_TYPE).send(text);
      }
      const rows: string[] = [JSON.stringify(renderArchiveHeader(lookup.header))];
      for (const { stream, line } of lookup.lines) {
        const row: ArchivedLineWire = { stream, line };
        rows.push(JSON.stringify(row));
      }
      rows.push('');
      return reply.code(200).headers(headers).type(NDJSON_TYPE).send(rows.join('\n'));
    },
  );
}
