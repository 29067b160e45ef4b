// Run-scoped secrets (docs/job-state.md "Secrets"): each of the job's `secrets:` is resolved fresh
// at launch, kept only in memory for that run, and never written to the store. A secret that
// cannot be resolved is skipped (a get answers 404); the warning names the secret and the
// source's file or variable, never a value.
import { describeError } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { ResolvedJob } from '../config/index.js';
import { ReportError, resolveSecret } from '../report/index.js';

/** Resolve every declared secret of `job`; never rejects. */
export async function stageSecrets(
  job: ResolvedJob,
  env: NodeJS.ProcessEnv,
  logger: Logger,
): Promise<Map<string, string>> {
  const staged = new Map<string, string>();
  await Promise.all(
    job.secrets.map(async (secret) => {
      try {
        // The reporter name only labels the error we discard here; the message is value-free.
        const value = await resolveSecret(secret.source, env, 'shell', `secret '${secret.name}'`);
        if (value === null) {
          logger.warn(
            { job: job.name, secret: secret.name },
            `job API: secret '${secret.name}' of job '${job.name}' resolved empty and is not staged`,
          );
          return;
        }
        staged.set(secret.name, value);
      } catch (error) {
        const why = error instanceof ReportError ? describeError(error) : 'unreadable source';
        logger.warn(
          { job: job.name, secret: secret.name },
          `job API: secret '${secret.name}' of job '${job.name}' is not staged: ${why}`,
        );
      }
    }),
  );
  return staged;
}
