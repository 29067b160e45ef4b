// Read access to procfs and cgroupfs, the one seam between the samplers and the kernel: the real
// source reads files, tests hand in fixture trees (a map of paths to text).
// The real reads are synchronous on purpose: procfs files are generated in memory (no disk
// wait), a sampling pass is many tiny reads, and an async read costs a thread-pool round trip
// per file (tens of microseconds) that would dominate the pass. One pass is one tight loop; its
// cost is measured in bench/ (group `resources`).
// Must not: throw for a missing or vanished file (processes exit between a listing and a read).
import { closeSync, openSync, readSync, readdirSync } from 'node:fs';

export interface ProcSource {
  /** Entry names of a directory; undefined when it cannot be listed. */
  listDir(path: string): readonly string[] | undefined;
  /** A small file's text; undefined when it is missing or unreadable. */
  readText(path: string): string | undefined;
  /** A small file's bytes (auxv); undefined when it is missing or unreadable. */
  readBytes(path: string): Uint8Array | undefined;
}

/** procfs files we read are at most a few KiB; mountinfo on a busy host can reach tens. */
const INITIAL_BUFFER_BYTES = 16 * 1024;
/** Nothing we read is bigger than this; a longer file is cut (and then fails to parse). */
const MAX_FILE_BYTES = 1024 * 1024;

/** The source over the real filesystem. Holds one reusable read buffer. */
export function createSystemProcSource(): ProcSource {
  let buffer = Buffer.allocUnsafe(INITIAL_BUFFER_BYTES);

  /** Bytes read into `buffer` (a procfs file has no size: read until EOF). */
  const readInto = (path: string): number | undefined => {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return undefined;
    }
    try {
      let length = 0;
      for (;;) {
        if (length === buffer.length) {
          if (buffer.length >= MAX_FILE_BYTES) return length;
          const bigger = Buffer.allocUnsafe(buffer.length * 2);
          buffer.copy(bigger, 0, 0, length);
          buffer = bigger;
        }
        const read = readSync(fd, buffer, length, buffer.length - length, null);
        if (read === 0) return length;
        length += read;
      }
    } catch {
      // ESRCH: the process exited while its file was open.
      return undefined;
    } finally {
      closeSync(fd);
    }
  };

  return {
    listDir(path) {
      try {
        return readdirSync(path);
      } catch {
        return undefined;
      }
    },
    readText(path) {
      const length = readInto(path);
      return length === undefined ? undefined : buffer.toString('utf8', 0, length);
    },
    readBytes(path) {
      const length = readInto(path);
      return length === undefined ? undefined : Uint8Array.prototype.slice.call(buffer, 0, length);
    },
  };
}
