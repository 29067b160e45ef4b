// Response conventions of the control API (docs/http-api.md "Responses, errors and limits"): which
// responses carry the operator's `web.headers`, the dashboard's security defaults, and error
// bodies. 400/401/403/404 are bare framework errors (`404: Not Found`, no configured headers) as in
// the reference; other errors are JSON `{"error", "message"}`. No error body ever carries a stack
// trace.
import { STATUS_CODES } from 'node:http';
import type { FastifyReply } from 'fastify';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const TEXT_TYPE = 'text/plain; charset=utf-8';
export const HTML_TYPE = 'text/html; charset=utf-8';

/**
 * Dashboard security defaults (docs/http-api.md "Responses, errors and limits"), beside the
 * page's own Content-Security-Policy (page-policy.ts); the operator's headers are merged over
 * them.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
});

/**
 * Statuses answered with the bare framework body, like the reference (docs/http-api.md "Responses,
 * errors and limits").
 */
const BARE_STATUSES: ReadonlySet<number> = new Set([400, 401, 403, 404]);

export function reasonPhrase(status: number): string {
  return STATUS_CODES[status] ?? 'Error';
}

/**
 * `base` with `overrides` merged over it, header names compared case-insensitively (the
 * override's spelling wins), optionally dropping some names (lower-case).
 */
export function mergeHeaders(
  base: Readonly<Record<string, string>>,
  overrides: Readonly<Record<string, string>>,
  drop: readonly string[] = [],
): Record<string, string> {
  const byLowerName = new Map<string, [string, string]>();
  for (const [name, value] of Object.entries(base))
    byLowerName.set(name.toLowerCase(), [name, value]);
  for (const [name, value] of Object.entries(overrides)) {
    byLowerName.set(name.toLowerCase(), [name, value]);
  }
  const merged: Record<string, string> = {};
  for (const [lower, [name, value]] of byLowerName) {
    if (!drop.includes(lower)) merged[name] = value;
  }
  return merged;
}

/** An error response: bare text for 400/401/403/404, JSON with a message otherwise. */
export function sendError(reply: FastifyReply, status: number, message?: string): FastifyReply {
  const reason = reasonPhrase(status);
  reply.code(status);
  if (BARE_STATUSES.has(status)) {
    return reply.type(TEXT_TYPE).send(`${status}: ${reason}`);
  }
  return reply.type(JSON_TYPE).send(JSON.stringify({ error: reason, message: message ?? reason }));
}

/**
 * A 200 JSON answer carrying the operator's `web.headers` (docs/http-api.md "Responses, errors and
 * limits").
 */
export function sendJson(
  reply: FastifyReply,
  headers: Readonly<Record<string, string>>,
  value: unknown,
): FastifyReply {
  return reply.code(200).headers(headers).type(JSON_TYPE).send(JSON.stringify(value));
}
