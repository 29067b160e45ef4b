// RunOutcome values the scheduler must build itself: the failure decision of jobs.md §5.2 (shared
// with FakeRunner) and a spawn-failure outcome for a runner that threw instead of reporting one.
import { describeError } from '../common/index.js';
import type { FailsWhen, ResolvedJob } from '../config/index.js';
import type { CapturedStream, RunOutcome } from '../runner/index.js';

function hasOutput(stream: CapturedStream | null): boolean {
  return stream !== null && (stream.text !== '' || stream.discardedLines > 0);
}

/** jobs.md §5.2, first match wins; null means success. */
export function decideFailReason(
  failsWhen: FailsWhen,
  exitCode: number,
  stdout: CapturedStream | null,
  stderr: CapturedStream | null,
): string | null {
  if (failsWhen.always) return 'failsWhen=always';
  if (failsWhen.nonzeroReturn && exitCode !== 0) {
    return `failsWhen=nonzeroReturn and retcode=${exitCode}`;
  }
  if (failsWhen.producesStdout && hasOutput(stdout)) {
    return 'failsWhen=producesStdout and stdout is not empty';
  }
  if (failsWhen.producesStderr && hasOutput(stderr)) {
    return 'failsWhen=producesStderr and stderr is not empty';
  }
  return null;
}

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

/** Python's repr of an optional string, for the per-run log line. */
export function pythonRepr(value: string | null): string {
  if (value === null) return 'None';
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  const escaped = value
    .replaceAll('\\', '\\\\')
    .replaceAll('\n', '\\n')
    .replaceAll('\r', '\\r')
    .replaceAll('\t', '\\t');
  return quote + (quote === "'" ? escaped.replaceAll("'", "\\'") : escaped) + quote;
}

export function pythonBool(value: boolean): string {
  return value ? 'True' : 'False';
}
