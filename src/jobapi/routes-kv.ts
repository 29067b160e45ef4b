// Durable key/value (http-api B.4 /v1/kv/*): documents `kv/<scope>/<key>` holding the value
// itself; last write wins. A stored null is a value (200), an absent key a bare 404.
import { ApiError } from './api-error.js';
import { checkPortable, checkValueSize } from './json-values.js';
import { checkName, docKey, docPrefix, namesInScope } from './names.js';
import {
  bodyFields,
  optionalString,
  queryFields,
  requiredString,
  type FieldSource,
} from './request-fields.js';
import {
  NOT_FOUND,
  epochSeconds,
  jsonReply,
  readJsonBody,
  type Route,
  type RouteRequest,
  type RouteServices,
} from './route-types.js';
import { resolveScope } from './scopes.js';

/** How many documents a listing reads at once. */
const LIST_READ_CONCURRENCY = 16;

function scopeAndKey(request: RouteRequest, fields: FieldSource): { scope: string; key: string } {
  const scope = resolveScope(request.run.context.job, optionalString(fields, 'scope'));
  const key = checkName('key', requiredString(fields, 'key'));
  return { scope, key };
}

export function kvRoutes(services: RouteServices): Record<string, Route> {
  const { gate } = services;
  return {
    '/v1/kv/get': {
      method: 'GET',
      async handle(request) {
        const { scope, key } = scopeAndKey(request, queryFields(request.query));
        const doc = await gate.call('read a key', (store) =>
          store.getDoc(docKey('kv', scope, key)),
        );
        if (doc === undefined) return NOT_FOUND;
        return jsonReply({ value: doc.value, updatedAt: epochSeconds(doc.updatedAtMs) });
      },
    },
    '/v1/kv/set': {
      method: 'POST',
      async handle(request) {
        const { object, text } = readJsonBody(request);
        const fields = bodyFields(object);
        const { scope, key } = scopeAndKey(request, fields);
        if (!fields.has('value')) throw new ApiError(400, 'value is required');
        const value = fields.get('value');
        checkPortable(value, text);
        checkValueSize(value, services.settings.maxValueBytes, 'value');
        const put = await gate.call('write a key', (store) =>
          store.putDoc(docKey('kv', scope, key), value),
        );
        if (!put.ok) throw new ApiError(503, 'state backend unavailable: the write did not land');
        return jsonReply({ ok: true, updatedAt: epochSeconds(put.updatedAtMs) });
      },
    },
    '/v1/kv/delete': {
      method: 'POST',
      async handle(request) {
        const { scope, key } = scopeAndKey(request, bodyFields(readJsonBody(request).object));
        const deleted = await gate.call('delete a key', (store) =>
          store.deleteDoc(docKey('kv', scope, key)),
        );
        return jsonReply({ existed: deleted.ok && deleted.existed });
      },
    },
    '/v1/kv/list': {
      method: 'GET',
      async handle(request) {
        const scope = resolveScope(
          request.run.context.job,
          optionalString(queryFields(request.query), 'scope'),
        );
        const listed = await gate.call('list keys', (store) =>
          store.listDocs(docPrefix('kv', scope)),
        );
        const names = namesInScope('kv', scope, listed);
        const keys: { key: string; value: unknown; updatedAt: number }[] = [];
        for (let start = 0; start < names.length; start += LIST_READ_CONCURRENCY) {
          const batch = names.slice(start, start + LIST_READ_CONCURRENCY);
          const docs = await Promise.all(
            batch.map((key) =>
              gate.call('read a key', (store) => store.getDoc(docKey('kv', scope, key))),
            ),
          );
          docs.forEach((doc, index) => {
            // A key deleted between the listing and the read is simply gone.
            if (doc !== undefined) {
              keys.push({
                key: batch[index] ?? '',
                value: doc.value,
                updatedAt: epochSeconds(doc.updatedAtMs),
              });
            }
          });
        }
        return jsonReply({ scope, keys });
      },
    },
  };
}
