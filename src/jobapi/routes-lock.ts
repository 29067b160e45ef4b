// Mutex / semaphore routes (docs/http-api.md "The job API", /v1/lock/*): request parsing and the
// ttl / wait rules; the holding, renewing and releasing is lock-holds.ts.
import { MAX_LEASE_TTL_SECONDS, MIN_LEASE_TTL_SECONDS } from '../config/index.js';
import { ApiError } from './api-error.js';
import { bodyFields, optionalFlag, optionalNumber, requiredString } from './request-fields.js';
import { jsonReply, readJsonBody, type Route, type RouteServices } from './route-types.js';
import { scopedName } from './scoped-fields.js';

/** A requested ttl is floored here (seconds): a tiny TTL would expire live holders. */
export const MIN_LOCK_TTL_SECONDS = MIN_LEASE_TTL_SECONDS;
/**
 * A requested ttl above this (seconds) is refused (400), as lockTtlSeconds is at load: a lease
 * that outlives a crashed daemon by more than a day has no sane meaning.
 */
export const MAX_LOCK_TTL_SECONDS = MAX_LEASE_TTL_SECONDS;
/** Permits are leases tried one by one on every pass: bound the work one request can ask for. */
export const MAX_PERMITS = 1024;

/** Sleep between passes while waiting: min(1, max(0.05, default ttl / 10)) seconds. */
export function lockRetryMs(defaultTtlMs: number): number {
  return Math.min(1000, Math.max(50, defaultTtlMs / 10));
}

export function lockRoutes(services: RouteServices): Record<string, Route> {
  const { holds, settings } = services;
  return {
    '/v1/lock/acquire': {
      method: 'POST',
      body: 'json',
      async handle(request) {
        const fields = bodyFields(readJsonBody(request).object);
        const { scope, name } = scopedName(request, fields, 'name');
        const permitsInput = optionalNumber(fields, 'permits') ?? 1;
        const permits = Math.trunc(permitsInput);
        if (permits < 1) throw new ApiError('YC_ERR_REQUEST_INVALID', 'permits must be at least 1');
        if (permits > MAX_PERMITS)
          throw new ApiError('YC_ERR_REQUEST_INVALID', `permits must be at most ${MAX_PERMITS}`);
        // An absent or zero ttl means the configured lockTtlSeconds.
        const ttlSeconds = optionalNumber(fields, 'ttl') ?? 0;
        if (ttlSeconds > MAX_LOCK_TTL_SECONDS) {
          throw new ApiError(
            'YC_ERR_REQUEST_INVALID',
            `ttl must be at most ${MAX_LOCK_TTL_SECONDS} seconds (one day)`,
          );
        }
        const ttlMs =
          ttlSeconds === 0 ? settings.lockTtlMs : Math.max(MIN_LOCK_TTL_SECONDS, ttlSeconds) * 1000;
        const blockSeconds = optionalNumber(fields, 'blockSeconds');
        const reply = await holds.acquire(
          request.run,
          {
            scope,
            name,
            permits,
            ttlMs,
            wait: optionalFlag(fields, 'wait'),
            blockMs: blockSeconds === undefined ? null : Math.max(0, blockSeconds) * 1000,
            retryMs: lockRetryMs(settings.lockTtlMs),
          },
          request.clientGone,
        );
        return jsonReply(reply);
      },
    },
    '/v1/lock/release': {
      method: 'POST',
      body: 'json',
      async handle(request) {
        const fields = bodyFields(readJsonBody(request).object);
        const token = requiredString(fields, 'token');
        const released = await holds.release(request.run.context.runId, token);
        return jsonReply({ released });
      },
    },
  };
}
