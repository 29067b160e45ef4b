// The one builder of a spawn-failed outcome: the runner's own launch failures, the scheduler's
// fallback for a runner that threw instead of reporting one, and the test runner all end here, so
// the exit code, the empty captures and the failsWhen decision cannot drift apart.
import type { ResolvedJob } from '../config/index.js';
import { decideFailReason } from './fail-reason.js';
import type { CancelReason, CapturedStream, SpawnFailedOutcome } from './types.js';

/** The exit code a run that never started reports (the shell's "command not found"). */
export const SPAWN_FAILED_EXIT_CODE = 127;

const EMPTY_CAPTURE: CapturedStream = Object.freeze({
  text: '',
  discardedLines: 0,
  truncated: false,
});

/** When the failed launch happened and what was known about it then. */
export interface SpawnFailedTiming {
  readonly startedAtMs: number;
  readonly finishedAtMs: number;
  readonly durationMs: number;
  readonly cancelReason: CancelReason | null;
  readonly environment: Readonly<Record<string, string>> | null;
}

export function spawnFailedOutcome(
  job: ResolvedJob,
  spawnError: string,
  timing: SpawnFailedTiming,
): SpawnFailedOutcome {
  const stdout = job.captureStdout ? EMPTY_CAPTURE : null;
  const stderr = job.captureStderr ? EMPTY_CAPTURE : null;
  return {
    kind: 'spawn-failed',
    exitCode: SPAWN_FAILED_EXIT_CODE,
    failReason: decideFailReason(job.failsWhen, SPAWN_FAILED_EXIT_CODE, stdout, stderr),
    pid: null,
    stdout,
    stderr,
    spawnError,
    ...timing,
  };
}
