// Which of the daemon's environment variables hold secrets: every variable a secret source of the
// configuration names with `fromEnvVar`, wherever the source is (docs/security.md "Secrets"): a
// job's or a DAG task's `secrets`, the report blocks' mail password, Sentry DSN and webhook URL,
// `web.authToken`, `cluster.etcd.password`. Job environments leave them out
// (child-environment.ts) unless the job sets `inheritSecretEnvVars`. Pure; the daemon computes it
// once per loaded configuration.
// Must not: miss a source. SECRET_SOURCE_READERS is keyed by the sources' schema paths, and its
// test derives the same paths from the schema tables (config's secretSourcePaths), so a new
// `fromEnvVar` anywhere in a table fails that test until a reader here covers it.
import type { ReportBlock, ResolvedConfig, ResolvedJob } from '../config/index.js';

/** The variable names one secret source path holds in a configuration (null: none there). */
type SecretSourceReader = (config: ResolvedConfig) => Iterable<string | null | undefined>;

type ReportKey = 'onFailure' | 'onPermanentFailure' | 'onSuccess';
const REPORT_BLOCKS: Readonly<Record<ReportKey, (job: ResolvedJob) => ReportBlock>> = {
  onFailure: (job) => job.onFailureReport,
  onPermanentFailure: (job) => job.onPermanentFailureReport,
  onSuccess: (job) => job.onSuccessReport,
};
const REPORT_SECRETS: Readonly<Record<string, (block: ReportBlock) => string | null | undefined>> =
  {
    'mail.password': (block) => block.mail?.password?.fromEnvVar,
    'sentry.dsn': (block) => block.sentry?.dsn?.fromEnvVar,
    'webhook.url': (block) => block.webhook?.url?.fromEnvVar,
  };

/** The template jobs of the DAG tasks that launch a process (an approval launches none). */
function dagTaskJobs(config: ResolvedConfig): ResolvedJob[] {
  const jobs: ResolvedJob[] = [];
  for (const dag of config.dags ?? []) {
    for (const task of dag.tasks) if (task.kind !== 'approval') jobs.push(task.job);
  }
  return jobs;
}

function secretNames(jobs: readonly ResolvedJob[]): (string | null)[] {
  return jobs.flatMap((job) => job.secrets.map((secret) => secret.source.fromEnvVar));
}

function reportReaders(): Record<string, SecretSourceReader> {
  const readers: Record<string, SecretSourceReader> = {};
  for (const [key, block] of Object.entries(REPORT_BLOCKS)) {
    for (const [field, read] of Object.entries(REPORT_SECRETS)) {
      readers[`jobs[].${key}.report.${field}`] = (config) =>
        config.jobs.map((job) => read(block(job)));
    }
  }
  return readers;
}

/**
 * One reader per secret source path of the schema tables (config's secretSourcePaths; a
 * `defaults` path reaches its jobs through the merge, so the job path reads it).
 */
export const SECRET_SOURCE_READERS: Readonly<Record<string, SecretSourceReader>> = {
  'cluster.etcd.password': (config) => [
    config.cluster?.backend === 'etcd' ? config.cluster.etcd.passwordEnvVar : null,
  ],
  'web.authToken': (config) => [config.web?.authTokenEnvVar],
  'jobs[].secrets[]': (config) => secretNames(config.jobs),
  'dags[].tasks[].secrets[]': (config) => secretNames(dagTaskJobs(config)),
  ...reportReaders(),
};

export function secretEnvVarNames(config: ResolvedConfig): ReadonlySet<string> {
  const names = new Set<string>();
  for (const read of Object.values(SECRET_SOURCE_READERS)) {
    for (const name of read(config)) if (name) names.add(name);
  }
  return names;
}
