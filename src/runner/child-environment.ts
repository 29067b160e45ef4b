// The environment a run's child gets (docs/configuration.md "Environment"): the daemon's
// environment minus the variables secret sources name (unless the job sets
// inheritSecretEnvVars), then the job's variables, then the injected run-context variables.
import type { ResolvedJob } from '../config/index.js';

export interface ChildEnvironment {
  /** What spawn() gets; undefined = inherit the daemon's environment as it is. */
  readonly spawnEnv: Record<string, string> | undefined;
  /**
   * The reports' `environment`: what was built for the job (its own or injected variables), or
   * null when it has none (then the child got the daemon's environment, secrets left out).
   */
  readonly environment: Record<string, string> | null;
}

const NOTHING_HIDDEN: ReadonlySet<string> = new Set();

export function buildChildEnvironment(
  job: ResolvedJob,
  baseEnv: NodeJS.ProcessEnv,
  extraEnv: Readonly<Record<string, string>> | undefined,
  secretEnvNames: ReadonlySet<string>,
): ChildEnvironment {
  const hidden = job.inheritSecretEnvVars ? NOTHING_HIDDEN : secretEnvNames;
  const hasExtra = extraEnv !== undefined && Object.keys(extraEnv).length > 0;
  const hasOwn = job.hasEnvironment || job.environment.length > 0 || hasExtra;
  let hides = false;
  for (const name of hidden) {
    if (baseEnv[name] !== undefined) {
      hides = true;
      break;
    }
  }
  if (!hasOwn && !hides) return { spawnEnv: undefined, environment: null };
  const env: Record<string, string> = {};
  for (const key of Object.keys(baseEnv)) {
    const value = baseEnv[key];
    if (value !== undefined && !hidden.has(key)) env[key] = value;
  }
  // A variable the job writes itself is deliberate: it wins over the daemon's, hidden or not.
  for (const { key, value } of job.environment) env[key] = value;
  if (extraEnv) Object.assign(env, extraEnv);
  return { spawnEnv: env, environment: hasOwn ? env : null };
}
