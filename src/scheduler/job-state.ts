// A configured job's snapshot for the read-only view, in domain values, from the parts of the
// scheduler that hold it (runtime, next fire, ladder). Pure; http/ renders it.
import type { ResolvedJob } from '../config/index.js';
import { HISTORY_SUMMARY_LIMIT } from './history.js';
import type { JobRuntime } from './job-runtime.js';
import type { RetryLadder } from './retry-ladder.js';
import type { JobState, RetryState } from './types.js';

export function buildJobState(
  job: ResolvedJob,
  runtime: JobRuntime | undefined,
  nextFireAtMs: number | null,
  ladder: RetryLadder | null,
  rebootPending: boolean,
): JobState {
  const pids: number[] = [];
  if (runtime !== undefined) {
    for (const instance of runtime.running) if (instance.pid !== null) pids.push(instance.pid);
  }
  return {
    job,
    pids,
    runningInstances: runtime?.running.size ?? 0,
    nextFireAtMs,
    recentRuns: runtime?.history.newest(HISTORY_SUMMARY_LIMIT) ?? [],
    retry: retryStateOf(ladder),
    rebootPending,
  };
}

/** A ladder as the view shows it: only while armed with at least one retry scheduled. */
function retryStateOf(ladder: RetryLadder | null): RetryState | null {
  if (!ladder || ladder.cancelled || ladder.count === 0) return null;
  const { maximumRetries } = ladder.policy;
  return {
    attempt: ladder.count,
    maxAttempts: maximumRetries === -1 ? null : maximumRetries,
    nextRetryAtMs: ladder.nextRetryAtMs,
    delayMs: ladder.lastDelayMs,
  };
}
