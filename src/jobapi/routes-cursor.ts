// Monotonic cursors (docs/http-api.md "The job API", /v1/cursor/*): one document per cursor in
// namespace `cursor/<scope>`, in the reference's body `{name, updatedAt, value}`. advance decides
// under the document's lock, so concurrent advancers (other runs, other nodes, reference nodes on a
// shared store) converge on the furthest value and a replayed batch never walks it back.
import { ApiError } from './api-error.js';
import { describeCursorType } from './cursor-order.js';
import { advanceCursor, readStoredValue } from './documents.js';
import { checkPortable, checkValueSize } from './json-values.js';
import { checkName, docNamespace } from './names.js';
import {
  bodyFields,
  optionalFlag,
  optionalString,
  queryFields,
  requiredString,
  type FieldSource,
} from './request-fields.js';
import {
  NOT_FOUND,
  conflict,
  jsonReply,
  readJsonBody,
  type Route,
  type RouteRequest,
  type RouteServices,
} from './route-types.js';
import { resolveScope } from './scopes.js';

function cursorRef(request: RouteRequest, fields: FieldSource): { ns: string; name: string } {
  const scope = resolveScope(request.run.context, optionalString(fields, 'scope'));
  return {
    ns: docNamespace('cursor', scope),
    name: checkName('name', requiredString(fields, 'name')),
  };
}

export function cursorRoutes(services: RouteServices): Record<string, Route> {
  const { gate, clock } = services;
  return {
    '/v1/cursor/get': {
      method: 'GET',
      body: 'none',
      async handle(request) {
        const { ns, name } = cursorRef(request, queryFields(request.query));
        const doc = await gate.call('read a cursor', (store) => store.getDocument(ns, name));
        const stored = readStoredValue(doc);
        if (stored === undefined) return NOT_FOUND;
        return jsonReply({ value: stored.value, updatedAt: stored.updatedAt });
      },
    },
    '/v1/cursor/advance': {
      method: 'POST',
      body: 'json-value',
      async handle(request) {
        const { object, text } = readJsonBody(request);
        const fields = bodyFields(object);
        const { ns, name } = cursorRef(request, fields);
        if (!fields.has('value')) throw new ApiError('YC_ERR_REQUEST_INVALID', 'value is required');
        const value = fields.get('value');
        checkPortable(value, text);
        checkValueSize(value, services.settings.maxValueBytes, 'cursor value');
        const force = optionalFlag(fields, 'force');
        const outcome = await gate.call('advance a cursor', (store) =>
          store.updateDocument(ns, name, (current) =>
            advanceCursor(current, name, value, force, clock.now()),
          ),
        );
        switch (outcome.kind) {
          case 'advanced':
            return jsonReply({ value: outcome.value, advanced: true });
          case 'unchanged':
            return jsonReply({ value: outcome.value, advanced: false });
          case 'incomparable':
            throw conflict(
              `cursor value (${describeCursorType(value)}) is not comparable with the stored value (${describeCursorType(outcome.current)}); pass force to overwrite`,
            );
        }
      },
    },
  };
}
