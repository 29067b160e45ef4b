// Backend start on disk (docs/durable-state-store.md "Tree" and "Trusting the directories"):
// create state.path and the namespace directory as the reference does (umask-default modes,
// like Python's makedirs intermediates), the six namespace directories 0700 with the namespace
// fsynced, vet every one of them, and prove the store takes writes with the startup probe
// (`tmp/startup-<instance>.probe`, written, fsynced, removed).
// Must not: follow a symbolic link inside the namespace, or use a directory another user owns.
import { lstat, mkdir, stat, unlink } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import * as path from 'node:path';
import { YacronError } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import {
  NAMESPACE_DIRS,
  ensureOwnDir,
  writeTemp,
  type FsLayout,
  type SyncDir,
} from './fs-files.js';

export interface PrepareDeps {
  readonly logger: Logger;
  readonly syncDir: SyncDir;
  /** This process's effective uid (undefined where the platform has none: no owner check). */
  readonly euid: number | undefined;
}

/** Create and vet the namespace; returns the warnings to show (also logged). */
export async function prepareNamespace(
  layout: FsLayout,
  instance: string,
  deps: PrepareDeps,
): Promise<string[]> {
  // No mode: state.path and the namespace get the umask default, as the reference's do.
  await mkdir(layout.root, { recursive: true });
  const warnings: string[] = [];
  const note = (warning: string | undefined): void => {
    if (warning === undefined) return;
    warnings.push(warning);
    deps.logger.warn({ root: layout.root }, warning);
  };
  const storeLink = await lstat(layout.storePath);
  if (storeLink.isSymbolicLink()) {
    deps.logger.info(
      { path: layout.storePath },
      `state.path ${layout.storePath} is a symbolic link; the store lives where it points`,
    );
  }
  note(
    vetDirectory(layout.storePath, await stat(layout.storePath), 'state.path', deps.euid, false),
  );
  note(
    vetDirectory(layout.root, await lstat(layout.root), 'the namespace directory', deps.euid, true),
  );
  let created = false;
  for (const dir of NAMESPACE_DIRS) {
    // One fsync of the namespace covers every directory created in it.
    created =
      (await ensureOwnDir(layout[dir], { durable: false, syncDir: deps.syncDir })) || created;
    note(vetDirectory(layout[dir], await lstat(layout[dir]), `${dir}/`, deps.euid, true));
  }
  if (created) await deps.syncDir(layout.root);
  const probe = await writeTemp(layout.tmp, `startup-${instance}.probe`, 'probe', {
    durable: true,
  });
  await unlink(probe);
  return warnings;
}

/**
 * Throws YC_ERR_STATE_UNSAFE for what the store must not use (a link or non-directory; with
 * `strict`, a directory owned by another user than this one or root), and returns a warning
 * for a directory others may write into (group- or world-writable without the sticky bit):
 * whoever can rename entries there can swap a store directory for a link.
 */
export function vetDirectory(
  dir: string,
  stats: Stats,
  what: string,
  euid: number | undefined,
  strict: boolean,
): string | undefined {
  if (stats.isSymbolicLink() || !stats.isDirectory()) {
    throw new YacronError(
      'YC_ERR_STATE_UNSAFE',
      `Cannot use the state store at ${dir}: ${what} is ${stats.isSymbolicLink() ? 'a symbolic link' : 'not a directory'} (the store creates its directories itself and never follows a link inside it)`,
    );
  }
  const foreign = euid !== undefined && stats.uid !== euid && stats.uid !== 0;
  if (foreign && strict) {
    throw new YacronError(
      'YC_ERR_STATE_UNSAFE',
      `Cannot use the state store at ${dir}: ${what} is owned by uid ${stats.uid}, not by this user (uid ${euid}) or root, so that user could replace what the daemon reads and writes`,
    );
  }
  const problems: string[] = [];
  if (foreign) problems.push(`is owned by uid ${stats.uid}, not by this user (uid ${euid})`);
  if ((stats.mode & 0o022) !== 0 && (stats.mode & 0o1000) === 0) {
    problems.push(`is writable by ${(stats.mode & 0o002) !== 0 ? 'every user' : 'its group'}`);
  }
  if (problems.length === 0) return undefined;
  return `The state store directory ${path.resolve(dir)} (${what}) ${problems.join(' and ')}: another user could swap store directories for links; make it owned by this user and not writable by others`;
}
