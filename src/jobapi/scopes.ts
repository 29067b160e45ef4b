// Scope resolution (docs/job-state.md "Scopes"): an omitted or empty scope is the run's default
// (its job name); an explicit one must be the default, `global`, or listed in the job's
// stateAllowedScopes, else 403. Pure.
import type { ResolvedJob } from '../config/index.js';
import { ApiError } from './api-error.js';
import { checkName } from './names.js';

/** The conventional shared namespace every job may name. */
export const GLOBAL_SCOPE = 'global';

export function resolveScope(job: ResolvedJob, requested: string | undefined): string {
  if (requested === undefined || requested === '') return job.name;
  checkName('scope', requested);
  if (requested === job.name || requested === GLOBAL_SCOPE) return requested;
  if (job.stateAllowedScopes.includes(requested)) return requested;
  throw new ApiError(
    'YC_ERR_REQUEST_FORBIDDEN',
    `scope '${requested}' is not permitted for job '${job.name}'; add it to stateAllowedScopes to allow it`,
  );
}
