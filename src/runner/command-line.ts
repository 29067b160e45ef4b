// Turns a configured command into the argv to exec (docs/configuration.md "How a run works"), and
// wraps it in `setpriv` when the run switches identity so initgroups() semantics survive
// (docs/configuration.md "User and group").
import type { JobCommand } from '../config/index.js';

export const DEFAULT_SHELL = '/bin/sh';

/** List commands are exec'd verbatim; strings go through `[shell, '-c', script]`. */
export function buildCommandArgv(command: JobCommand, shell: string): readonly string[] {
  if (command.kind === 'argv') return command.argv;
  return [shell === '' ? DEFAULT_SHELL : shell, '-c', command.script];
}

export interface Identity {
  readonly uid: number | null;
  readonly gid: number | null;
  /** Login name when the uid is in passwd; initgroups() needs it. */
  readonly userName: string | null;
}

export function needsIdentitySwitch(identity: Identity): boolean {
  return identity.uid !== null || identity.gid !== null;
}

/**
 * `setpriv` sets supplementary groups (initgroups when login name and gid are known, else none),
 * then the gid, then the uid, then execs argv in place (same pid, same process group).
 */
export function wrapWithSetpriv(
  setprivPath: string,
  identity: Identity,
  argv: readonly string[],
): string[] {
  const wrapped = [setprivPath];
  if (identity.uid !== null) wrapped.push(`--reuid=${identity.uid}`);
  if (identity.gid !== null) wrapped.push(`--regid=${identity.gid}`);
  const canInitGroups =
    identity.uid !== null && identity.gid !== null && identity.userName !== null;
  wrapped.push(canInitGroups ? '--init-groups' : '--clear-groups', '--', ...argv);
  return wrapped;
}
