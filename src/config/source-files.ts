// Which files are config files and how they are named in messages: the crontab-vs-YAML naming
// rules of config.md §1/§3, directory filtering, display paths and readable I/O error texts.
import * as path from 'node:path';

export type FileKind = 'yaml' | 'crontab' | 'sniff';

function isCrontabName(name: string): boolean {
  const lower = name.toLowerCase();
  return lower === 'crontab' || lower.endsWith('.crontab') || lower.endsWith('.cron');
}

/** A single config file or an include: name first, content sniff for neutral names. */
export function kindByName(filePath: string): FileKind {
  const name = path.basename(filePath);
  if (isCrontabName(name)) return 'crontab';
  const lower = name.toLowerCase();
  if (lower.endsWith('.yml') || lower.endsWith('.yaml')) return 'yaml';
  return 'sniff';
}

/**
 * Directory mode: skip `_`/`.`-prefixed names; take exact lower-case `.yml`/`.yaml` and
 * crontab-named entries; never sniff. Returns null for an entry to ignore.
 */
export function directoryEntryKind(name: string): 'yaml' | 'crontab' | null {
  if (name.startsWith('_') || name.startsWith('.')) return null;
  if (isCrontabName(name)) return 'crontab';
  if (name.endsWith('.yml') || name.endsWith('.yaml')) return 'yaml';
  return null;
}

/** The path as the user recognises it: relative to `cwd` when under it, else absolute. */
export function displayPath(absolute: string, cwd: string): string {
  const relative = path.relative(cwd, absolute);
  if (relative === '') return path.basename(absolute) || absolute;
  if (relative.startsWith('..') || path.isAbsolute(relative)) return absolute;
  return relative;
}

/** A short reason for a failed read, without the stack or the errno noise. */
export function describeIoError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EISDIR':
      return 'is a directory, not a file';
    case 'ENOTDIR':
      return 'a parent of the path is not a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}
