// Strict JSON for bytes a peer sent: valid UTF-8 (no BOM), no NaN/Infinity, nesting at most 1024
// deep and no lone-surrogate escapes, so we accept exactly what the reference's fast parser
// accepts whatever the peer is. Pure. Must not: throw (a hostile body is a value, not an error).

/** The reference parser's nesting limit (arrays and objects). */
export const MAX_JSON_DEPTH = 1024;

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export type StrictJsonResult =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false };

/** Parse `bytes` as strict JSON; `{ ok: false }` for anything the reference would refuse. */
export function parseStrictJson(bytes: Uint8Array): StrictJsonResult {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { ok: false };
  }
  return parseStrictJsonText(text);
}

export function parseStrictJsonText(text: string): StrictJsonResult {
  if (!withinLimits(text)) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

const BACKSLASH = 0x5c;
const QUOTE = 0x22;

/** One linear pass: nesting depth outside strings, and `\uD8xx` escapes paired with `\uDCxx`. */
function withinLimits(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (inString) {
      if (unit === QUOTE) inString = false;
      else if (unit === BACKSLASH) {
        const escaped = text.charCodeAt(index + 1);
        if (escaped === 0x75 /* u */) {
          const code = hex4(text, index + 2);
          if (code >= 0xdc00 && code <= 0xdfff) return false; // a low half with no high half
          if (code >= 0xd800 && code <= 0xdbff) {
            const low =
              text.charCodeAt(index + 6) === BACKSLASH && text.charCodeAt(index + 7) === 0x75
                ? hex4(text, index + 8)
                : -1;
            if (low < 0xdc00 || low > 0xdfff) return false;
            index += 6;
          }
          index += 5;
        } else {
          index += 1;
        }
      }
    } else if (unit === QUOTE) {
      inString = true;
    } else if (unit === 0x5b /* [ */ || unit === 0x7b /* { */) {
      depth += 1;
      if (depth > MAX_JSON_DEPTH) return false;
    } else if (unit === 0x5d /* ] */ || unit === 0x7d /* } */) {
      depth -= 1;
    }
  }
  return true;
}

/** The value of 4 hex digits at `start`, or -1 (JSON.parse rejects the malformed escape). */
function hex4(text: string, start: number): number {
  const digits = text.slice(start, start + 4);
  return /^[0-9a-fA-F]{4}$/.test(digits) ? parseInt(digits, 16) : -1;
}

/** A plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An own property of a parsed object (never one inherited from Object.prototype). */
export function ownField(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}
