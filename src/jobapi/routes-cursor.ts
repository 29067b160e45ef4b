// Monotonic cursors (docs/http-api.md "The job API", /v1/cursor/*): one document per cursor in
// namespace `cursor/<scope>`, in the reference's body `{name, updatedAt, value}`. advance decides
// under the document's lock, so concurrent advancers (other runs, other nodes, reference nodes on a
// shared store) converge on the furthest value and a replayed batch never walks it back.
import { describeCursorType } from './cursor-order.js';
import { advanceCursor } from './documents.js';
import { bodyFields, optionalFlag, queryFields } from './request-fields.js';
import {
  conflict,
  jsonReply,
  readJsonBody,
  type Route,
  type RouteServices,
} from './route-types.js';
import { documentRef, requiredValue, storedValueReply } from './scoped-fields.js';

export function cursorRoutes(services: RouteServices): Record<string, Route> {
  const { gate, clock } = services;
  return {
    '/v1/cursor/get': {
      method: 'GET',
      body: 'none',
      async handle(request) {
        const { ns, name } = documentRef(request, queryFields(request.query), 'cursor', 'name');
        const doc = await gate.call('read a cursor', (store) => store.getDocument(ns, name));
        return storedValueReply(doc);
      },
    },
    '/v1/cursor/advance': {
      method: 'POST',
      body: 'json-value',
      async handle(request) {
        const { object, text } = readJsonBody(request);
        const fields = bodyFields(object);
        const { ns, name } = documentRef(request, fields, 'cursor', 'name');
        const value = requiredValue(fields, text, services.settings.maxValueBytes, 'cursor value');
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
