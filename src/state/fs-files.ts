// File primitives of the filesystem store: the namespace layout, atomic placement (a temp under
// tmp/ written, optionally fsynced, renamed into place, the directory optionally fsynced),
// directories created 0700 with their parent fsynced, and a capped, symlink-refusing read that
// returns a verdict instead of throwing. Files are created 0600 and directories 0700; the umask
// can only narrow them (docs/durable-state-store.md "File modes").
import * as fsCallbacks from 'node:fs';
import { constants, lstat, mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { YacronError, describeError } from '../common/index.js';
import { encodeName } from './name-encoding.js';

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

/** The six directories of a namespace, created 0700 at backend start. */
export const NAMESPACE_DIRS = ['records', 'docs', 'blobs', 'leases', 'quarantine', 'tmp'] as const;
export type NamespaceDir = (typeof NAMESPACE_DIRS)[number];

export interface FsLayout extends Readonly<Record<NamespaceDir, string>> {
  /** state.path, resolved. */
  readonly storePath: string;
  /** `<path>/<enc(deploymentId or "default")>`: the namespace directory. */
  readonly root: string;
}

/** The namespace of an unset or empty deploymentId. */
export const DEFAULT_NAMESPACE = 'default';

export function namespaceName(deploymentId: string | null | undefined): string {
  return deploymentId === undefined || deploymentId === null || deploymentId === ''
    ? DEFAULT_NAMESPACE
    : deploymentId;
}

export function layoutFor(storePath: string, deploymentId: string | null | undefined): FsLayout {
  const resolved = path.resolve(storePath);
  const root = path.join(resolved, encodeName(namespaceName(deploymentId)));
  const dirs = Object.fromEntries(NAMESPACE_DIRS.map((dir) => [dir, path.join(root, dir)]));
  return { storePath: resolved, root, ...(dirs as Record<NamespaceDir, string>) };
}

export function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** The entries of `dir`; none when it (or a parent) is missing; other failures YC_ERR_STATE_IO. */
export async function readdirOrEmpty(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw new YacronError('YC_ERR_STATE_IO', `Cannot list ${dir}: ${describeError(error)}`, {
      cause: error,
    });
  }
}

/** fsync a directory so a rename or mkdir inside it survives power loss. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The fsync seam: directory syncs go through it (tests observe them). */
export type SyncDir = (dir: string) => Promise<void>;

/**
 * Make sure `dir` (a directory the store owns, inside the namespace) exists: created 0700, its
 * parent fsynced when `durable`. An existing symbolic link or non-directory there is refused
 * (YC_ERR_STATE_UNSAFE): the store never writes through a link someone planted. Resolves true
 * when this call created it.
 */
export async function ensureOwnDir(
  dir: string,
  options: { durable: boolean; syncDir: SyncDir },
): Promise<boolean> {
  try {
    await mkdir(dir, { mode: DIR_MODE });
    if (options.durable) await options.syncDir(path.dirname(dir));
    return true;
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
  }
  const stats = await lstat(dir);
  if (!stats.isDirectory()) {
    throw new YacronError(
      'YC_ERR_STATE_UNSAFE',
      `Cannot use ${dir}: it is ${stats.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}; the store creates its directories itself and never follows a link there`,
    );
  }
  return false;
}

/**
 * Write `content` to a new temp file in `tmpDir` (exclusive create, 0600, never through a link);
 * `durable` fsyncs it. Returns the temp path; the caller renames it into place or removes it.
 */
