// The `env_file` format (config.md §5.1.1): KEY=VALUE lines, `#` comments, no quotes, no export.
import type { EnvironmentEntry } from './types.js';

export type EnvFileParse =
  | { readonly ok: true; readonly entries: readonly EnvironmentEntry[] }
  | { readonly ok: false; readonly line: number; readonly text: string };

/** Strip spaces (not tabs) at both ends, as the reference does. */
function stripSpaces(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text[start] === ' ') start++;
  while (end > start && text[end - 1] === ' ') end--;
  return text.slice(start, end);
}

export function parseEnvFile(text: string): EnvFileParse {
  const entries: EnvironmentEntry[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  for (const [index, raw] of lines.entries()) {
    const line = stripSpaces(raw);
    if (line === '' || line.startsWith('#')) continue;
    const equals = line.indexOf('=');
    // An empty name could not be passed to a child process; refuse it like a line without `=`.
    if (equals <= 0 || stripSpaces(line.slice(0, equals)) === '') {
      return { ok: false, line: index + 1, text: line };
    }
    entries.push({
      key: stripSpaces(line.slice(0, equals)),
      value: stripSpaces(line.slice(equals + 1)),
    });
  }
  return { ok: true, entries };
}
