// Monotonic cursors (http-api B.4 /v1/cursor/*): documents `cursor/<scope>/<name>` holding the
// value. advance is a compare-and-set loop, so concurrent advancers (other runs, other nodes on
// a shared store) converge on the furthest value and a replayed batch never walks it back.
import { ApiError } from './api-error.js';
import { compareCursor, describeCursorType } from './cursor-order.js';
import { checkPortable, checkValueSize } from './json-values.js';
import { checkName, docKey } from './names.js';
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
  epochSeconds,
  jsonReply,
  readJsonBody,
  type Route,
  type RouteRequest,
  type RouteServices,
} from './route-types.js';
import { resolveScope } from './scopes.js';
import { unavailable } from './store-gate.js';

/** Compare-and-set attempts before giving up (each loser saw another writer make progress). */
export const MAX_CAS_ATTEMPTS = 64;

function cursorKey(request: RouteRequest, fields: FieldSource): string {
  const scope = resolveScope(request.run.context.job, optionalString(fields, 'scope'));
  return docKey('cursor', scope, checkName('name', requiredString(fields, 'name')));
}

export function cursorRoutes(services: RouteServices): Record<string, Route> {
  const { gate } = services;
  return {
    '/v1/cursor/get': {
      method: 'GET',
      async handle(request) {
        const key = cursorKey(request, queryFields(request.query));
        const doc = await gate.call('read a cursor', (store) => store.getDoc(key));
        if (doc === undefined) return NOT_FOUND;
        return jsonReply({ value: doc.value, updatedAt: epochSeconds(doc.updatedAtMs) });
      },
    },
    '/v1/cursor/advance': {
      method: 'POST',
      async handle(request) {
        const { object, text } = readJsonBody(request);
        const fields = bodyFields(object);
        const key = cursorKey(request, fields);
        if (!fields.has('value')) throw new ApiError(400, 'value is required');
        const value = fields.get('value');
        checkPortable(value, text);
        checkValueSize(value, services.settings.maxValueBytes, 'cursor value');
        if (optionalFlag(fields, 'force')) {
          await gate.call('write a cursor', (store) => store.putDoc(key, value));
          return jsonReply({ value, advanced: true });
        }
        let current = await gate.call('read a cursor', (store) => store.getDoc(key));
        for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
          if (current !== undefined) {
            const order = compareCursor(value, current.value);
            if (order === 'incomparable') {
              throw conflict(
                `cursor value (${describeCursorType(value)}) is not comparable with the stored value (${describeCursorType(current.value)}); pass force to overwrite`,
              );
            }
            if (order === 'not-greater')
              return jsonReply({ value: current.value, advanced: false });
          }
          const expectedVersion = current?.version ?? null;
          const put = await gate.call('advance a cursor', (store) =>
            store.putDoc(key, value, { expectedVersion }),
          );
          if (put.ok) return jsonReply({ value, advanced: true });
          // Another writer got there first: decide again against what it wrote.
          current = put.current;
        }
        throw unavailable(`the cursor kept changing under ${MAX_CAS_ATTEMPTS} advance attempts`);
      },
    },
  };
}
