// Durable key/value (docs/http-api.md "The job API", /v1/kv/*): one document per key in namespace
// `kv/<scope>`, in the reference's body `{key, updatedAt, value}` (src/jobapi/documents.ts); last
// write wins. A stored null is a value (200), an absent key a bare 404.
import { ApiError } from './api-error.js';
import { compareCodePoints } from '../common/index.js';
import { deleteDocument, readStoredValue, setKv } from './documents.js';
import { encodedBytes } from './json-values.js';
import { docNamespace } from './names.js';
import { bodyFields, optionalString, queryFields, type FieldSource } from './request-fields.js';
import { jsonReply, readJsonBody, type Route, type RouteServices } from './route-types.js';
import { documentRef, requiredValue, storedValueReply } from './scoped-fields.js';
import { resolveScope } from './scopes.js';

/** The largest page a kv/list `limit` may ask for. */
export const MAX_LIST_LIMIT = 1000;

interface ListPage {
  /** Keys per page; null = no paging (the whole scope, or a 413 over the byte cap). */
  readonly limit: number | null;
  /** List the keys after this one (the previous page's `next`). */
  readonly after: string | undefined;
  /** False with `values=0` / `values=false`: keys only. */
  readonly values: boolean;
}

/** The paging additions of kv/list: `limit`, `after`, `values` (docs/http-api.md). */
function listPage(query: FieldSource): ListPage {
  const limitText = optionalString(query, 'limit');
  let limit: number | null = null;
  if (limitText !== undefined) {
    limit = Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
      throw new ApiError(
        'YC_ERR_REQUEST_INVALID',
        `limit must be an integer from 1 to ${MAX_LIST_LIMIT}`,
      );
    }
  }
  const valuesText = optionalString(query, 'values');
  return {
    limit,
    after: optionalString(query, 'after'),
    values: valuesText === undefined || !['0', 'false'].includes(valuesText.toLowerCase()),
  };
}

export function kvRoutes(services: RouteServices): Record<string, Route> {
  const { gate, clock } = services;
  return {
    '/v1/kv/get': {
      method: 'GET',
      body: 'none',
      async handle(request) {
        const { ns, name } = documentRef(request, queryFields(request.query), 'kv', 'key');
        const doc = await gate.call('read a key', (store) => store.getDocument(ns, name));
        return storedValueReply(doc);
      },
    },
    '/v1/kv/set': {
      method: 'POST',
      body: 'json-value',
      async handle(request) {
        const { object, text } = readJsonBody(request);
        const fields = bodyFields(object);
        const { ns, name: key } = documentRef(request, fields, 'kv', 'key');
        const value = requiredValue(fields, text, services.settings.maxValueBytes, 'value');
        const updatedAt = await gate.call('write a key', (store) =>
          store.updateDocument(ns, key, () => setKv(key, value, clock.now())),
        );
        return jsonReply({ ok: true, updatedAt });
      },
    },
    '/v1/kv/delete': {
      method: 'POST',
      body: 'json',
      async handle(request) {
        const fields = bodyFields(readJsonBody(request).object);
        const { ns, name } = documentRef(request, fields, 'kv', 'key');
        const existed = await gate.call('delete a key', (store) =>
          store.updateDocument(ns, name, deleteDocument),
        );
        return jsonReply({ existed });
      },
    },
    '/v1/kv/list': {
      method: 'GET',
      body: 'none',
      async handle(request) {
        const query = queryFields(request.query);
        const scope = resolveScope(request.run.context, optionalString(query, 'scope'));
        const page = listPage(query);
        const docs = await gate.call('list keys', (store) =>
          store.listDocuments(docNamespace('kv', scope)),
        );
        const after = page.after;
        const stored = docs
          .filter((doc) => after === undefined || compareCodePoints(doc.key, after) > 0)
          .sort((a, b) => compareCodePoints(a.key, b.key));
        const maxBytes = services.limits.kvListMaxBytes;
        const keys: { key: string; value?: unknown; updatedAt?: number }[] = [];
        let bytes = 0;
        let next: string | undefined;
        for (const doc of stored) {
          const value = readStoredValue(doc);
          if (value === undefined) continue;
          const entry = page.values ? { key: doc.key, ...value } : { key: doc.key };
          bytes +=
            Buffer.byteLength(doc.key, 'utf8') + (page.values ? encodedBytes(value.value) : 0);
          const full = page.limit !== null && keys.length >= page.limit;
          if (full || (bytes > maxBytes && keys.length > 0)) {
            if (page.limit === null) {
              throw new ApiError(
                'YC_ERR_REQUEST_TOO_LARGE',
                `the keys of scope '${scope}' are over ${maxBytes} bytes; list them in pages with limit and after`,
              );
            }
            next = keys.at(-1)?.key;
            break;
          }
          keys.push(entry);
        }
        return jsonReply(next === undefined ? { scope, keys } : { scope, keys, next });
      },
    },
  };
}
