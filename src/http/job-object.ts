// The job object of GET /jobs (docs/http-api.md): the scheduler's job view plus `running_resources` (sums over the running
// monitorResources instances that have a sample), placed after `history` as the reference
// orders it. Only a running job can carry it.
import { renderRunningResources } from '../resources/index.js';
import type { JobView } from './job-views.js';
import type { ResourcesView } from './types.js';

export function jobObject(view: JobView, resources: ResourcesView | undefined): object {
  if (!view.running || resources === undefined) return view;
  const running = renderRunningResources(resources.liveRuns(view.name));
  if (running === undefined) return view;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(view)) {
    out[key] = value;
    if (key === 'history') out.running_resources = running;
  }
  out.running_resources = running;
  return out;
}
