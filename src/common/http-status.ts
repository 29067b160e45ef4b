// The one table from an error code to the HTTP status it is answered with, read by the control
// API (http/) and the job API (jobapi/). A code missing here is not a client's fault: a 500.
// Must not: hold reason phrases or bodies (each API renders its own, docs/http-api.md).
import type { ErrorCode, YacronError } from './errors.js';

export const HTTP_STATUS: Readonly<Partial<Record<ErrorCode, number>>> = Object.freeze({
  YC_ERR_STATE_NAME_INVALID: 400,
  YC_ERR_STATE_VALUE_INVALID: 400,
  YC_ERR_REQUEST_INVALID: 400,
  YC_ERR_REQUEST_FORBIDDEN: 403,
  YC_ERR_JOB_UNKNOWN: 404,
  YC_ERR_DAG_UNKNOWN: 404,
  YC_ERR_DAG_RUN_UNKNOWN: 404,
  YC_ERR_JOB_DISABLED: 409,
  YC_ERR_JOB_NOT_RUNNING: 409,
  YC_ERR_REQUEST_CONFLICT: 409,
  YC_ERR_DAG_RUN_ENDED: 409,
  YC_ERR_BLOB_GONE: 410,
  YC_ERR_REQUEST_TOO_LARGE: 413,
  YC_ERR_REQUEST_RATE_LIMITED: 429,
  YC_ERR_SHUTTING_DOWN: 503,
  YC_ERR_STATE_UNAVAILABLE: 503,
});

/** The status `error` is answered with (500 for a code the table does not hold). */
export function httpStatusOf(error: YacronError): number {
  return HTTP_STATUS[error.code] ?? 500;
}
