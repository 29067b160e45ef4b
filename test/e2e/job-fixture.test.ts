// Test support for the job-state e2e tests (no tests here): a temp dir, a config with a `state:`
// section, and the env to start the daemon with. Job commands call plain `yacron2` (as the docs
// do) and nothing here puts one on the PATH: the daemon puts its own first on its jobs' PATH
// (docs/job-state.md "The injected environment"), so every test of these suites checks that.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { shellQuote, useTempDir, writeConfig, type TeardownContext } from './harness.js';

export interface JobStateSetup {
  readonly dir: string;
  /** The store of the state section. */
  readonly store: string;
  /** The daemon's environment: the tests' own, less any PATH entry that holds a `yacron2`. */
  readonly env: NodeJS.ProcessEnv;
  /** `dir/name`, shell-quoted, for job commands. */
  file(name: string): string;
  /** Write the config (jobs YAML + the state section with `jobApi` extras); its path. */
  writeJobs(jobsYaml: string, jobApiYaml?: string): Promise<string>;
}

export async function useJobState(t: TeardownContext): Promise<JobStateSetup> {
  const dir = await useTempDir(t);
  const store = join(dir, 'store');
  return {
    dir,
    store,
    env: { ...process.env, PATH: pathWithoutYacron2(process.env['PATH'] ?? '') },
    file: (name) => shellQuote(join(dir, name)),
    writeJobs: (jobsYaml, jobApiYaml = '') =>
      writeConfig(
        dir,
        `${jobsYaml}\nstate:\n  path: ${store}\n${jobApiYaml === '' ? '' : `  jobApi:\n${indent(jobApiYaml, 4)}\n`}`,
      ),
  };
}

/** PATH without the entries that hold a `yacron2` (a global install must not mask the daemon's). */
function pathWithoutYacron2(path: string): string {
  return path
    .split(':')
    .filter((entry) => entry !== '' && !existsSync(join(entry, 'yacron2')))
    .join(':');
}

function indent(text: string, spaces: number): string {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => `${' '.repeat(spaces)}${line}`)
    .join('\n');
}

/**
 * The first line of every job command of these tests: a run without YACRON2_STATE_* variables
 * does nothing instead of consuming a once-guard or writing an empty result. The daemon binds
 * the job API before its first launch (ae248eb); the one remaining window is a reload that must
 * close an API still holding a fixed port before binding its replacement (job-api-reload).
 */
export const SKIP_WITHOUT_JOB_API = '[ -n "$YACRON2_STATE_TOKEN" ] || exit 0';

/**
 * A job firing every second whose body runs on its first fire only (later fires find the guard
 * file and exit 0), so a test sees exactly one run's effects without waiting for a schedule.
 */
export function onceJob(setup: JobStateSetup, name: string, body: string, extra = ''): string {
  const guard = setup.file(`.ran-${name}`);
  const script = `${SKIP_WITHOUT_JOB_API}\n[ -e ${guard} ] && exit 0\ntouch ${guard}\n${body.trim()}`;
  return `  - name: ${name}
    schedule: "* * * * * * *"
    command: |
${indent(script, 6)}
${extra === '' ? '' : `${indent(extra, 4)}\n`}`;
}
