// Namespace, stream, document and lease names → file-name tokens, byte-identical to the Python
// reference (docs/durable-state-store.md "Name encoding"): every UTF-8 byte outside [a-z0-9_-]
// becomes %XX (upper-case hex, so `.` is `%2E` and `A` is `%41`); a whole token that is a
// Windows device name has its first character escaped; a token longer than 130 characters is
// cut to 96 and ends in `%.` + 32 hex of the name's sha256; the empty name is `_`. Decoding is
// plain percent-decoding; a truncated token (it holds `%.`, which step 1 never produces) cannot
// be decoded, so its name is kept elsewhere (a sidecar, a document body, the lease body).
// Must not: touch the filesystem.
import { createHash } from 'node:crypto';
import { YacronError } from '../common/index.js';

/** Longest token kept whole; longer ones are truncated (NAME_MAX is 255 with suffixes). */
export const MAX_TOKEN_LENGTH = 130;
/** How much of the step-1 encoding a truncated token keeps. */
const TRUNCATED_PREFIX_LENGTH = 96;
/** Marks a truncated token: `%` is always followed by hex in step-1 output. */
const TRUNCATION_MARK = '%.';

/** Whole tokens that are Windows device names (com0/lpt0 are not reserved). */
const RESERVED_TOKENS = new Set([
  'con',
  'prn',
  'aux',
  'nul',
  ...Array.from({ length: 9 }, (_, i) => `com${i + 1}`),
  ...Array.from({ length: 9 }, (_, i) => `lpt${i + 1}`),
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

/** Throws unless the store accepts `name`: non-empty and well-formed UTF-16. */
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

/** Step 1 alone: the byte escaping (what prefix scans compare with the start of a token). */
export function escapeNameBytes(name: string): string {
  let out = '';
  for (const byte of Buffer.from(name, 'utf8')) {
    out += isPlainByte(byte) ? String.fromCharCode(byte) : escapeByte(byte);
  }
  return out;
}

/**
 * The reference's token for `name`. The empty name encodes to `_` (the same token as `_`): the
 * store refuses empty names itself (assertValidName), so it never writes that collision.
 */
export function encodeName(name: string): string {
  if (name.length === 0) return '_';
  const escaped = escapeNameBytes(name);
  if (RESERVED_TOKENS.has(escaped))
    return `${escapeByte(escaped.charCodeAt(0))}${escaped.slice(1)}`;
  if (escaped.length <= MAX_TOKEN_LENGTH) return escaped;
  const digest = createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 32);
  return `${escaped.slice(0, TRUNCATED_PREFIX_LENGTH)}${TRUNCATION_MARK}${digest}`;
}

/** The store's checked encoding: refuses names it must not write, then encodes. */
export function encodeStoreName(name: string, what: string): string {
  assertValidName(name, what);
  return encodeName(name);
}

/** True for a length-truncated token, whose name cannot be decoded from it. */
export function isTruncatedToken(token: string): boolean {
  return token.includes(TRUNCATION_MARK);
}

/**
 * Plain percent-decoding of UTF-8 (Python's urllib.parse.unquote: a `%` not followed by two
 * hex digits stays as it is; bytes that are not UTF-8 decode to U+FFFD).
 */
export function percentDecode(token: string): string {
  if (!token.includes('%')) return token;
  const bytes: number[] = [];
  for (let index = 0; index < token.length; index++) {
    const char = token[index]!;
    const hex = char === '%' ? token.slice(index + 1, index + 3) : '';
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      index += 2;
    } else {
      bytes.push(...Buffer.from(char, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * The name a token stands for, when `token` is exactly the reference's encoding of it;
 * undefined for a truncated token or a foreign one (another spelling of the same bytes would
 * be read by nobody: both implementations open the canonical token).
 */
export function decodeName(token: string): string | undefined {
  if (token.length === 0 || isTruncatedToken(token)) return undefined;
  const name = token === '_' ? '_' : percentDecode(token);
  if (name.length === 0 || LONE_SURROGATE.test(name)) return undefined;
  return encodeName(name) === token ? name : undefined;
}
