// The two kernel constants /proc numbers are expressed in: clock ticks per second (USER_HZ, for
// CPU times) and the page size (for RSS). Node has no sysconf(); the kernel hands both to every
// process in its auxiliary vector (/proc/self/auxv: AT_CLKTCK, AT_PAGESZ), which is what libc's
// sysconf reads too. Falls back to Linux's usual 100 Hz and 4 KiB when auxv cannot be read.
import { endianness } from 'node:os';
import type { ProcSource } from './proc-source.js';

export interface SystemConstants {
  readonly clockTicksPerSecond: number;
  readonly pageSizeBytes: number;
}

export const FALLBACK_CONSTANTS: SystemConstants = Object.freeze({
  clockTicksPerSecond: 100,
  pageSizeBytes: 4096,
});

const AT_PAGESZ = 6;
const AT_CLKTCK = 17;
/** 32-bit architectures have 4-byte auxv words; every other Node target has 8. */
const ARCHES_32_BIT: ReadonlySet<string> = new Set(['arm', 'ia32', 'mips', 'mipsel', 'ppc']);

/** AT_CLKTCK and AT_PAGESZ from an auxv image (pairs of native-endian words). */
export function parseAuxv(
  bytes: Uint8Array,
  wordBytes: 4 | 8,
  littleEndian: boolean,
): SystemConstants {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const word = (offset: number): number =>
    wordBytes === 8
      ? Number(view.getBigUint64(offset, littleEndian))
      : view.getUint32(offset, littleEndian);
  let clockTicksPerSecond = FALLBACK_CONSTANTS.clockTicksPerSecond;
  let pageSizeBytes = FALLBACK_CONSTANTS.pageSizeBytes;
  for (let offset = 0; offset + 2 * wordBytes <= bytes.byteLength; offset += 2 * wordBytes) {
    const type = word(offset);
    if (type === 0) break; // AT_NULL ends the vector
    const value = word(offset + wordBytes);
    if (type === AT_CLKTCK && value > 0) clockTicksPerSecond = value;
    if (type === AT_PAGESZ && value > 0) pageSizeBytes = value;
  }
  return { clockTicksPerSecond, pageSizeBytes };
}

export function readSystemConstants(source: ProcSource, procRoot = '/proc'): SystemConstants {
  const bytes = source.readBytes(`${procRoot}/self/auxv`);
  if (bytes === undefined) return FALLBACK_CONSTANTS;
  const wordBytes = ARCHES_32_BIT.has(process.arch) ? 4 : 8;
  return parseAuxv(bytes, wordBytes, endianness() === 'LE');
}
