// An expected refusal of a job API request, carried as an exception from the depth where it is
// found (a field check, a scope check, a store timeout) to the one place that writes responses.
// Bodies follow docs/http-api.md "The job API": JSON `{"error": ...}`, except 401, 404 and the
// transport-cap 413, which are bare framework errors (`bare: true`).
import { httpStatusOf, YacronError } from '../common/index.js';

export interface ApiErrorOptions {
  /** Answer with a plain `<status>: <reason>` body instead of JSON. */
  readonly bare?: boolean;
  /** The request body was not read: close the connection after the answer. */
  readonly closeConnection?: boolean;
  /** A Retry-After header, in seconds (429). */
  readonly retryAfterSeconds?: number;
}

/** The codes a job API refusal carries; its status comes from common/http-status.ts. */
export type ApiErrorCode =
  | 'YC_ERR_REQUEST_INVALID'
  | 'YC_ERR_REQUEST_FORBIDDEN'
  | 'YC_ERR_REQUEST_CONFLICT'
  | 'YC_ERR_BLOB_GONE'
  | 'YC_ERR_REQUEST_TOO_LARGE'
  | 'YC_ERR_REQUEST_RATE_LIMITED'
  | 'YC_ERR_STATE_UNAVAILABLE';

export class ApiError extends YacronError {
  declare readonly code: ApiErrorCode;
  readonly status: number;
  readonly bare: boolean;
  readonly closeConnection: boolean;
  readonly retryAfterSeconds: number | null;

  constructor(code: ApiErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(code, message);
    this.name = 'ApiError';
    this.status = httpStatusOf(this);
    this.bare = options.bare ?? false;
    this.closeConnection = options.closeConnection ?? false;
    this.retryAfterSeconds = options.retryAfterSeconds ?? null;
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}
