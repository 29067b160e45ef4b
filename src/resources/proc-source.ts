// Read access to procfs and cgroupfs, the one seam between the samplers and the kernel: the real
// source reads files, tests hand in fixture trees (a map of paths to text).
// The real reads are synchronous on purpose: procfs files are generated in memory (no disk
// wait), a sampling pass is many tiny reads, and an async read costs a thread-pool round trip
// per file (tens of microseconds) that would dominate the pass. One pass is one tight loop; its
// cost is measured in bench/ (group `resources`).
// Must not: throw for a missing or vanished file (processes exit between a listing and a read);
// be used for regular files that may be read short.
import { closeSync, openSync, readSync, readdirSync } from 'node:fs';

/** A file kept open: every read sees its current content (procfs regenerates it). */
export interface OpenFile {
  /** The content now; undefined once it cannot be read (the process exited). */
  read(): string | undefined;
  close(): void;
}

export interface ProcSource {
  /** Keep a file open for repeated reads; undefined when it cannot be opened. */
  open(path: string): OpenFile | undefined;
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

  /** Bytes of `fd` read into `buffer` from `position` (null: the file position). */
  const readFd = (fd: number, position: number | null): number => {
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (buffer.length >= MAX_FILE_BYTES) return length;
        const bigger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(bigger, 0, 0, length);
        buffer = bigger;
      }
      const room = buffer.length - length;
      const read = readSync(fd, buffer, length, room, position === null ? null : position + length);
      length += read;
      // procfs and cgroupfs generate a small file whole: a read that did not fill the room
      // was the end (saves the empty read that would confirm it).
      if (read < room) return length;
    }
  };

  /** Bytes of the file at `path` read into `buffer`; undefined when it cannot be read. */
  const readInto = (path: string): number | undefined => {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return undefined;
    }
    try {
      return readFd(fd, null);
    } catch {
      // ESRCH: the process exited while its file was open.
      return undefined;
    } finally {
      closeSync(fd);
    }
  };

  return {
    open(path) {
      let fd: number | null;
      try {
        fd = openSync(path, 'r');
      } catch {
        return undefined;
      }
      return {
        read() {
          if (fd === null) return undefined;
          try {
            // A read at offset 0 makes procfs generate the file afresh.
            const length = readFd(fd, 0);
            return buffer.toString('utf8', 0, length);
          } catch {
            return undefined;
          }
        },
        close() {
          if (fd !== null) closeSync(fd);
          fd = null;
        },
      };
    },
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
