// Stable error codes and the one error class; the CLI and HTTP layers map codes to exit codes
// and statuses in one table each. Codes are never reused for a different meaning.

export const ERROR_CODES = {
  YC_ERR_CONFIG_INVALID: 'the configuration is invalid',
  YC_ERR_CONFIG_IO: 'a configuration file could not be read',
  YC_ERR_SCHEDULE_INVALID: 'a schedule expression is invalid',
  YC_ERR_TIMEZONE_UNKNOWN: 'a timezone name is unknown',
  YC_ERR_USAGE: 'the command line is invalid',
  YC_ERR_SPAWN: 'a child process could not be started',
  YC_ERR_JOB_UNKNOWN: 'no job has this name',
  YC_ERR_JOB_DISABLED: 'the job is disabled',
  YC_ERR_JOB_NOT_RUNNING: 'the job has no running instance',
  YC_ERR_SHUTTING_DOWN: 'the daemon is shutting down',
  YC_ERR_STATE_CLOSED: 'the state store is not open',
  YC_ERR_STATE_IO: 'the state store could not be read or written',
  YC_ERR_STATE_NAME_INVALID: 'a state stream, document, lease or blob name is invalid',
  YC_ERR_STATE_VALUE_INVALID: 'a value cannot be stored as plain JSON',
  YC_ERR_STATE_TIMEOUT: 'a state store operation did not finish in time',
  YC_ERR_STATE_CORRUPT: 'a state file that must not be skipped is unreadable',
  YC_ERR_STATE_SCHEMA: 'a state file was written by a newer record scheme',
  YC_ERR_STATE_UNSAFE: 'a state store directory is not safe to use',
  YC_ERR_CLUSTER_TLS: 'the cluster mTLS material (CA, certificate, key) cannot be loaded',
  YC_ERR_CLUSTER_LISTEN: 'the cluster peer listener cannot be started',
  YC_ERR_CLUSTER_LEASE: 'the cluster lease store did not answer or answered unexpectedly',
  YC_ERR_CLUSTER_CREDENTIALS: 'the cluster lease store credentials cannot be used',
  YC_ERR_REPORT_FAILED: 'a reporter could not send its report',
  YC_ERR_STATE_ADMIN_REFUSED: 'an offline state administration action was refused',
  YC_ERR_STATE_ADMIN_FAILED: 'an offline state administration action cannot proceed',
  YC_ERR_REQUEST_INVALID: 'an API request is malformed or names something invalid',
  YC_ERR_REQUEST_FORBIDDEN: 'the job may not use this state scope',
  YC_ERR_REQUEST_CONFLICT: 'the request conflicts with the state it would change',
  YC_ERR_BLOB_GONE: "a record's blob was garbage-collected",
  YC_ERR_REQUEST_TOO_LARGE: 'a request body or value is over its size limit',
  YC_ERR_REQUEST_RATE_LIMITED: 'too many requests in flight or per second',
  YC_ERR_STATE_UNAVAILABLE: 'the state backend is not available to serve the request',
  YC_ERR_DAG_UNKNOWN: 'no DAG has this name',
  YC_ERR_DAG_RUN_UNKNOWN: 'the DAG has no run with this key',
  YC_ERR_DAG_TASK_UNKNOWN: 'the DAG run has no task with this key',
  YC_ERR_DAG_NOT_AWAITING: 'the DAG task is not awaiting an approval decision',
  YC_ERR_DAG_NOT_SCHEDULED: 'the DAG has no schedule',
  YC_ERR_DAG_RUN_ENDED: 'the DAG run has already ended',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class YacronError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'YacronError';
    this.code = code;
  }
}

export function isYacronError(error: unknown, code?: ErrorCode): error is YacronError {
  return error instanceof YacronError && (code === undefined || error.code === code);
}

/** A short human message for any thrown value (no stack). */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
