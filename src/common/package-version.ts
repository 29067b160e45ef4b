// The package version (for --version, /version and yacron2_info), read from package.json two
// levels above this file in both src/ and dist/.
import { readFileSync } from 'node:fs';

export function readPackageVersion(): string {
  try {
    const url = new URL('../../package.json', import.meta.url);
    const pkg = JSON.parse(readFileSync(url, 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
