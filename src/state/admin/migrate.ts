// `yacron2 state migrate --dest PATH [--dest-deployment-id ID] [--force]`: copy the namespace's
// data files to another store root (local ↔ shared mount), each placed by temp + atomic rename so
// a reader of the destination never sees a torn file. Refuses a destination inside (or equal
// to, or containing) the source, and a destination that already has data unless --force
// (merge: leases by fence-max, lock side-files skipped). Not safe while a daemon uses the store.
import { YacronError } from '../../common/index.js';
import { realpath } from 'node:fs/promises';
import * as path from 'node:path';
import { readWhole } from './backup.js';
import type { AdminContext } from './context.js';
import { exists, hasData, isMissing, listDataFiles, namespaceDir } from './layout.js';
import { FilePlacer } from './place-files.js';

export interface MigrateOptions {
  readonly dest: string;
  /** The destination namespace; undefined = the source's. */
  readonly destDeploymentId?: string;
  readonly force: boolean;
}

export async function migrateStore(ctx: AdminContext, options: MigrateOptions): Promise<void> {
  const source = ctx.nsDir;
  if (!(await exists(source)))
    throw new YacronError('YC_ERR_STATE_ADMIN_FAILED', `the store at ${source} does not exist`);
  const destRoot = path.resolve(ctx.cwd, options.dest);
  const destId =
    options.destDeploymentId === undefined ? ctx.state.deploymentId : options.destDeploymentId;
  const dest = namespaceDir(destRoot, destId === '' ? null : destId);
  const realSource = await realpath(source);
  const realDest = await realpathOfNearest(dest);
  if (isWithin(realDest, realSource) || isWithin(realSource, realDest)) {
    throw new YacronError(
      'YC_ERR_STATE_ADMIN_FAILED',
      `refusing to migrate ${source} to ${dest}: the destination must not be the source, inside it, or contain it`,
    );
  }
  if (!options.force && (await hasData(dest))) {
    throw new YacronError(
      'YC_ERR_STATE_ADMIN_FAILED',
      `refusing to migrate into ${dest}: the destination already has data (use --force to merge)`,
    );
  }
  const placer = new FilePlacer(dest, { merge: options.force });
  await placer.prepare();
  let vanished = 0;
  for (const rel of await listDataFiles(source)) {
    const file = await readWhole(path.join(source, ...rel.split('/')));
    if (file === undefined) {
      vanished++;
      continue;
    }
    await placer.place(rel, file.bytes, file.mtime);
  }
  const { written, keptLeases, skippedLocks } = placer.tally;
  const extras = [
    options.force ? `kept ${keptLeases} existing lease(s) with a newer fence` : undefined,
    skippedLocks > 0 ? `skipped ${skippedLocks} lock file(s)` : undefined,
    vanished > 0 ? `${vanished} file(s) vanished while copying` : undefined,
  ].filter((part) => part !== undefined);
  ctx.print(
    `state: migrated ${written} files from ${source} to ${dest}${extras.length > 0 ? `; ${extras.join('; ')}` : ''}`,
  );
  const idNote =
    destId === ctx.state.deploymentId ? '' : ` and state.deploymentId at ${destId ?? '(unset)'}`;
  ctx.print(`state: now point state.path at ${destRoot}${idNote}`);
}

function isWithin(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The real path of `target`, resolving symlinks in its nearest existing ancestor. */
async function realpathOfNearest(target: string): Promise<string> {
  const missing: string[] = [];
  let current = target;
  for (;;) {
    try {
      return path.join(await realpath(current), ...missing.reverse());
    } catch (error) {
      const parent = path.dirname(current);
      if (!isMissing(error) || parent === current) throw error;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}
