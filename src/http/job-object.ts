// The job object of GET /jobs (docs/http-api.md): the scheduler's job view plus `running_resources` (sums over the running
// monitorResources instances that have a sample), placed after `history` as the reference
// orders it. Only a running job can carry it.
import { renderRunningResources } from '../resources/index.js';
import type { ResourcesView } from './types.js';
import type { JobObject, JobView } from './wire/index.js';

export function jobObject(view: JobView, resources: ResourcesView | undefined): JobObject {
  if (!view.running || resources === undefined) return view;
  const running = renderRunningResources(resources.liveRuns(view.name));
  if (running === undefined) return view;
  // `retry` and `rebootPending` are the keys a view may carry after `history` (job-views.ts).
  const { retry, rebootPending, ...upToHistory } = view;
  return {
    ...upToHistory,
    running_resources: running,
    ...(retry === undefined ? {} : { retry }),
    ...(rebootPending === undefined ? {} : { rebootPending }),
  };
}
