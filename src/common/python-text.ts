// Python's string rules where a peer written in Python must agree with us: sorting and minimum by
// code point (the comparison itself is python-json's compareCodePoints), length in code points,
// `str.isprintable()`, and `repr()` quoting for texts that end up in API values.
// Pure functions. Must not: normalise or case-fold anything (names compare exactly).
import { compareCodePoints } from './python-json.js';

/** A copy sorted by code point. */
export function sortByCodePoint(values: Iterable<string>): string[] {
  return [...values].sort(compareCodePoints);
}

/** The code-point-smallest of a non-empty list (Python's `min`). */
export function minByCodePoint(first: string, rest: Iterable<string>): string {
  let best = first;
  for (const value of rest) if (compareCodePoints(value, best) < 0) best = value;
  return best;
}

/** Length in code points (Python's `len`); a lone surrogate counts as one. */
export function codePointLength(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index += 1;
    }
    count += 1;
  }
  return count;
}

/** True when `text` has at most `max` code points (cheap when the UTF-16 length already says so). */
export function atMostCodePoints(text: string, max: number): boolean {
  if (text.length <= max) return true;
  if (text.length > 2 * max) return false;
  return codePointLength(text) <= max;
}

// Python's isprintable(): no code point of category Cc, Cf, Cs, Co, Cn, Zl, Zp or Zs, except the
// ASCII space. The `u` flag makes a lone surrogate match \p{Cs}.
const NON_PRINTABLE = /(?! )[\p{C}\p{Z}]/u;
const PLAIN_ASCII = /^[\x20-\x7e]*$/;

/** Python's `str.isprintable()` (the empty string is printable). */
export function isPythonPrintable(text: string): boolean {
  return PLAIN_ASCII.test(text) || !NON_PRINTABLE.test(text);
}

/**
 * Python's `repr()` of a str: single quotes unless the text holds a single quote and no double
 * quote; backslash and the chosen quote escaped; `\t \n \r`, other non-printable code points as
 * `\xhh`, `\uhhhh` or `\Uhhhhhhhh`.
 */
export function pythonRepr(text: string): string {
  return quoted(text, false);
}

/**
 * Python's ascii() of a str: repr() with every non-ASCII character escaped as well (`\xe9`,
 * `\u20ac`, `\U0001f600`), for the `!a` conversion of a log prefix.
 */
export function pythonAscii(text: string): string {
  return quoted(text, true);
}

function quoted(text: string, asciiOnly: boolean): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of text) {
    if (char === '\\' || char === quote) out += `\\${char}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (char === ' ' || (!NON_PRINTABLE.test(char) && !(asciiOnly && char > '\x7f'))) {
      out += char;
    } else {
      const code = char.codePointAt(0) ?? 0;
      if (code < 0x100) out += `\\x${hex(code, 2)}`;
      else if (code < 0x10000) out += `\\u${hex(code, 4)}`;
      else out += `\\U${hex(code, 8)}`;
    }
  }
  return out + quote;
}

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
}
