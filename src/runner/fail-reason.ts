// The failsWhen decision of a completed run: first matching rule wins, its string is the exact
// fail_reason of docs/configuration.md "Failure detection"; null means success.
import type { FailsWhen } from '../config/index.js';
import type { CapturedStream } from './types.js';

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
  if (failsWhen.producesStdout && producedOutput(stdout)) {
    return 'failsWhen=producesStdout and stdout is not empty';
  }
  if (failsWhen.producesStderr && producedOutput(stderr)) {
    return 'failsWhen=producesStderr and stderr is not empty';
  }
  return null;
}

/** Retained or discarded lines both count; an uncaptured stream never does. */
function producedOutput(stream: CapturedStream | null): boolean {
  return stream !== null && (stream.text !== '' || stream.discardedLines > 0);
}
