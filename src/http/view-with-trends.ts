// The daemon's read-only view for the API: the scheduler's view (which satisfies DaemonView by
// itself) plus a durable trends source and the archived-output reader beside it. A plain object of delegates, so the scheduler
// object is never mutated or spread.
import type { DaemonView } from './types.js';

export function viewWithTrends(
  view: Omit<DaemonView, 'getTrends' | 'archives'>,
  getTrends: NonNullable<DaemonView['getTrends']>,
  archives?: DaemonView['archives'],
): DaemonView {
  return {
    events: view.events,
    getJobStates: () => view.getJobStates(),
    getJobState: (name) => view.getJobState(name),
    getRuns: (name) => view.getRuns(name),
    getJobConfig: (name) => view.getJobConfig(name),
    getNextFireAtMs: (name) => view.getNextFireAtMs(name),
    getTrends,
    ...(archives === undefined ? {} : { archives }),
  };
}
