// Idempotency claims (docs/http-api.md "The job API", /v1/idempotency/*): one document per key in
// namespace `idem/<scope>`, in the reference's body `{claimedAt, key[, expiresAt]}`. A claim is
// decided under the document's lock, so exactly one caller fleet-wide wins it; a claim whose
// expiresAt has passed is re-won; ttl 0 = permanent (no expiresAt). Release deletes the document.
import { ApiError } from './api-error.js';
import { claimKey, deleteDocument } from './documents.js';
import { bodyFields, optionalNumber } from './request-fields.js';
import { jsonReply, readJsonBody, type Route, type RouteServices } from './route-types.js';
import { documentRef } from './scoped-fields.js';

export function idempotencyRoutes(services: RouteServices): Record<string, Route> {
  const { gate, clock } = services;
  return {
    '/v1/idempotency/claim': {
      method: 'POST',
      body: 'json',
      async handle(request) {
        const fields = bodyFields(readJsonBody(request).object);
        const { ns, name: key } = documentRef(request, fields, 'idem', 'key');
        const ttl = optionalNumber(fields, 'ttl') ?? 0;
        if (ttl < 0) throw new ApiError('YC_ERR_REQUEST_INVALID', 'ttl must not be negative');
        const outcome = await gate.call('claim an idempotency key', (store) =>
          store.updateDocument(ns, key, (current) => claimKey(current, key, ttl, clock.now())),
        );
        return jsonReply(outcome);
      },
    },
    '/v1/idempotency/release': {
      method: 'POST',
      body: 'json',
      async handle(request) {
        const fields = bodyFields(readJsonBody(request).object);
        const { ns, name: key } = documentRef(request, fields, 'idem', 'key');
        const released = await gate.call('release an idempotency key', (store) =>
          store.updateDocument(ns, key, deleteDocument),
        );
        return jsonReply({ released });
      },
    },
  };
}
