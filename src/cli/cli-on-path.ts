// Why: a job's `yacron2 state|cursor|lock|…` calls must reach the CLI of the daemon that started
// it, however the daemon was started (`npm start`, `node bin/yacron2.js`, an image, a global
// install) and whatever `yacron2` else is on the machine's PATH (docs/job-state.md "The injected
// environment"). At start the daemon writes a one-line shell wrapper that runs this package's
// `bin/yacron2.js` with this daemon's own `node` into a private temporary directory, puts that
// directory first on the jobs' PATH and names the wrapper in YACRON2_BIN.
//
// Must not: change the daemon's own process.env (jobs get a copy), or leave a directory behind
// on a clean exit.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's entry script, from dist/cli/ (where this module is built). */
export const ENTRY_SCRIPT = resolve(fileURLToPath(import.meta.url), '../../../bin/yacron2.js');

/** The search path execvp uses when PATH is unset, with the usual sbin and local entries. */
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export interface CliOnPath {
  /** The environment jobs start from: the given one with PATH and YACRON2_BIN set. */
  readonly env: NodeJS.ProcessEnv;
  /** The wrapper's path (YACRON2_BIN). */
  readonly bin: string;
  /** Remove the wrapper's directory (idempotent). */
  remove(): void;
}

export interface CliOnPathOptions {
  readonly env: NodeJS.ProcessEnv;
  /** The `node` binary the wrapper runs (default: this process's). */
  readonly execPath?: string;
  /** The script the wrapper runs (default: this package's bin/yacron2.js). */
  readonly script?: string;
  /** Where the private directory is made (default: the OS temp directory). */
  readonly parent?: string;
}

/** `'…'` with every `'` spelled `'\''`: one word to sh, whatever the text holds. */
function shellWord(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * Writes the wrapper and returns the jobs' environment. The directory is made by mkdtemp (a
 * fresh, unguessable name: nobody can have planted it) and opened to 0755 so that `user:` jobs
 * can run the wrapper too; the wrapper holds nothing secret.
 */
export function installCliOnPath(options: CliOnPathOptions): CliOnPath {
  const dir = mkdtempSync(join(options.parent ?? tmpdir(), 'yacron2-cli-'));
  const bin = join(dir, 'yacron2');
  const execPath = options.execPath ?? process.execPath;
  const script = options.script ?? ENTRY_SCRIPT;
  try {
    writeFileSync(bin, `#!/bin/sh\nexec ${shellWord(execPath)} ${shellWord(script)} "$@"\n`, {
      mode: 0o755,
    });
    chmodSync(dir, 0o755);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const env: NodeJS.ProcessEnv = {
    ...options.env,
    PATH: `${dir}:${options.env['PATH'] ?? DEFAULT_PATH}`,
    YACRON2_BIN: bin,
  };
  let removed = false;
  return {
    env,
    bin,
    remove: () => {
      if (removed) return;
      removed = true;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
