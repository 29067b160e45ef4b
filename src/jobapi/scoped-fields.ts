// The request shapes the store routes share (docs/http-api.md "The job API"): a scoped name
// (kv, cursor, idempotency and lock routes), a required JSON value (kv/set, cursor/advance) and
// the `{value, updatedAt}` answer of a stored value (kv/get, cursor/get). One place for each, so
// the routes check their inputs in one order and answer one shape.
import type { StateDocument } from '../state/index.js';
import { ApiError } from './api-error.js';
import { readStoredValue } from './documents.js';
import { checkPortable, checkValueSize } from './json-values.js';
import { checkName, docNamespace, type DocFamily } from './names.js';
import { optionalString, requiredString, type FieldSource } from './request-fields.js';
import { jsonReply, NOT_FOUND, type RouteReply, type RouteRequest } from './route-types.js';
import { resolveScope } from './scopes.js';

export interface ScopedName {
  readonly scope: string;
  readonly name: string;
}

/**
 * The request's `scope` (absent = the run's default; one it may not use is a 403) and its `field`
 * (`name` or `key`, a checked name), in that order.
 */
export function scopedName(
  request: RouteRequest,
  fields: FieldSource,
  field: 'name' | 'key',
): ScopedName {
  const scope = resolveScope(request.run.context, optionalString(fields, 'scope'));
  return { scope, name: checkName(field, requiredString(fields, field)) };
}

/** A document route's scoped name and the namespace of its `family` in that scope. */
export function documentRef(
  request: RouteRequest,
  fields: FieldSource,
  family: DocFamily,
  field: 'name' | 'key',
): ScopedName & { readonly ns: string } {
  const { scope, name } = scopedName(request, fields, field);
  return { scope, name, ns: docNamespace(family, scope) };
}

/**
 * The `value` of a write: present (null is a value), portable across the reference's JSON
 * reader (`rawText` is the body as sent) and within maxValueBytes (`what` names it in the 413).
 */
export function requiredValue(
  fields: FieldSource,
  rawText: string,
  maxValueBytes: number | null,
  what: string,
): unknown {
  if (!fields.has('value')) throw new ApiError('YC_ERR_REQUEST_INVALID', 'value is required');
  const value = fields.get('value');
  checkPortable(value, rawText);
  checkValueSize(value, maxValueBytes, what);
  return value;
}

/** `{value, updatedAt}` of a stored value; a bare 404 when there is none. */
export function storedValueReply(doc: StateDocument | undefined): RouteReply {
  const stored = readStoredValue(doc);
  if (stored === undefined) return NOT_FOUND;
  return jsonReply({ value: stored.value, updatedAt: stored.updatedAt });
}
