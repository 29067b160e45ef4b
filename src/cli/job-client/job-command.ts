// What a job-facing command is (a name and its actions, each an argument spec plus a handler), what
// a handler may touch, the exit codes of docs/cli.md "Job-facing commands", and the one place an
// endpoint reply is turned into a JSON body or an exit code.
import type { Clock } from '../../common/index.js';
import type { ArgsSpec, ParsedArgs } from './parse-args.js';
import type { EndpointReply, EndpointRequest, StateEndpoint } from './endpoint.js';
import { formatValue } from './format-value.js';
import { decodeReply, errorReply, type ReplyDecoder, type ValueReply } from './wire.js';

import { EXIT_FAILURE, EXIT_NOT_FOUND, EXIT_OK } from '../exit-codes.js';

export { EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_NOT_FOUND } from '../exit-codes.js';
export const EXIT_LOCK_NOT_ACQUIRED = 3;
export const EXIT_DUPLICATE = 5;

/** The process around a job command; tests pass their own. */
export interface JobProcess {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly clock: Clock;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Raw bytes to stdout (`artifact get`); resolves once they are handed to the stream. */
  readonly stdoutBytes: (bytes: Uint8Array) => Promise<void>;
  /** All of stdin (`artifact put` without FILE). */
  readonly readStdin: () => Promise<Buffer>;
  /** Subscribe to a termination signal (`lock run` forwards them); returns the unsubscribe. */
  readonly onSignal: (signal: 'SIGTERM' | 'SIGINT', listener: () => void) => () => void;
}

export interface JobContext extends JobProcess {
  /** `yacron2 state`: the prefix of every message. */
  readonly prefix: string;
  readonly endpoint: StateEndpoint;
}

export interface JobAction extends ArgsSpec {
  /** null for a command without actions (`idempotent`). */
  readonly name: string | null;
  run(context: JobContext, args: ParsedArgs): Promise<number>;
}

export interface JobCommand {
  readonly name: string;
  readonly summary: string;
  readonly actions: readonly JobAction[];
}

/** Print `yacron2 <cmd>: <message>` to stderr and return `exitCode`. */
export function fail(context: JobContext, message: string, exitCode = EXIT_FAILURE): number {
  context.stderr(`${context.prefix}: ${message}\n`);
  return exitCode;
}

/**
 * The typed body of a 2xx reply, or the exit code after saying why there is none: unreachable
 * → 1; 404 → `notFound` with exit 4 when the command gives one; any other status >= 400 → the
 * body's `error` field (or `the state endpoint returned HTTP <n>`), 1; a body that is not a JSON
 * object → 1.
 */
export function jsonBody<T>(
  context: JobContext,
  reply: EndpointReply,
  decode: ReplyDecoder<T>,
  notFound?: string,
): T | number {
  const status = settle(context, reply, notFound);
  if (typeof status === 'number') return status;
  const body = decodeReply(status.body.toString('utf8'), decode);
  if (body === null) {
    return fail(
      context,
      `the state endpoint at ${context.endpoint.url} sent a reply that is not JSON`,
    );
  }
  return body;
}

/** Send one request and read its answer as jsonBody does. */
export async function requestJson<T>(
  context: JobContext,
  request: EndpointRequest,
  decode: ReplyDecoder<T>,
  notFound?: string,
): Promise<T | number> {
  return jsonBody(context, await context.endpoint.send(request), decode, notFound);
}

/** Like requestJson, for replies whose body is raw bytes (`artifact get`). */
export async function requestBytes(
  context: JobContext,
  request: EndpointRequest,
  notFound?: string,
): Promise<Extract<EndpointReply, { kind: 'reply' }> | number> {
  return settle(context, await context.endpoint.send(request), notFound);
}

/** Print a reply's `value` as the reference prints a stored value (`state get`, `cursor`). */
export function printValue(context: JobContext, body: ValueReply): number {
  context.stdout(`${formatValue(body.value)}\n`);
  return EXIT_OK;
}

function settle(
  context: JobContext,
  reply: EndpointReply,
  notFound: string | undefined,
): Extract<EndpointReply, { kind: 'reply' }> | number {
  if (reply.kind === 'unreachable') {
    return fail(
      context,
      `cannot reach the yacron2 state endpoint at ${context.endpoint.url}: ${reply.reason}`,
    );
  }
  if (reply.status === 404 && notFound !== undefined) {
    return fail(context, notFound, EXIT_NOT_FOUND);
  }
  if (reply.status >= 400) {
    const error = decodeReply(reply.body.toString('utf8'), errorReply)?.error ?? null;
    return fail(
      context,
      error !== null && error !== '' ? error : `the state endpoint returned HTTP ${reply.status}`,
    );
  }
  return reply;
}

/** One line per entry (nothing at all for none). */
export function printLines(context: JobContext, lines: readonly string[]): void {
  if (lines.length > 0) context.stdout(`${lines.join('\n')}\n`);
}

/** The scope fields of a request (left out when the run's default scope is meant). */
export function scopeOf(args: ParsedArgs): { scope?: string } {
  return args.scope === null || args.scope === '' ? {} : { scope: args.scope };
}
