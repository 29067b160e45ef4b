// Query-string values of the control API: the first value of a parameter (a repeated one
// counts once, as the reference reads it), and integers that fall back to a default instead of
// failing the request (`runs` of /jobs/{name}/resources, `limit` of /state/records: a bad value is the default, never a 400).

export type QueryValue = string | readonly string[] | undefined;

export function firstValue(value: QueryValue): string | undefined {
  return typeof value === 'string' ? value : value?.[0];
}

/** An integer like Python's int() reads one (sign, digits, surrounding blanks), clamped; else `fallback`. */
export function boundedInteger(
  value: QueryValue,
  fallback: number,
  min: number,
  max: number,
): number {
  const text = firstValue(value);
  if (text === undefined || !/^\s*[+-]?\d+\s*$/.test(text)) return fallback;
  return Math.min(max, Math.max(min, Number(text)));
}
