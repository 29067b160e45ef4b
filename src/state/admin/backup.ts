// `yacron2 state backup -o FILE.tar.gz`: an owner-only gzip tar of the namespace's data
// directories (records/, docs/, blobs/, leases/; never tmp/ or quarantine/). Safe against a live
// daemon: records are immutable and every other file is replaced by atomic rename, so each file
// read is whole; a file deleted mid-backup (a prune, a GC) is skipped.
import { randomBytes } from 'node:crypto';
import { chmod, open, rename, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { DATA_DIRS, FILE_MODE, exists, isMissing, listDataFiles } from './layout.js';
import { TarGzWriter } from './tar-writer.js';
import { AdminRefusal, type AdminContext } from './context.js';

export async function backupStore(ctx: AdminContext, output: string): Promise<void> {
  const nsDir = ctx.nsDir;
  if (!(await exists(nsDir))) {
    throw new AdminRefusal(`state: nothing to back up: ${nsDir} does not exist`);
  }
  const target = path.resolve(ctx.cwd, output);
  const partial = `${target}.partial-${randomBytes(6).toString('hex')}`;
  const writer = new TarGzWriter(partial, FILE_MODE);
  const counts = new Map<string, number>(DATA_DIRS.map((dir) => [dir, 0]));
  let written = 0;
  try {
    for (const rel of await listDataFiles(nsDir)) {
      const file = await readWhole(path.join(nsDir, ...rel.split('/')));
      if (file === undefined) continue;
      await writer.add({ path: rel, bytes: file.bytes, mtime: file.mtime });
      const top = rel.slice(0, rel.indexOf('/'));
      counts.set(top, (counts.get(top) ?? 0) + 1);
      written++;
    }
    await writer.finish();
    await chmod(partial, FILE_MODE);
    await rename(partial, target);
  } catch (error) {
    await writer.abort();
    await rm(partial, { force: true });
    throw error;
  }
  const detail = DATA_DIRS.map((dir) => `${dir} ${counts.get(dir) ?? 0}`).join(', ');
  ctx.print(`state: backed up ${written} files (${detail}) from ${nsDir} to ${target}`);
}

/** A file's bytes and modification time, or undefined when it vanished (a prune, a GC). */
export async function readWhole(file: string): Promise<{ bytes: Buffer; mtime: Date } | undefined> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  try {
    const stats = await handle.stat();
    return { bytes: await handle.readFile(), mtime: stats.mtime };
  } finally {
    await handle.close();
  }
}
