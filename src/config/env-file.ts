// The `env_file` format (docs/configuration.md "Environment"): KEY=VALUE lines, `#` comments, no
// quotes, no export. Lines end at \n, \r or \r\n; spaces (not tabs) are stripped around lines,
// names and values, as the reference does.
import type { EnvironmentEntry } from './types.js';

export type EnvFileParse =
  | { readonly ok: true; readonly entries: readonly EnvironmentEntry[] }
  | { readonly ok: false; readonly line: number; readonly text: string };

const BOM = '\uFEFF';

/** Strip spaces (not tabs) at both ends, as the reference does. */
function stripSpaces(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text[start] === ' ') start++;
  while (end > start && text[end - 1] === ' ') end--;
  return text.slice(start, end);
}

function parseLines(text: string): EnvFileParse {
  const entries: EnvironmentEntry[] = [];
  const lines = text.split(/\r\n|\r|\n/);
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

/** The entries the job gets. A leading byte-order mark is dropped (docs/deviations.md). */
export function parseEnvFile(text: string): EnvFileParse {
  return parseLines(text.startsWith(BOM) ? text.slice(BOM.length) : text);
}

/**
 * The variable names the job identity counts: the reference keeps a leading byte-order mark as
 * part of the first line, so its first name is `\uFEFFNAME`. (When the mark makes that line
 * invalid for the reference, there is no reference id to agree with: the names the job gets
 * are used.)
 */
export function identityEnvFileNames(
  text: string,
  entries: readonly EnvironmentEntry[],
): readonly string[] {
  const asWritten = text.startsWith(BOM) ? parseLines(text) : { ok: true as const, entries };
  return (asWritten.ok ? asWritten.entries : entries).map((entry) => entry.key);
}
