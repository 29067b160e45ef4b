// How a job command prints a stored JSON value (docs/cli.md "Job-facing commands"): a string raw,
// anything else as Python's json.dumps writes it by default (", " and ": " separators, non-ASCII
// escaped), so scripts see the same text the reference printed.

export function formatValue(value: unknown): string {
  return typeof value === 'string' ? value : pythonJsonDumps(value);
}

/** json.dumps(value) with Python's defaults (ensure_ascii, ", " / ": "). */
export function pythonJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return escapeNonAscii(JSON.stringify(value));
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value).map(
      ([key, entry]) => `${pythonJsonDumps(key)}: ${pythonJsonDumps(entry)}`,
    );
    return `{${entries.join(', ')}}`;
  }
  return 'null';
}

/** Python's ensure_ascii: every code unit outside space..tilde becomes \uXXXX (lower-case hex). */
function escapeNonAscii(json: string): string {
  return json.replace(
    /[^\x20-\x7e]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
