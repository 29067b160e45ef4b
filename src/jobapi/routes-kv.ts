// Durable key/value (http-api B.4 /v1/kv/*): one document per key in namespace `kv/<scope>`,
// in the reference's body `{key, updatedAt, value}` (src/jobapi/documents.ts); last write wins.
// A stored null is a value (200), an absent key a bare 404.
import { ApiError } from './api-error.js';
import { deleteDocument, readStoredValue, setKv } from './documents.js';
import { checkPortable, checkValueSize } from './json-values.js';
import { checkName, docNamespace } from './names.js';
import {
  bodyFields,
  optionalString,
  queryFields,
  requiredString,
  type FieldSource,
} from './request-fields.js';
import {
  NOT_FOUND,
  jsonReply,
  readJsonBody,
  type Route,
  type RouteRequest,
  type RouteServices,
} from './route-types.js';
import { resolveScope } from './scopes.js';

function scopeAndKey(request: RouteRequest, fields: FieldSource): { scope: string; key: string } {
  const scope = resolveScope(request.run.context.job, optionalString(fields, 'scope'));
  const key = checkName('key', requiredString(fields, 'key'));
  return { scope, key };
}

export function kvRoutes(services: RouteServices): Record<string, Route> {
  const { gate, clock } = services;
  return {
    '/v1/kv/get': {
      method: 'GET',
      async handle(request) {
        const { scope, key } = scopeAndKey(request, queryFields(request.query));
        const doc = await gate.call('read a key', (store) =>
          store.getDocument(docNamespace('kv', scope), key),
        );
        const stored = readStoredValue(doc);
        if (stored === undefined) return NOT_FOUND;
        return jsonReply({ value: stored.value, updatedAt: stored.updatedAt });
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
        const updatedAt = await gate.call('write a key', (store) =>
          store.updateDocument(docNamespace('kv', scope), key, () =>
            setKv(key, value, clock.now()),
          ),
        );
        return jsonReply({ ok: true, updatedAt });
      },
    },
    '/v1/kv/delete': {
      method: 'POST',
      async handle(request) {
        const { scope, key } = scopeAndKey(request, bodyFields(readJsonBody(request).object));
        const existed = await gate.call('delete a key', (store) =>
          store.updateDocument(docNamespace('kv', scope), key, deleteDocument),
        );
        return jsonReply({ existed });
      },
    },
    '/v1/kv/list': {
      method: 'GET',
      async handle(request) {
        const scope = resolveScope(
          request.run.context.job,
          optionalString(queryFields(request.query), 'scope'),
        );
        const docs = await gate.call('list keys', (store) =>
          store.listDocuments(docNamespace('kv', scope)),
        );
        const keys: { key: string; value: unknown; updatedAt: number }[] = [];
        for (const doc of docs) {
          const stored = readStoredValue(doc);
          if (stored !== undefined) keys.push({ key: doc.key, ...stored });
        }
        return jsonReply({ scope, keys });
      },
    },
  };
}