export async function writeTemp(
  tmpDir: string,
  tmpName: string,
  content: string | Uint8Array,
  options: { durable: boolean; mtimeMs?: number },
): Promise<string> {
  const tmpPath = path.join(tmpDir, tmpName);
  const handle = await open(
    tmpPath,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    FILE_MODE,
  );
  try {
    await handle.writeFile(content);
    if (options.mtimeMs !== undefined) {
      const seconds = options.mtimeMs / 1000;
      await handle.utimes(seconds, seconds);
    }
    if (options.durable) await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(tmpPath).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return tmpPath;
}

/** Rename a temp into place; on failure the temp is removed and the error rethrown. */
export async function placeTemp(tmpPath: string, target: string): Promise<void> {
  try {
    await rename(tmpPath, target);
  } catch (error) {
    await unlink(tmpPath).catch(() => undefined);
    throw error;
  }
}

/** Write `content` at `target` atomically: temp, optional fsync, rename, optional dir fsync. */
export async function writeAtomic(
  tmpDir: string,
  tmpName: string,
  target: string,
  content: string | Uint8Array,
  options: { durable: boolean; syncDir: SyncDir; mtimeMs?: number },
): Promise<void> {
  const tmpPath = await writeTemp(tmpDir, tmpName, content, options);
  await placeTemp(tmpPath, target);
  if (options.durable) await options.syncDir(path.dirname(target));
}

// The append hot path uses the callback API (promisified): it costs noticeably less per call
// than FileHandle, and a record append is four of them.
const openFd = promisify(fsCallbacks.open);
const writeFd = promisify(fsCallbacks.write);
const fsyncFd = promisify(fsCallbacks.fsync);
const closeFd = promisify(fsCallbacks.close);
const renamePath = promisify(fsCallbacks.rename);
const fstatFd = promisify(fsCallbacks.fstat);
/** fs.read's promisified form resolves an object; only the count matters here. */
function readFd(
  fd: number,
  buffer: Buffer,
  offset: number,
  length: number,
  position: number,
): Promise<number> {
  return new Promise((resolve, reject) => {
    fsCallbacks.read(fd, buffer, offset, length, position, (error, bytesRead) => {
      if (error) reject(error);
      else resolve(bytesRead);
    });
  });
}

/**
 * Place a new immutable file: write a temp in `tmpDir`, then rename it to `target`, closing the
 * temp while the rename runs (the bytes are written before the rename starts, so no reader
 * ever sees a partial file). `onMissingDir` recreates a target directory a peer removed; the
 * rename is then retried once. `durable` fsyncs the file first (the caller syncs the dir).
 */
export async function placeNewFile(
  tmpDir: string,
  tmpName: string,
  target: string,
  content: string,
  options: { durable: boolean; onMissingDir: () => Promise<void> },
): Promise<void> {
  const tmpPath = path.join(tmpDir, tmpName);
  const bytes = Buffer.from(content, 'utf8');
  const fd = await openFd(
    tmpPath,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    FILE_MODE,
  );
  const renameInto = async (): Promise<void> => {
    try {
      await renamePath(tmpPath, target);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
      await options.onMissingDir();
      await renamePath(tmpPath, target);
    }
  };
  try {
    let written = 0;
    while (written < bytes.length) {
      written += (await writeFd(fd, bytes, written, bytes.length - written, written)).bytesWritten;
    }
    if (options.durable) await fsyncFd(fd);
  } catch (error) {
    await closeFd(fd).catch(() => undefined);
    await unlink(tmpPath).catch(() => undefined);
    throw error;
  }
  const [closed, renamed] = await Promise.allSettled([closeFd(fd), renameInto()]);
  if (renamed.status === 'rejected') {
    await unlink(tmpPath).catch(() => undefined);
    throw renamed.reason;
  }
  if (closed.status === 'rejected') throw closed.reason;
}

/**
 * What reading a small file gave: its text; `missing` (vanished); `not-a-file` (a directory, a
 * symbolic link, a FIFO or device: never read, never followed); `too-large` (over the cap,
 * judged by fstat and never read whole); or a plain I/O error.
 */
export type ReadVerdict =
  | { readonly kind: 'ok'; readonly text: string; readonly mtimeMs: number }
  | { readonly kind: 'missing' }
  | { readonly kind: 'not-a-file'; readonly detail: string }
  | { readonly kind: 'too-large'; readonly detail: string }
  | { readonly kind: 'io-error'; readonly code: string; readonly detail: string };

/**
 * Read a small file, refusing symlinks (O_NOFOLLOW), FIFOs and devices (O_NONBLOCK + fstat: it
 * must be a regular file) and anything over `maxBytes`.
 */
export async function readCapped(filePath: string, maxBytes: number): Promise<ReadVerdict> {
  let fd: number;
  try {
    fd = await openFd(filePath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = errorCode(error) ?? 'EIO';
    if (code === 'ENOENT') return { kind: 'missing' };
    if (code === 'ELOOP') return { kind: 'not-a-file', detail: 'a symbolic link' };
    return { kind: 'io-error', code, detail: describeError(error) };
  }
  try {
    const stats = await fstatFd(fd);
    if (!stats.isFile()) {
      return {
        kind: 'not-a-file',
        detail: stats.isDirectory() ? 'a directory' : 'not a regular file',
      };
    }
    if (stats.size > maxBytes) {
      return { kind: 'too-large', detail: `${stats.size} bytes, over the ${maxBytes}-byte cap` };
    }
    // Read at most maxBytes + 1 so a file growing under us is still caught, never read whole.
    const buffer = Buffer.allocUnsafe(Math.min(stats.size, maxBytes) + 1);
    let filled = 0;
    for (;;) {
      const bytesRead = await readFd(fd, buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled === buffer.length) break;
    }
    if (filled > maxBytes) {
      return { kind: 'too-large', detail: `grew past the ${maxBytes}-byte cap` };
    }
    return { kind: 'ok', text: buffer.toString('utf8', 0, filled), mtimeMs: stats.mtimeMs };
  } catch (error) {
    const code = errorCode(error) ?? 'EIO';
    if (code === 'EISDIR') return { kind: 'not-a-file', detail: 'a directory' };
    return { kind: 'io-error', code, detail: describeError(error) };
  } finally {
    await closeFd(fd).catch(() => undefined);
  }
}
