// Looks a program up on PATH once per runner (never per run): used to find `setpriv`.
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

const FALLBACK_DIRS = ['/usr/bin', '/bin', '/usr/sbin', '/sbin'];

export function findExecutable(name: string, pathVariable: string | undefined): string | null {
  const dirs = [
    ...(pathVariable ?? '').split(delimiter).filter((dir) => isAbsolute(dir)),
    ...FALLBACK_DIRS,
  ];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return null;
}
