// Which files are config files and how they are named in messages: the crontab-vs-YAML naming
// rules (docs/configuration.md "File type", "Directory mode"), directory filtering, display
// paths, readable I/O error texts and strict UTF-8 decoding.
import { isUtf8 } from 'node:buffer';
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

/** The code of a failed call (`ENOENT`, `EACCES`, ...); undefined when it carries none. */
export function errorCodeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

/** A short reason for a failed read, without the stack or the errno noise. */
export function describeIoError(error: unknown): string {
  const code = errorCodeOf(error) ?? '';
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

export type DecodedText =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly reason: string; readonly line: number };

/**
 * Strict UTF-8 (a config file must not turn bad bytes into U+FFFD silently, e.g. inside a
 * command): the text, or where the first invalid byte is.
 */
export function decodeUtf8(bytes: Buffer): DecodedText {
  if (isUtf8(bytes)) return { ok: true, text: bytes.toString('utf8') };
  const offset = firstInvalidUtf8Offset(bytes);
  let line = 1;
  for (let index = 0; index < offset; index++) if (bytes[index] === 0x0a) line++;
  const byte = (bytes[offset] ?? 0).toString(16).padStart(2, '0');
  return {
    ok: false,
    reason: `not valid UTF-8: byte 0x${byte} at byte offset ${offset}`,
    line,
  };
}

/** The offset of the first byte that does not belong to a well-formed UTF-8 sequence. */
function firstInvalidUtf8Offset(bytes: Buffer): number {
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index] ?? 0;
    let length: number;
    let min = 0x80;
    let max = 0xbf;
    if (lead < 0x80) length = 1;
    else if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead === 0xe0) min = 0xa0; // no overlong forms
      if (lead === 0xed) max = 0x9f; // no surrogates
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead === 0xf0) min = 0x90; // no overlong forms
      if (lead === 0xf4) max = 0x8f; // nothing above U+10FFFF
    } else return index;
    for (let next = 1; next < length; next++) {
      const byte = bytes[index + next];
      const low = next === 1 ? min : 0x80;
      const high = next === 1 ? max : 0xbf;
      if (byte === undefined || byte < low || byte > high) return index;
    }
    index += length;
  }
  return bytes.length;
}
