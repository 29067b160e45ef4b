// The package version for `GET /version`, read once from the package.json above the code
// (dist/http/ or src/http/, both two levels below the package root).
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
