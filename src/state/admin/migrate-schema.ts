// `yacron2 state migrate-schema [--dry-run]`: rewrite records of older known record schemes to
// the current one. `v1` is the only scheme so far, so the converter table is empty and this
// reports and converts nothing; unknown (newer) schemes are left in place (readers skip them).
import { YacronError } from '../../common/index.js';
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { RECORD_SCHEMA_VERSION } from '../types.js';
import type { AdminContext } from './context.js';
import { FILE_MODE, TMP_DIR, exists, isMissing, listDataFiles } from './layout.js';

/** Older scheme → a converter of its `data` to the current scheme's. None exist yet. */
const CONVERTERS: ReadonlyMap<string, (data: unknown) => unknown> = new Map();

export interface SchemaTally {
  current: number;
  converted: number;
  unknown: number;
  unreadable: number;
  failed: number;
}

export async function migrateSchema(
  ctx: AdminContext,
  options: { dryRun: boolean },
): Promise<SchemaTally> {
  if (!(await exists(ctx.nsDir)))
    throw new YacronError('YC_ERR_STATE_ADMIN_FAILED', `the store at ${ctx.nsDir} does not exist`);
  const tally: SchemaTally = { current: 0, converted: 0, unknown: 0, unreadable: 0, failed: 0 };
  for (const rel of await listDataFiles(ctx.nsDir)) {
    if (!rel.startsWith('records/')) continue;
    const file = path.join(ctx.nsDir, ...rel.split('/'));
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if (!isMissing(error)) tally.unreadable++;
      continue;
    }
    const version = schemaVersionOf(text);
    if (version === undefined) {
      tally.unreadable++;
    } else if (version === RECORD_SCHEMA_VERSION) {
      tally.current++;
    } else {
      const convert = CONVERTERS.get(version);
      if (convert === undefined) {
        tally.unknown++;
      } else if (options.dryRun) {
        tally.converted++;
      } else if (await rewrite(ctx.nsDir, file, text, convert)) {
        tally.converted++;
      } else {
        tally.failed++;
      }
    }
  }
  ctx.print(
    `state: migrate-schema: ${tally.current} current (${RECORD_SCHEMA_VERSION}), ` +
      `${tally.converted} ${options.dryRun ? 'would be converted' : 'converted'}, ` +
      `${tally.unknown} unknown, ${tally.unreadable} unreadable, ${tally.failed} failed`,
  );
  return tally;
}

function schemaVersionOf(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { schemaVersion?: unknown } | null;
    return typeof parsed?.schemaVersion === 'string' ? parsed.schemaVersion : undefined;
  } catch {
    return undefined;
  }
}

async function rewrite(
  nsDir: string,
  file: string,
  text: string,
  convert: (data: unknown) => unknown,
): Promise<boolean> {
  const temp = path.join(nsDir, TMP_DIR, `schema-${randomBytes(8).toString('hex')}.tmp`);
  try {
    const data = convert((JSON.parse(text) as { data?: unknown }).data);
    const next = JSON.stringify({ schemaVersion: RECORD_SCHEMA_VERSION, data });
    await writeFile(temp, next, { flag: 'wx', mode: FILE_MODE });
    await rename(temp, file);
    return true;
  } catch {
    await rm(temp, { force: true });
    return false;
  }
}
