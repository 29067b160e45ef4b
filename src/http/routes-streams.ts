// Server-sent events: `GET /jobs/{name}/logs` exactly as docs/http-api.md "GET /jobs/{name}/logs"
// (replay, live lines, `end`; the DAG task log route reuses it), and `GET /events`, a yacron2 extension streaming every run start,
// finish and captured line as it happens (`?job=NAME` narrows it to one job). Every stream is
// bounded (sse-stream.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formatIsoUtc } from '../common/index.js';
import type { SchedulerEvents } from '../scheduler/index.js';
import { renderRunRecord } from './run-records.js';
import type { RouteContext } from './app.js';
import {
  DEFAULT_OUTPUT_LIMITS,
  outputLineText,
  type OutputEntry,
  type RunOutput,
} from '../runner/index.js';
import { mergeHeaders, sendError } from './responses.js';
import { SseStream } from './sse-stream.js';

interface NameParams {
  readonly name: string;
}

const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  'X-Accel-Buffering': 'no',
};

// docs/http-api.md "Streams" payloads, spaced like the reference's json.dumps so byte-level
// consumers see the same.
const NO_OUTPUT = '{"reason": "no-output"}';
const END_OF_OUTPUT = '{}';

function lineData(entry: OutputEntry): string {
  return `{"stream": ${JSON.stringify(entry.stream)}, "line": ${JSON.stringify(entry.line)}}`;
}

/**
 * Takes over the response and opens the event stream (HEAD gets the headers only). Null when no
 * stream was opened: HEAD, or no permit free (a 429 for a client with too many streams, a 503 when
 * the daemon has too many), the answer already sent.
 */
function openStream(
  context: RouteContext,
  request: FastifyRequest,
  reply: FastifyReply,
): SseStream | null {
  const headers = mergeHeaders(SSE_HEADERS, context.settings.headers);
  if (request.method === 'HEAD') {
    void reply.code(200).headers(headers).send();
    return null;
  }
  const permit = context.streamPermits.acquire(request.socket.remoteAddress ?? null);
  switch (permit.kind) {
    case 'granted':
      break;
    case 'client-full':
      sendError(reply, 429, 'too many open event streams from this client');
      return null;
    case 'total-full':
      sendError(reply, 503, 'too many open event streams');
      return null;
  }
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, headers);
  // Send the headers now: a client waiting for its first event should see the stream is open.
  raw.flushHeaders();
  const stream = new SseStream(raw, context.clock, context.streamLimits);
  context.streams.add(stream);
  stream.onClose(() => {
    context.streams.delete(stream);
    permit.release();
  });
  return stream;
}

/**
 * A log stream over one run's output (the job log route's and the DAG task log route's shape):
 * the buffered lines, then the live ones, then `end` `{}`; no source ends at once with
 * `no-output`.
 */
export function streamOutput(
  context: RouteContext,
  request: FastifyRequest,
  reply: FastifyReply,
  source: RunOutput | null,
): FastifyReply {
  const stream = openStream(context, request, reply);
  if (stream === null) return reply;
  if (source === null) {
    stream.end({ event: 'end', data: NO_OUTPUT });
    return reply;
  }
  stream.replay(source.lines().map((entry) => ({ event: 'line', data: lineData(entry) })));
  if (source.closed) {
    stream.end({ event: 'end', data: END_OF_OUTPUT });
    return reply;
  }
  const unsubscribe = source.subscribe({
    line: (entry) => stream.send('line', lineData(entry)),
    end: () => stream.end({ event: 'end', data: END_OF_OUTPUT }),
  });
  stream.onClose(unsubscribe);
  return reply;
}

export function registerStreamRoutes(app: FastifyInstance, context: RouteContext): void {
  const { view, outputs } = context;

  app.get<{ Params: NameParams }>('/jobs/:name/logs', (request, reply) => {
    const { name } = request.params;
    if (view.getJobConfig(name) === undefined) return sendError(reply, 404);
    return streamOutput(context, request, reply, outputs.source(name));
  });

  app.get<{ Querystring: { job?: string | string[] } }>('/events', (request, reply) => {
    const filter = request.query.job;
    const only = typeof filter === 'string' ? filter : null;
    const stream = openStream(context, request, reply);
    if (stream === null) return reply;
    const wanted = (jobName: string): boolean => only === null || only === jobName;
    const { maxLineChars } = DEFAULT_OUTPUT_LIMITS;
    const forward = <K extends keyof SchedulerEvents>(
      event: K,
      toData: (payload: SchedulerEvents[K]) => { job: string; data: unknown },
    ): (() => void) =>
      view.events.on(event, (payload) => {
        const { job, data } = toData(payload);
        if (wanted(job)) stream.send(event, JSON.stringify(data));
      });
    const unsubscribers = [
      forward('run:started', (event) => ({
        job: event.job.name,
        data: {
          job: event.job.name,
          runId: event.runId,
          pid: event.pid,
          trigger: event.trigger,
          attempt: event.attempt,
          scheduledAt: event.scheduledAtMs === null ? null : formatIsoUtc(event.scheduledAtMs),
          startedAt: formatIsoUtc(event.startedAtMs),
        },
      })),
      forward('run:output', (event) => ({
        job: event.jobName,
        data: {
          job: event.jobName,
          runId: event.runId,
          stream: event.stream,
          line: outputLineText(event.line, maxLineChars),
        },
      })),
      forward('run:finished', (event) => ({
        job: event.job.name,
        data: {
          job: event.job.name,
          runId: event.runId,
          trigger: event.trigger,
          attempt: event.attempt,
          recorded: event.recorded,
          disposition: event.disposition,
          record: renderRunRecord(event.summary),
        },
      })),
    ];
    stream.onClose(() => {
      for (const unsubscribe of unsubscribers) unsubscribe();
    });
    return reply;
  });
}
