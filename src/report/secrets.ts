// Secret sources (docs/reports.md "Secret sources"), resolved at report time: `value`, else
// `fromFile` (contents with surrounding whitespace stripped), else `fromEnvVar` from the daemon's
// environment. Errors name the file or variable, never the value.
import { readFile } from 'node:fs/promises';
import type { SecretSource } from '../config/index.js';
import { ReportError, type ReporterName } from './report-error.js';

/**
 * The secret, or null when no source is configured (or a file holds only whitespace). Throws a
 * ReportError when the file cannot be read or the variable is unset or empty: the caller's
 * reporter is then skipped, and the dispatcher logs why.
 */
export async function resolveSecret(
  source: SecretSource | null,
  env: NodeJS.ProcessEnv,
  reporter: ReporterName,
  what: string,
): Promise<string | null> {
  if (source === null) return null;
  if (source.value) return source.value;
  if (source.fromFile) {
    let text: string;
    try {
      text = await readFile(source.fromFile, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new ReportError(reporter, `Cannot read the ${what} from ${source.fromFile}: ${code}`);
    }
    const secret = text.trim();
    return secret === '' ? null : secret;
  }
  if (source.fromEnvVar) {
    const secret = env[source.fromEnvVar];
    if (secret === undefined || secret === '') {
      throw new ReportError(
        reporter,
        `Cannot read the ${what}: environment variable ${source.fromEnvVar} is not set`,
      );
    }
    return secret;
  }
  return null;
}
