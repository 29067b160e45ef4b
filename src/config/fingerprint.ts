// Job identity (spec/fingerprint.md, scheme v1): a canonical object per job, secrets redacted,
// hashed as sorted-key ASCII JSON; the job-set id hashes the sorted per-job digests. Must stay
// stable across restarts and upgrades: durable retry records and boot markers store digests.
import { createHash } from 'node:crypto';
import { DEFAULT_SENTRY_FINGERPRINT, defaultShell } from './reports.js';
import type { ReportBlock, ResolvedJob, SecretSource } from './types.js';

/** Everything of a job except what is derived from the identity itself. */
export type JobIdentityInput = Omit<ResolvedJob, 'digest' | 'source'>;

const REDACTED = '<redacted>';
export const JOB_SET_SCHEME = 'v1';

/** ms back to the seconds the user wrote (30000 → 30, 1500 → 1.5). */
function seconds(ms: number): number {
  return ms / 1000;
}

function canonicalSecret(source: SecretSource | null, redact: boolean): Record<string, unknown> {
  const value = source?.value ?? null;
  return {
    value: value !== null && redact ? REDACTED : value,
    fromFile: source?.fromFile ?? null,
    fromEnvVar: source?.fromEnvVar ?? null,
  };
}

/**
 * The full effective report block, an unconfigured reporter shown with its defaults (so writing
 * a block that only restates defaults has the same identity as not writing it).
 */
function canonicalReport(block: ReportBlock, platform: NodeJS.Platform): Record<string, unknown> {
  const { sentry, mail, shell, webhook } = block;
  return {
    sentry: {
      dsn: canonicalSecret(sentry?.dsn ?? null, true),
      fingerprint: sentry?.fingerprint ?? DEFAULT_SENTRY_FINGERPRINT,
      level: sentry?.level ?? null,
      extra: sentry?.extra ?? {},
      body: sentry?.body ?? null,
      environment: sentry?.environment ?? null,
      maxStringLength: sentry?.maxStringLength ?? 8192,
    },
    mail: {
      from: mail?.from ?? null,
      to: mail?.to ?? null,
      smtpHost: mail?.smtpHost ?? null,
      smtpPort: mail?.smtpPort ?? 25,
      tls: mail?.tls ?? false,
      starttls: mail?.starttls ?? false,
      validate_certs: mail?.validateCerts ?? true,
      username: mail?.username ?? null,
      password: canonicalSecret(mail?.password ?? null, true),
      subject: mail?.subject ?? null,
      body: mail?.body ?? null,
      html: mail?.html ?? false,
    },
    shell: {
      command:
        shell?.command == null
          ? null
          : shell.command.kind === 'shell'
            ? shell.command.script
            : shell.command.argv,
      shell: shell?.shell ?? defaultShell(platform),
    },
    webhook: {
      url: canonicalSecret(webhook?.url ?? null, true),
      method: webhook?.method ?? 'POST',
      contentType: webhook?.contentType ?? 'application/json',
      headers: Object.fromEntries(
        Object.keys(webhook?.headers ?? {}).map((name) => [name, REDACTED]),
      ),
      body: webhook?.body ?? null,
      timeout: seconds(webhook?.timeoutMs ?? 10_000),
    },
  };
}

/** The canonical identity object of fingerprint.md §3 (never mutates the job). */
export function canonicalJobObject(
  job: JobIdentityInput,
  platform: NodeJS.Platform = process.platform,
): Record<string, unknown> {
  const canonical: Record<string, unknown> = {
    name: job.name,
    command:
      job.command.kind === 'shell'
        ? { shell_command: job.command.script }
        : { argv: [...job.command.argv] },
    schedule: job.schedule.kind === 'reboot' ? '@reboot' : job.schedule.text,
    shell: job.shell,
    concurrencyPolicy: job.concurrencyPolicy,
    clusterPolicy: job.clusterPolicy,
    captureStderr: job.captureStderr,
    captureStdout: job.captureStdout,
    streamPrefix: job.streamPrefix,
    saveLimit: job.saveLimit,
    maxLineLength: job.maxLineLength,
    timezone: job.timezone,
    enabled: job.enabled,
    onlyIfLastSucceeded: job.onlyIfLastSucceeded,
    failsWhen: { ...job.failsWhen },
    onFailure: {
      retry: {
        maximumRetries: job.retry.maximumRetries,
        initialDelay: seconds(job.retry.initialDelayMs),
        maximumDelay: seconds(job.retry.maximumDelayMs),
        backoffMultiplier: job.retry.backoffMultiplier,
      },
      report: canonicalReport(job.onFailureReport, platform),
    },
    onPermanentFailure: { report: canonicalReport(job.onPermanentFailureReport, platform) },
    onSuccess: { report: canonicalReport(job.onSuccessReport, platform) },
    environment: [...new Set(job.environment.map((entry) => entry.key))].sort(),
    executionTimeout: job.executionTimeoutMs === null ? null : seconds(job.executionTimeoutMs),
    killTimeout: seconds(job.killTimeoutMs),
    statsd:
      job.statsd === null
        ? null
        : { host: job.statsd.host, port: job.statsd.port, prefix: job.statsd.prefix },
    user: job.user,
    group: job.group,
  };
  // Fields added after v1 shipped appear only when they differ from their default.
  if (job.concurrencyScope !== 'node') canonical.concurrencyScope = job.concurrencyScope;
  return canonical;
}

/**
 * JSON with keys sorted at every level, `,`/`:` separators and non-ASCII escaped as \uXXXX.
 * Numbers print as JSON does (30.0 is 30), non-finite ones as Python's json does.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (Number.isFinite(value)) return JSON.stringify(value);
      return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
    case 'string':
      return asciiJsonString(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((key) => record[key] !== undefined)
        .sort();
      return `{${keys.map((key) => `${asciiJsonString(key)}:${canonicalJson(record[key])}`).join(',')}}`;
    }
    default:
      throw new TypeError(`cannot fingerprint a ${typeof value}`);
  }
}

function asciiJsonString(text: string): string {
  return JSON.stringify(text).replace(
    /[\u007f-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Per-job digest: lowercase hex sha256 of the canonical object. */
export function computeJobDigest(
  job: JobIdentityInput,
  platform: NodeJS.Platform = process.platform,
): string {
  return sha256Hex(canonicalJson(canonicalJobObject(job, platform)));
}

/** `v1:` + sha256("v1\n" + sorted digests joined by "\n"); order-independent. */
export function computeJobSetId(jobs: Iterable<{ readonly digest: string } | string>): string {
  const digests = [...jobs].map((job) => (typeof job === 'string' ? job : job.digest)).sort();
  return `${JOB_SET_SCHEME}:${sha256Hex(`${JOB_SET_SCHEME}\n${digests.join('\n')}`)}`;
}
