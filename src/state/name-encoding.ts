// Stream, document, lease and namespace names → file names, injectively. Only [a-z0-9_-] and
// inner dots stay as they are; every other UTF-8 byte (upper-case letters included, so names
// that differ only in case never meet on a case-insensitive filesystem) becomes %XX with
// upper-case hex. Decoding is plain percent-decoding, so distinct names always give distinct
// file names, even after case folding (a token is either one lower-case character or %XX).
// Must not: touch the filesystem.
import { createHash } from 'node:crypto';
import { YacronError } from '../common/errors.js';

/** Longest encoded name kept readable; longer names get the hashed form (NAME_MAX is 255). */
export const MAX_PLAIN_ENCODED_LENGTH = 200;
/** How much of the readable encoding a hashed name keeps as a prefix, for humans. */
const HASHED_PREFIX_LENGTH = 120;
/** Separates a hashed name's prefix from its digest; never produced by the plain encoding. */
const HASH_MARK = '~';

/** Windows device names: reserved with any extension and in any case (CON, con.json, COM1). */
const RESERVED_BASENAMES = new Set([
  'con',
  'prn',
  'aux',
  'nul',
  'conin$',
  'conout$',
  ...Array.from({ length: 10 }, (_, i) => `com${i}`),
  ...Array.from({ length: 10 }, (_, i) => `lpt${i}`),
]);

/** In unicode mode a valid pair is one code point, so \p{Cs} matches only lone halves. */
const LONE_SURROGATE = /\p{Cs}/u;

function isPlainByte(byte: number): boolean {
  return (
    (byte >= 0x61 && byte <= 0x7a) || // a-z
    (byte >= 0x30 && byte <= 0x39) || // 0-9
    byte === 0x5f || // _
    byte === 0x2d // -
  );
}

function escapeByte(byte: number): string {
  return `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
}

/** Throws unless `name` can be stored: non-empty and well-formed UTF-16 (no lone surrogates). */
export function assertValidName(name: string, what: string): void {
  if (typeof name !== 'string' || name.length === 0) {
    throw new YacronError('YC_ERR_STATE_NAME_INVALID', `Cannot use the ${what} name: it is empty`);
  }
  if (LONE_SURROGATE.test(name)) {
    throw new YacronError(
      'YC_ERR_STATE_NAME_INVALID',
      `Cannot use the ${what} name ${JSON.stringify(name)}: it contains a lone UTF-16 surrogate`,
    );
  }
}

/**
 * The file-name form of `name`. A leading or trailing dot is escaped (no hidden files, no `.` or
 * `..`, no Windows trailing-dot stripping), and so is the first character of a name whose part
 * before the first dot is a Windows device name. Encodings longer than MAX_PLAIN_ENCODED_LENGTH
 * become `<readable prefix>~<sha256 of the name>` (injective up to sha256 collisions).
 */
export function encodeName(name: string, what = 'state'): string {
  assertValidName(name, what);
  const bytes = Buffer.from(name, 'utf8');
  const basename = name.split('.', 1)[0] ?? '';
  const escapeFirst = RESERVED_BASENAMES.has(basename);
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    const isEdge = i === 0 || i === bytes.length - 1;
    if (i === 0 && escapeFirst) out += escapeByte(byte);
    else if (isPlainByte(byte)) out += String.fromCharCode(byte);
    else if (byte === 0x2e && !isEdge) out += '.';
    else out += escapeByte(byte);
  }
  if (out.length <= MAX_PLAIN_ENCODED_LENGTH) return out;
  let prefix = out.slice(0, HASHED_PREFIX_LENGTH);
  const lastPercent = prefix.lastIndexOf('%');
  if (lastPercent > prefix.length - 3) prefix = prefix.slice(0, lastPercent);
  const digest = createHash('sha256').update(bytes).digest('hex');
  return `${prefix}${HASH_MARK}${digest}`;
}

/** True for the hashed long-name form, which cannot be decoded (the name is stored inside). */
export function isHashedEncoding(fileName: string): boolean {
  return fileName.includes(HASH_MARK);
}

/**
 * The name a plain encoding stands for, or undefined when `fileName` is not the canonical
 * encoding of any name (a foreign file, a hashed name, a lower-case escape).
 */
export function decodeName(fileName: string): string | undefined {
  if (fileName.length === 0 || isHashedEncoding(fileName)) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < fileName.length; i++) {
    const char = fileName.charCodeAt(i);
    if (char === 0x25) {
      const hex = fileName.slice(i + 1, i + 3);
      if (!/^[0-9A-F]{2}$/.test(hex)) return undefined;
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else if (char < 0x80) {
      bytes.push(char);
    } else {
      return undefined;
    }
  }
  const name = new TextDecoder('utf-8', { fatal: false }).decode(Uint8Array.from(bytes));
  if (LONE_SURROGATE.test(name) || name.length === 0) return undefined;
  return encodeName(name) === fileName ? name : undefined;
}
