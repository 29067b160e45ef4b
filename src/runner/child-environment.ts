// The environment a run's child gets (spec/jobs.md §3.2): daemon env < job variables < injected
// run-context variables, or null when nothing is added and the child inherits as-is.
import type { ResolvedJob } from '../config/index.js';

export function buildChildEnvironment(
  job: ResolvedJob,
  baseEnv: NodeJS.ProcessEnv,
  extraEnv: Readonly<Record<string, string>> | undefined,
): Record<string, string> | null {
  const hasExtra = extraEnv !== undefined && Object.keys(extraEnv).length > 0;
  if (!job.hasEnvironment && job.environment.length === 0 && !hasExtra) return null;
  const env: Record<string, string> = {};
  for (const key of Object.keys(baseEnv)) {
    const value = baseEnv[key];
    if (value !== undefined) env[key] = value;
  }
  for (const { key, value } of job.environment) env[key] = value;
  if (extraEnv) Object.assign(env, extraEnv);
  return env;
}
