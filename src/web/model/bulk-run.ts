// The mitigate console's bulk actions (docs/dashboard.md "Panels"): one call per job,
// staggered a few hundred milliseconds apart so a fleet of restarts does not land at once,
// abortable between calls, with a per-job result as it comes. Time comes from the injected Clock.
import type { Clock } from '../../common/clock.js';

export type BulkResult =
  | { readonly job: string; readonly kind: 'ok' }
  | { readonly job: string; readonly kind: 'failed'; readonly error: string }
  | { readonly job: string; readonly kind: 'skipped' };

export interface BulkOptions {
  readonly clock: Clock;
  readonly staggerMs: number;
  readonly signal: AbortSignal;
  readonly onResult: (result: BulkResult) => void;
}

export interface BulkTally {
  readonly ok: number;
  readonly failed: number;
  readonly skipped: number;
}

/** Calls `action` for each job in order; once aborted, the remaining jobs are `skipped`. */
export async function runStaggered(
  jobs: readonly string[],
  action: (job: string) => Promise<void>,
  options: BulkOptions,
): Promise<BulkTally> {
  const tally = { ok: 0, failed: 0, skipped: 0 };
  for (let index = 0; index < jobs.length; index++) {
    const job = jobs[index]!;
    if (index > 0 && !options.signal.aborted) {
      await options.clock.sleep(options.staggerMs, options.signal).catch(() => undefined);
    }
    let result: BulkResult;
    if (options.signal.aborted) result = { job, kind: 'skipped' };
    else {
      try {
        await action(job);
        result = { job, kind: 'ok' };
      } catch (error) {
        result = {
          job,
          kind: 'failed',
          error: error instanceof Error ? error.message : String(error),
        };
      }
    }
    tally[result.kind] += 1;
    options.onResult(result);
  }
  return tally;
}
