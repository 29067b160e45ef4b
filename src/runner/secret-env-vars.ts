// Which of the daemon's environment variables hold secrets: every variable a secret source of the
// configuration names with `fromEnvVar` (job `secrets`, `web.authToken`, the mail password, the
// Sentry DSN, the webhook URL). Job environments leave them out (child-environment.ts) unless the
// job sets `inheritSecretEnvVars`. Pure; the daemon computes it once per loaded configuration.
import type { ReportBlock, ResolvedConfig, SecretSource } from '../config/index.js';

export function secretEnvVarNames(config: ResolvedConfig): ReadonlySet<string> {
  const names = new Set<string>();
  const add = (source: SecretSource | null | undefined): void => {
    if (source?.fromEnvVar) names.add(source.fromEnvVar);
  };
  const addReports = (block: ReportBlock): void => {
    add(block.mail?.password);
    add(block.sentry?.dsn);
    add(block.webhook?.url);
  };
  for (const job of config.jobs) {
    for (const secret of job.secrets) add(secret.source);
    addReports(job.onFailureReport);
    addReports(job.onPermanentFailureReport);
    addReports(job.onSuccessReport);
  }
  if (config.web?.authTokenEnvVar) names.add(config.web.authTokenEnvVar);
  return names;
}
