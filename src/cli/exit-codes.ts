// The one table from error codes to process exit codes (docs/cli.md "Exit codes").
import type { ErrorCode } from '../common/index.js';

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
/** A named thing does not exist: a job, a run, a key (docs/cli.md "Exit codes"). */
export const EXIT_NOT_FOUND = 4;

const EXIT_CODE_BY_ERROR: Partial<Record<ErrorCode, number>> = {
  YC_ERR_CONFIG_INVALID: EXIT_FAILURE,
  YC_ERR_CONFIG_IO: EXIT_FAILURE,
  YC_ERR_SCHEDULE_INVALID: EXIT_FAILURE,
  YC_ERR_TIMEZONE_UNKNOWN: EXIT_FAILURE,
  YC_ERR_USAGE: EXIT_USAGE,
};

export function exitCodeFor(code: ErrorCode): number {
  return EXIT_CODE_BY_ERROR[code] ?? EXIT_FAILURE;
}
