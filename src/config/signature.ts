// The reload signature (docs/configuration.md "Reloading"): path, mtime (ns), size and inode of
// every file the last successful parse read, plus the config path itself (a directory's mtime
// changes when entries are added, removed or renamed). Cheap: stats only, never reads or parses.
import { stat } from 'node:fs/promises';
import { errorCodeOf } from './source-files.js';
import type { ResolvedConfig } from './types.js';

export async function configSignature(config: ResolvedConfig): Promise<string> {
  const paths = [...new Set([config.configPath, ...config.sourceFiles])];
  const lines = await Promise.all(
    paths.map(async (file) => {
      try {
        const info = await stat(file, { bigint: true });
        return `${file}\t${info.mtimeNs}\t${info.size}\t${info.ino}`;
      } catch (error) {
        return `${file}\tmissing:${errorCodeOf(error) ?? 'error'}`;
      }
    }),
  );
  return lines.join('\n');
}
