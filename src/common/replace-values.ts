// Known secret values out of a text (docs/security.md "Secrets"): the one replace step every sink
// uses for a run's own job-API token and staged secrets — the archive, the live output lines, the
// failure log, the report variables. Pure string work, linear in the text per value.
// Must not: skip a value because it is short (every non-empty value is replaced).

/** What a known or recognised secret is replaced with, in every sink. */
export const REDACTED = '[REDACTED]';

/**
 * `values` ready for replaceValues: empties dropped, duplicates merged, longest first (a value
 * inside a longer one must not break the longer one's replacement).
 */
export function replaceOrder(values: Iterable<string>): string[] {
  return [...new Set(values)]
    .filter((value) => value.length > 0)
    .sort((a, b) => b.length - a.length);
}

/** `text` with every occurrence of each of `ordered` (see replaceOrder) replaced by REDACTED. */
export function replaceValues(text: string, ordered: readonly string[]): string {
  let result = text;
  for (const value of ordered) {
    if (result.includes(value)) result = result.replaceAll(value, REDACTED);
  }
  return result;
}
