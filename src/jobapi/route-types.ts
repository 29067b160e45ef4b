// What a /v1/ route is: a method, and a handler from the authenticated request to a reply value.
// Routes never write to the socket themselves; http-server.ts turns replies (and ApiErrors)
// into responses. Types and tiny reply helpers only.
import type { Clock } from '../common/index.js';
import type { Logger } from '../logging/index.js';
import type { ResolvedJobApi } from '../config/index.js';
import { ApiError } from './api-error.js';
import type { LockHolds } from './lock-holds.js';
import type { Upload } from './request-body.js';
import { parseJsonObject } from './request-fields.js';
import type { JobApiLimits } from './request-limits.js';
import type { LiveRun } from './run-registry.js';
import type { StoreGate } from './store-gate.js';

export interface RouteRequest {
  readonly run: LiveRun;
  readonly query: URLSearchParams;
  /** The request body of a JSON route (empty otherwise). */
  readonly body: Buffer;
  /** The streamed body of an upload route (null otherwise); removed after the reply. */
  readonly upload: Upload | null;
  /** Aborted when the client goes away before its reply is written. */
  readonly clientGone: AbortSignal;
}

export type RouteReply =
  | { readonly kind: 'json'; readonly status: number; readonly body: unknown }
  | {
      readonly kind: 'bytes';
      readonly status: number;
      readonly body: Uint8Array;
      readonly headers: Readonly<Record<string, string>>;
    }
  /** 404 for an absent key/cursor/artifact/secret: no body (docs/http-api.md "The job API"). */
  | { readonly kind: 'empty'; readonly status: number };

/**
 * What a route reads of the body, and so its cap: nothing; a small JSON object (names, flags:
 * 64 KiB); a JSON object carrying a stored value (6 times the largest legal value, for escapes,
 * plus 64 KiB); or an upload streamed to a temp file (maxArtifactBytes plus 64 KiB).
 */
export type RouteBody = 'none' | 'json' | 'json-value' | 'upload';

export interface Route {
  /** GET routes also answer HEAD. */
  readonly method: 'GET' | 'POST';
  readonly body: RouteBody;
  handle(request: RouteRequest): Promise<RouteReply>;
}

/** What the route handlers share. */
export interface RouteServices {
  readonly gate: StoreGate;
  readonly holds: LockHolds;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly host: string;
  readonly settings: ResolvedJobApi;
  readonly limits: JobApiLimits;
  /** Whole artifact payloads in memory (an upload's commit, a download), one at a time. */
  readonly payloads: PayloadLock;
}

/** Serialises the work that holds a whole artifact payload in memory. */
export interface PayloadLock {
  run<T>(work: () => Promise<T>): Promise<T>;
}

export function jsonReply(body: unknown, status = 200): RouteReply {
  return { kind: 'json', status, body };
}

export const NOT_FOUND: RouteReply = { kind: 'empty', status: 404 };

/** The body of a JSON route as an object, and its text (for the portability check). */
export function readJsonBody(request: RouteRequest): {
  readonly object: Record<string, unknown>;
  readonly text: string;
} {
  const text = request.body.toString('utf8');
  return { object: parseJsonObject(text), text };
}

/** Epoch seconds (the wire's `updatedAt`, `claimedAt`, `at`). */
export function epochSeconds(ms: number): number {
  return ms / 1000;
}

export function conflict(message: string): ApiError {
  return new ApiError('YC_ERR_REQUEST_CONFLICT', message);
}
