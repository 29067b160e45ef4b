// Values jobs store (KV values, cursor values): they must be portable JSON (docs/http-api.md
// "The job API": no NaN/Infinity, no integer outside 64 bits), nest at most MAX_JSON_DEPTH levels
// and fit maxValueBytes, measured on the compact JSON encoding. Pure; every walk is iterative.
import { ApiError } from './api-error.js';

/**
 * Deepest nesting a request body may have. JSON.parse copes with any depth, but JSON.stringify
 * and every recursive reader (the store, the job commands' printer) overflow the stack around
 * ten thousand levels: a 500 with a stack trace in the log.
 */
export const MAX_JSON_DEPTH = 128;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * 400 unless `value` is portable. JSON.parse turns `1e999` into Infinity and a 20-digit integer
 * into a rounded double, so a suspicious number sends us back to the request's raw text.
 */
export function checkPortable(value: unknown, rawText: string): void {
  let suspicious = false;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) {
        throw new ApiError(
          'YC_ERR_REQUEST_INVALID',
          'value is not portable: NaN and Infinity have no JSON form',
        );
      }
      if (Number.isInteger(node) && !Number.isSafeInteger(node)) suspicious = true;
    } else if (Array.isArray(node)) {
      for (const item of node as unknown[]) pending.push(item);
    } else if (typeof node === 'object' && node !== null) {
      for (const item of Object.values(node)) pending.push(item);
    }
  }
  if (suspicious && hasOversizedIntegerLiteral(rawText)) {
    throw new ApiError(
      'YC_ERR_REQUEST_INVALID',
      'value is not portable: an integer is outside the 64-bit range',
    );
  }
}

/** True when the JSON text holds an integer literal (no fraction, no exponent) beyond int64. */
export function hasOversizedIntegerLiteral(text: string): boolean {
  const token = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
  for (const match of text.matchAll(token)) {
    const literal = match[0];
    if (literal.startsWith('"') || /[.eE]/.test(literal)) continue;
    const integer = BigInt(literal);
    if (integer < INT64_MIN || integer > INT64_MAX) return true;
  }
  return false;
}

/** Bytes of the compact JSON encoding (UTF-8). */
export function encodedBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/** 413 when `value` is over the cap (null = unlimited). */
export function checkValueSize(value: unknown, maxValueBytes: number | null, what: string): void {
  if (maxValueBytes === null) return;
  const size = encodedBytes(value);
  if (size > maxValueBytes) {
    throw new ApiError(
      'YC_ERR_REQUEST_TOO_LARGE',
      `${what} is ${size} bytes, over the maxValueBytes limit of ${maxValueBytes}`,
    );
  }
}

/** 400 when `value` nests deeper than MAX_JSON_DEPTH (an iterative walk: no recursion). */
export function checkDepth(value: unknown): void {
  const pending: [unknown, number][] = [[value, 1]];
  for (let entry = pending.pop(); entry !== undefined; entry = pending.pop()) {
    const [node, depth] = entry;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > MAX_JSON_DEPTH) {
      throw new ApiError(
        'YC_ERR_REQUEST_INVALID',
        `request body nests deeper than ${MAX_JSON_DEPTH} levels`,
      );
    }
    for (const child of Array.isArray(node) ? (node as unknown[]) : Object.values(node)) {
      if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
    }
  }
}
