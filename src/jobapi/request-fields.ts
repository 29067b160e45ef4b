// Reading a request's inputs (its 400s, docs/http-api.md "The job API"): the JSON body must be an
// object; required fields answer `<field> is required`; ttl / blockSeconds / permits must be
// numeric. Values are read from a JSON object body or from a query string through the same small
// interface.
import { ApiError } from './api-error.js';
import { checkDepth } from './json-values.js';

/** Where a route's fields come from: a JSON body object or the query string. */
export interface FieldSource {
  /** undefined when the field is absent. */
  get(field: string): unknown;
  has(field: string): boolean;
}

export function bodyFields(body: Readonly<Record<string, unknown>>): FieldSource {
  return {
    get: (field) => (Object.hasOwn(body, field) ? body[field] : undefined),
    has: (field) => Object.hasOwn(body, field),
  };
}

export function queryFields(query: URLSearchParams): FieldSource {
  return {
    get: (field) => query.get(field) ?? undefined,
    has: (field) => query.has(field),
  };
}

/** Parse a request body that must be a JSON object. */
export function parseJsonObject(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError('YC_ERR_REQUEST_INVALID', 'request body is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ApiError('YC_ERR_REQUEST_INVALID', 'request body must be a JSON object');
  }
  checkDepth(parsed);
  return parsed as Record<string, unknown>;
}

/** A non-empty string field; absent, null or empty answers `<field> is required`. */
export function requiredString(source: FieldSource, field: string): string {
  const value = source.get(field);
  if (value === undefined || value === null || value === '') {
    throw new ApiError('YC_ERR_REQUEST_INVALID', `${field} is required`);
  }
  if (typeof value !== 'string')
    throw new ApiError('YC_ERR_REQUEST_INVALID', `${field} must be a string`);
  return value;
}

/** An optional string field (absent or null = undefined). */
export function optionalString(source: FieldSource, field: string): string | undefined {
  const value = source.get(field);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string')
    throw new ApiError('YC_ERR_REQUEST_INVALID', `${field} must be a string`);
  return value;
}

/** An optional finite number; a numeric string is accepted (the reference coerces). */
export function optionalNumber(source: FieldSource, field: string): number | undefined {
  const value = source.get(field);
  if (value === undefined || value === null) return undefined;
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && value.trim() !== ''
        ? Number(value)
        : NaN;
  if (!Number.isFinite(number))
    throw new ApiError('YC_ERR_REQUEST_INVALID', `${field} must be a number`);
  return number;
}

/** An optional flag with the reference's truthiness (0, '', null, [] and {} are false). */
export function optionalFlag(source: FieldSource, field: string): boolean {
  const value = source.get(field);
  if (value === undefined || value === null || value === false || value === 0 || value === '') {
    return false;
  }
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}
