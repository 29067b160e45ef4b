// Scope resolution (docs/job-state.md "Scopes"): an omitted or empty scope is the run's default
// (its job name; a DAG task's XCom scope); an explicit one must be the default, `global`, or listed in the job's
// stateAllowedScopes, else 403. Pure.
import type { RunContext } from '../scheduler/index.js';
import { ApiError } from './api-error.js';
import { checkName } from './names.js';

/** The conventional shared namespace every job may name. */
export const GLOBAL_SCOPE = 'global';

export function resolveScope(run: RunContext, requested: string | undefined): string {
  const { job } = run;
  const defaultScope = run.defaultScope ?? job.name;
  if (requested === undefined || requested === '') return defaultScope;
  checkName('scope', requested);
  if (requested === defaultScope || requested === GLOBAL_SCOPE) return requested;
  if (job.stateAllowedScopes.includes(requested)) return requested;
  throw new ApiError(
    'YC_ERR_REQUEST_FORBIDDEN',
    `scope '${requested}' is not permitted for job '${job.name}'; add it to stateAllowedScopes to allow it`,
  );
}
