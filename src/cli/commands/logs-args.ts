// `yacron2 logs`'s flags as commander hands them over, checked into one request
// (docs/cli.md "yacron2 logs"): which archives to print and whether to follow. Pure.

/** The most archives one `--last` prints (the listing route's own limit). */
export const MAX_LAST = 100;

export type ArchiveSelection =
  | { readonly kind: 'none' }
  | { readonly kind: 'last'; readonly count: number }
  | { readonly kind: 'run'; readonly id: string };

export interface LogsRequest {
  readonly job: string;
  readonly archives: ArchiveSelection;
  readonly follow: boolean;
}

export interface LogsFlags {
  readonly run?: string;
  readonly last?: string;
  readonly follow?: boolean;
}

export type LogsArgs =
  | { readonly kind: 'ok'; readonly request: LogsRequest }
  | { readonly kind: 'usage'; readonly message: string };

/**
 * `--run ID` prints one archive, `--last N` (default 1) the N newest; `--follow` alone prints no
 * archive first, with `--last N` it prints them and then follows; `--run` with either is refused.
 */
export function parseLogsArgs(job: string, flags: LogsFlags): LogsArgs {
  if (job === '') return usage('JOB must not be empty');
  const follow = flags.follow === true;
  if (flags.run !== undefined) {
    if (flags.last !== undefined) return usage('--run and --last cannot be combined');
    if (follow) return usage('--run and --follow cannot be combined');
    if (flags.run === '') return usage('--run must name an archive id');
    return { kind: 'ok', request: { job, archives: { kind: 'run', id: flags.run }, follow } };
  }
  if (flags.last === undefined) {
    const archives: ArchiveSelection = follow ? { kind: 'none' } : { kind: 'last', count: 1 };
    return { kind: 'ok', request: { job, archives, follow } };
  }
  const count = /^\d+$/.test(flags.last) ? Number(flags.last) : NaN;
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_LAST) {
    return usage(`--last must be an integer from 1 to ${MAX_LAST}, got '${flags.last}'`);
  }
  return { kind: 'ok', request: { job, archives: { kind: 'last', count }, follow } };
}

function usage(message: string): LogsArgs {
  return { kind: 'usage', message };
}
