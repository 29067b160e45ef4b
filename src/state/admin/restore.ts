// `yacron2 state restore ARCHIVE [--force]`: validate every member first (a hostile archive is
// refused before anything is written), extract only plain files under the data directories into
// a private staging directory, then place each file with temp + atomic rename (0600). Without
// --force a store that already has data is refused; with it the archive is merged (leases by
// fence-max, lock side-files skipped). Not safe while a daemon uses the store.
import { YacronError } from '../../common/index.js';
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { extract, list, type ReadEntry } from 'tar';
import { judgeMember } from './archive-members.js';
import { readWhole } from './backup.js';
import type { AdminContext } from './context.js';
import { DIR_MODE, TMP_DIR, exists, hasData, listDataFiles } from './layout.js';
import { FilePlacer } from './place-files.js';

export interface RestoreOptions {
  readonly archive: string;
  readonly force: boolean;
}

export async function restoreStore(ctx: AdminContext, options: RestoreOptions): Promise<void> {
  const archive = path.resolve(ctx.cwd, options.archive);
  if (!(await exists(archive)))
    throw new YacronError('YC_ERR_STATE_ADMIN_FAILED', `the archive ${archive} does not exist`);
  const { extractable, ignored } = await vetArchive(archive);
  const nsDir = ctx.nsDir;
  const merge = options.force;
  if (!merge && (await hasData(nsDir))) {
    throw new YacronError(
      'YC_ERR_STATE_ADMIN_FAILED',
      `refusing to restore into ${nsDir}: the store already has data (use --force to merge)`,
    );
  }
  const placer = new FilePlacer(nsDir, { merge });
  await placer.prepare();
  const staging = path.join(nsDir, TMP_DIR, `restore-${randomBytes(8).toString('hex')}`);
  await mkdir(staging, { mode: DIR_MODE });
  try {
    await extract({
      file: archive,
      cwd: staging,
      strict: true,
      // Re-judged here too: the archive may have changed since it was vetted.
      filter: (member, entry) => judgeMember(member, entryType(entry)).kind === 'extract',
    });
    for (const rel of await listDataFiles(staging)) {
      const file = await readWhole(path.join(staging, ...rel.split('/')));
      if (file !== undefined) await placer.place(rel, file.bytes, file.mtime);
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  const { written, keptLeases, skippedLocks } = placer.tally;
  const extras = [
    merge ? `kept ${keptLeases} existing lease(s) with a newer fence` : undefined,
    skippedLocks > 0 ? `skipped ${skippedLocks} lock file(s)` : undefined,
    ignored > 0 ? `ignored ${ignored} member(s) outside the data directories` : undefined,
  ].filter((part) => part !== undefined);
  ctx.print(
    `state: restored ${written} of ${extractable} files into ${nsDir}${merge ? ' (merged)' : ''}` +
      (extras.length > 0 ? `; ${extras.join('; ')}` : ''),
  );
}

/** Read the whole archive once, writing nothing; throws on the first hostile member. */
async function vetArchive(archive: string): Promise<{ extractable: number; ignored: number }> {
  let extractable = 0;
  let ignored = 0;
  const rejected: string[] = [];
  await list({
    file: archive,
    strict: true,
    onReadEntry: (entry) => {
      const verdict = judgeMember(entry.path, entry.type);
      if (verdict.kind === 'extract') extractable++;
      else if (verdict.kind === 'ignore') ignored += verdict.why === 'a directory' ? 0 : 1;
      else rejected.push(`'${entry.path}': ${verdict.why}`);
      entry.resume();
    },
  });
  if (rejected.length > 0) {
    const more = rejected.length > 3 ? ` (and ${rejected.length - 3} more)` : '';
    throw new YacronError(
      'YC_ERR_STATE_ADMIN_FAILED',
      `refusing the archive ${archive}: member ${rejected.slice(0, 3).join('; member ')}${more}`,
    );
  }
  return { extractable, ignored };
}

function entryType(entry: unknown): string {
  return (entry as Partial<ReadEntry>).type ?? 'Unsupported';
}
