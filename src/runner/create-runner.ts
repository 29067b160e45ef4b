// The real Runner: wires the daemon's clock, logger, stdout/stderr and environment into ChildRun.
// Per-job work (stream prefixes) is cached per ResolvedJob object; start() does no fs work.
import type { ResolvedJob } from '../config/index.js';
import type { Clock } from '../common/index.js';
import type { Logger } from '../logging/index.js';
import { ChildRun } from './child-run.js';
import { findExecutable } from './find-executable.js';
import { inProcessSpawner, type Spawner } from './spawner.js';
import { renderStreamPrefix } from './stream-prefix.js';
import type { OutputStream, RunHandle, RunRequest, Runner } from './types.js';

export interface RunnerDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  /** The daemon's own streams; captured lines are echoed (prefixed) to the same one. */
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  /** The daemon environment children start from. */
  readonly baseEnv: NodeJS.ProcessEnv;
  /**
   * The baseEnv variables secret sources name (secretEnvVarNames of the current configuration),
   * asked at each spawn; they are left out of job environments. Default: none.
   */
  readonly secretEnvNames?: () => ReadonlySet<string>;
  /**
   * The `setpriv` binary used to switch user/group with initgroups(); null forces Node's uid/gid
   * options (supplementary groups dropped). Default: looked up on PATH at the first switch.
   */
  readonly setprivPath?: string | null;
  /** How processes are started: the spawn helper, or (default) child_process in this process. */
  readonly spawner?: Spawner;
}

interface StreamPrefixes {
  readonly stdout: string;
  readonly stderr: string;
}

const NO_NAMES: ReadonlySet<string> = new Set();

export function createRunner(deps: RunnerDeps): Runner {
  const secretEnvNames = deps.secretEnvNames ?? ((): ReadonlySet<string> => NO_NAMES);
  const prefixes = new WeakMap<ResolvedJob, StreamPrefixes>();
  let setprivPath = deps.setprivPath;

  const prefixesOf = (job: ResolvedJob): StreamPrefixes => {
    let cached = prefixes.get(job);
    if (!cached) {
      cached = {
        stdout: renderStreamPrefix(job.streamPrefix, { job_name: job.name, stream_name: 'stdout' }),
        stderr: renderStreamPrefix(job.streamPrefix, { job_name: job.name, stream_name: 'stderr' }),
      };
      prefixes.set(job, cached);
    }
    return cached;
  };

  const resolveSetpriv = (): string | null => {
    if (setprivPath === undefined) {
      setprivPath = findExecutable('setpriv', deps.baseEnv['PATH']);
      if (setprivPath === null) {
        deps.logger.warn(
          'setpriv (util-linux) not found: jobs with user/group run without the supplementary groups of their user',
        );
      }
    }
    return setprivPath;
  };

  return {
    start(request: RunRequest): RunHandle {
      const run = new ChildRun(
        {
          clock: deps.clock,
          logger: deps.logger,
          stdout: deps.stdout,
          stderr: deps.stderr,
          baseEnv: deps.baseEnv,
          secretEnvNames,
          setprivPath: resolveSetpriv,
          streamPrefix: (stream: OutputStream) => prefixesOf(request.job)[stream],
          spawner: deps.spawner ?? inProcessSpawner,
        },
        request,
      );
      run.start();
      return run;
    },
  };
}
