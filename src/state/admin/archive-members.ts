// Which members of a backup archive may be restored (docs/cli.md "yacron2 state"): only plain files
// whose path stays inside the store's data directories. An absolute path, a `..` segment, a link, a
// device or a FIFO makes the whole archive hostile: it is refused before anything is written.
import { DATA_DIRS } from './layout.js';

export type MemberVerdict =
  | { readonly kind: 'extract'; readonly rel: string }
  | { readonly kind: 'ignore'; readonly why: string }
  | { readonly kind: 'reject'; readonly why: string };

const PLAIN_FILE_TYPES: ReadonlySet<string> = new Set(['File', 'OldFile', 'ContiguousFile']);
const DATA_DIR_SET: ReadonlySet<string> = new Set(DATA_DIRS);

export function judgeMember(rawPath: string, type: string): MemberVerdict {
  if (rawPath.includes('\0') || rawPath.includes('\\')) {
    return { kind: 'reject', why: 'its path contains a NUL or a backslash' };
  }
  if (rawPath.startsWith('/') || /^[A-Za-z]:/.test(rawPath)) {
    return { kind: 'reject', why: 'its path is absolute' };
  }
  const segments = rawPath.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) return { kind: 'reject', why: "its path contains '..'" };
  if (type === 'Directory') return { kind: 'ignore', why: 'a directory' };
  if (!PLAIN_FILE_TYPES.has(type)) {
    return { kind: 'reject', why: `it is not a plain file (${describeType(type)})` };
  }
  const [top] = segments;
  if (segments.length < 2 || top === undefined || !DATA_DIR_SET.has(top)) {
    return { kind: 'ignore', why: `outside ${DATA_DIRS.map((dir) => `${dir}/`).join(', ')}` };
  }
  return { kind: 'extract', rel: segments.join('/') };
}

function describeType(type: string): string {
  switch (type) {
    case 'SymbolicLink':
      return 'a symbolic link';
    case 'Link':
      return 'a hard link';
    case 'CharacterDevice':
    case 'BlockDevice':
      return 'a device';
    case 'FIFO':
      return 'a FIFO';
    default:
      return type;
  }
}
