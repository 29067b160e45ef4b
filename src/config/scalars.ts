// strictyaml scalar typing: every YAML scalar arrives as text and is typed here by the schema.
// Pure functions; they return undefined for text that is not of the type (the caller reports it).

const TRUE_WORDS = new Set(['yes', 'true', 'on', '1', 'y']);
const FALSE_WORDS = new Set(['no', 'false', 'off', '0', 'n']);

/** `yes,true,on,1,y` / `no,false,off,0,n`, case-insensitive. */
export function parseBoolText(text: string): boolean | undefined {
  const lower = text.toLowerCase();
  if (TRUE_WORDS.has(lower)) return true;
  if (FALSE_WORDS.has(lower)) return false;
  return undefined;
}

// Optional sign, then digits and underscores starting with a digit (`4_000`); no hex/octal.
const INT_RE = /^[-+]?\d[\d_]*$/;

/** An integer in strictyaml's spelling, or undefined (also for values beyond 2^53). */
export function parseIntText(text: string): number | undefined {
  if (!INT_RE.test(text)) return undefined;
  const value = Number(text.replaceAll('_', ''));
  return Number.isSafeInteger(value) ? value : undefined;
}

export function looksLikeInt(text: string): boolean {
  return INT_RE.test(text);
}

// Digits with single underscores between them, as Python's float() accepts.
const DIGITS = String.raw`\d(?:_?\d)*`;
const FLOAT_RE = new RegExp(
  String.raw`^[-+]?(?:${DIGITS}(?:\.(?:${DIGITS})?)?|\.${DIGITS})(?:[eE][-+]?${DIGITS})?$`,
);
const INF_RE = /^([-+]?)\.?inf(?:inity)?$/i;
const NAN_RE = /^[-+]?\.?nan$/i;

/** Int, decimal or exponent notation (underscores allowed), plus inf/nan variants. */
export function parseFloatText(text: string): number | undefined {
  if (INT_RE.test(text)) return Number(text.replaceAll('_', ''));
  if (FLOAT_RE.test(text)) return Number(text.replaceAll('_', ''));
  const inf = INF_RE.exec(text);
  if (inf) return inf[1] === '-' ? -Infinity : Infinity;
  if (NAN_RE.test(text)) return NaN;
  return undefined;
}
