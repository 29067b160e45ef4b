// Small value helpers of the scheduler: a spawn-failure outcome for a runner that threw instead of
// reporting one, and the Python spellings (repr, True/False) of the per-run log line.
import { describeError } from '../common/index.js';
import type { ResolvedJob } from '../config/index.js';
import { decideFailReason, type RunOutcome } from '../runner/index.js';

/** The outcome of a launch that failed before a process existed (exit code 127). */
export function spawnFailureOutcome(job: ResolvedJob, error: unknown, nowMs: number): RunOutcome {
  const stdout = job.captureStdout ? { text: '', discardedLines: 0, truncated: false } : null;
  const stderr = job.captureStderr ? { text: '', discardedLines: 0, truncated: false } : null;
  return {
    kind: 'spawn-failed',
    exitCode: 127,
    failReason: decideFailReason(job.failsWhen, 127, stdout, stderr),
    cancelReason: null,
    pid: null,
    startedAtMs: nowMs,
    finishedAtMs: nowMs,
    durationMs: 0,
    stdout,
    stderr,
    environment: null,
    spawnError: describeError(error),
  };
}

export function pythonBool(value: boolean): string {
  return value ? 'True' : 'False';
}
