// GET /jobs/{name}/trends (docs/http-api.md "GET /jobs/{name}/trends"): the daemon's durable trends
// when it offers them, else the same windows over the in-memory history ("source": "memory"). Store
// trouble never fails the request: a rejected durable read is logged and answered from memory.
import { describeError, isYacronError, type Clock } from '../common/index.js';
import type { Logger } from '../logging/index.js';
import { computeTrends, type TrendRuns } from './trends.js';
import type { TrendsView } from './wire/index.js';
import type { DaemonView } from './types.js';

export interface JobTrendsDeps {
  readonly view: DaemonView;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** The windows over the runs the scheduler keeps in memory (at most HISTORY_LIMIT). */
function memoryTrends({ view, clock }: JobTrendsDeps, name: string): TrendsView {
  return computeTrends(name, view.getRuns(name), clock.now(), 'memory');
}

/** The trends of a configured job; null when the job is (or became) unknown. */
export async function readJobTrends(deps: JobTrendsDeps, name: string): Promise<TrendsView | null> {
  const { view, logger } = deps;
  if (view.getJobConfig(name) === undefined) return null;
  const durable = view.getTrends?.(name);
  if (durable !== undefined) {
    try {
      const trend: TrendRuns = await durable;
      return computeTrends(name, trend.runs, deps.clock.now(), trend.source);
    } catch (error) {
      if (isYacronError(error, 'YC_ERR_JOB_UNKNOWN')) return null;
      logger.warn(
        { err: error },
        `Cannot read the durable trends of job ${JSON.stringify(name)}: ${describeError(error)}; answering from memory`,
      );
    }
    // The job may have been removed by a reload while the store was read.
    if (view.getJobConfig(name) === undefined) return null;
  }
  return memoryTrends(deps, name);
}
