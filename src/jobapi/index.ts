// The job API door: startJobApi and its contract. (Implementation lands with issue 6.)
import { YacronError } from '../common/index.js';
import type { ResolvedJobApi } from '../config/index.js';
import type { JobApi, JobApiDeps } from './types.js';

export type { JobApi, JobApiDeps } from './types.js';

/** Bind the loopback endpoint of `settings` and serve the /v1/ routes over deps.store. */
export function startJobApi(_deps: JobApiDeps, _settings: ResolvedJobApi): Promise<JobApi> {
  return Promise.reject(new YacronError('YC_ERR_STATE_CLOSED', 'Cannot start the job API: not built yet'));
}
