// Test support for the job-state e2e tests (no tests here): a temp dir with a `yacron2` wrapper
// on PATH (so job commands read like the docs), a config with a `state:` section, and the env to
// start the daemon with.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CLI, shellQuote, useTempDir, writeConfig, type TeardownContext } from './harness.js';

export interface JobStateSetup {
  readonly dir: string;
  /** The store of the state section. */
  readonly store: string;
  /** The daemon's environment: PATH starts with the `yacron2` wrapper. */
  readonly env: NodeJS.ProcessEnv;
  /** `dir/name`, shell-quoted, for job commands. */
  file(name: string): string;
  /** Write the config (jobs YAML + the state section with `jobApi` extras); its path. */
  writeJobs(jobsYaml: string, jobApiYaml?: string): Promise<string>;
}

export async function useJobState(t: TeardownContext): Promise<JobStateSetup> {
  const dir = await useTempDir(t);
  const bin = join(dir, 'bin');
  await mkdir(bin);
  const wrapper = join(bin, 'yacron2');
  await writeFile(
    wrapper,
    `#!/bin/sh\nexec ${shellQuote(process.execPath)} ${shellQuote(CLI)} "$@"\n`,
  );
  await chmod(wrapper, 0o755);
  const store = join(dir, 'store');
  return {
    dir,
    store,
    env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
    file: (name) => shellQuote(join(dir, name)),
    writeJobs: (jobsYaml, jobApiYaml = '') =>
      writeConfig(
        dir,
        `${jobsYaml}\nstate:\n  path: ${store}\n${jobApiYaml === '' ? '' : `  jobApi:\n${indent(jobApiYaml, 4)}\n`}`,
      ),
  };
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
