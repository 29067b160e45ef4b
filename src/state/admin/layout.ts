// The on-disk layout the offline admin actions work on (docs/durable-state.md "One backend, two
// topologies"): `<path>/<namespace>/{records,docs,blobs,leases,quarantine,tmp}`. Backup, restore
// and migrate copy files, not API calls, so ids, write times and lease fences survive byte for
// byte.
import { lstat, readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { namespaceName } from '../fs-files.js';
import { encodeName } from '../name-encoding.js';

/** The directories holding data; `tmp/` and `quarantine/` are never backed up or copied. */
export const DATA_DIRS = ['records', 'docs', 'blobs', 'leases'] as const;
export const LEASES_DIR = 'leases';
export const TMP_DIR = 'tmp';
/** Lock side-files: flock targets only, recreated on demand, never carried between stores. */
export const LOCK_SUFFIX = '.lock';
/** The namespace of a store without a deploymentId. */
export const DEFAULT_NAMESPACE = 'default';

export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

/** The namespace directory of a store: `<path>/<encoded deploymentId or 'default'>`. */
export function namespaceDir(statePath: string, deploymentId: string | null): string {
  return path.join(statePath, encodeName(namespaceName(deploymentId)));
}

/**
 * Every regular file under the data directories, as `/`-separated paths relative to the
 * namespace directory, sorted. Symlinks and other non-files are not followed or listed; a
 * directory that vanishes mid-walk is skipped.
 */
export async function listDataFiles(nsDir: string): Promise<string[]> {
  const out: string[] = [];
  for (const dir of DATA_DIRS) await walk(nsDir, dir, out);
  return out.sort();
}

async function walk(root: string, rel: string, out: string[]): Promise<void> {
  let entries;
  try {
    entries = await readdir(path.join(root, rel), { withFileTypes: true });
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  for (const entry of entries) {
    const child = `${rel}/${entry.name}`;
    if (entry.isDirectory()) await walk(root, child, out);
    else if (entry.isFile()) out.push(child);
  }
}

/** True when any data directory holds at least one file. */
export async function hasData(nsDir: string): Promise<boolean> {
  return (await listDataFiles(nsDir)).length > 0;
}

export async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

export function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
