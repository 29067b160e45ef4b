// Idempotency claims (http-api B.4 /v1/idempotency/*): documents `idem/<scope>/<key>`. A claim
// is a create-only compare-and-set, so exactly one caller fleet-wide wins it; a claim whose ttl
// has run out is re-won (again by compare-and-set, so only one re-winner). ttl 0 = permanent.
import { ApiError } from './api-error.js';
import { checkName, docKey } from './names.js';
import {
  bodyFields,
  optionalNumber,
  optionalString,
  requiredString,
  type FieldSource,
} from './request-fields.js';
import {
  epochSeconds,
  jsonReply,
  readJsonBody,
  type Route,
  type RouteRequest,
  type RouteServices,
} from './route-types.js';
import { MAX_CAS_ATTEMPTS } from './routes-cursor.js';
import { resolveScope } from './scopes.js';
import { unavailable } from './store-gate.js';

/** What a claim document holds (the /state/documents route shows it verbatim). */
export interface ClaimDoc {
  /** Epoch seconds. */
  readonly claimedAt: number;
  /** Seconds; null = permanent. */
  readonly ttl: number | null;
  /** Epoch seconds; null = permanent. */
  readonly expiresAt: number | null;
  readonly job: string;
  readonly runId: string;
  readonly host: string;
}

function claimKey(request: RouteRequest, fields: FieldSource): string {
  const scope = resolveScope(request.run.context.job, optionalString(fields, 'scope'));
  return docKey('idem', scope, checkName('key', requiredString(fields, 'key')));
}

/** A claim that is still in force at `nowSeconds` (a malformed document counts as in force). */
function inForce(value: unknown, nowSeconds: number): boolean {
  const expiresAt = (value as Partial<ClaimDoc> | null)?.expiresAt;
  return typeof expiresAt !== 'number' || nowSeconds < expiresAt;
}

function claimedAtOf(value: unknown, fallback: number): number {
  const claimedAt = (value as Partial<ClaimDoc> | null)?.claimedAt;
  return typeof claimedAt === 'number' ? claimedAt : fallback;
}

export function idempotencyRoutes(services: RouteServices): Record<string, Route> {
  const { gate, clock } = services;
  return {
    '/v1/idempotency/claim': {
      method: 'POST',
      async handle(request) {
        const fields = bodyFields(readJsonBody(request).object);
        const key = claimKey(request, fields);
        const ttl = optionalNumber(fields, 'ttl') ?? 0;
        if (ttl < 0) throw new ApiError(400, 'ttl must not be negative');
        let expectedVersion: string | null = null;
        for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
          const now = epochSeconds(clock.now());
          const claim: ClaimDoc = {
            claimedAt: now,
            ttl: ttl > 0 ? ttl : null,
            expiresAt: ttl > 0 ? now + ttl : null,
            job: request.run.context.job.name,
            runId: request.run.context.runId,
            host: services.host,
          };
          const put = await gate.call('claim an idempotency key', (store) =>
            store.putDoc(key, claim, { expectedVersion }),
          );
          if (put.ok) return jsonReply({ fresh: true, claimedAt: now });
          const current = put.current;
          if (current !== undefined && inForce(current.value, now)) {
            return jsonReply({
              fresh: false,
              claimedAt: claimedAtOf(current.value, epochSeconds(current.updatedAtMs)),
            });
          }
          // Absent again (released meanwhile) or expired: try to take it over that version.
          expectedVersion = current?.version ?? null;
        }
        throw unavailable(`the claim kept changing under ${MAX_CAS_ATTEMPTS} attempts`);
      },
    },
    '/v1/idempotency/release': {
      method: 'POST',
      async handle(request) {
        const key = claimKey(request, bodyFields(readJsonBody(request).object));
        const deleted = await gate.call('release an idempotency key', (store) =>
          store.deleteDoc(key),
        );
        return jsonReply({ released: deleted.ok && deleted.existed });
      },
    },
  };
}
