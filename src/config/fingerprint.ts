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

// Objects below are written in sorted key order so canonicalJson need not sort them.

function canonicalSecret(source: SecretSource | null, redact: boolean): Record<string, unknown> {
  const value = source?.value ?? null;
  return {
    fromEnvVar: source?.fromEnvVar ?? null,
    fromFile: source?.fromFile ?? null,
    value: value !== null && redact ? REDACTED : value,
  };
}

/**
 * The full effective report block, an unconfigured reporter shown with its defaults (so writing
 * a block that only restates defaults has the same identity as not writing it).
 */
function canonicalReport(block: ReportBlock, platform: NodeJS.Platform): Record<string, unknown> {
  const { sentry, mail, shell, webhook } = block;
  return {
    mail: {
      body: mail?.body ?? null,
      from: mail?.from ?? null,
      html: mail?.html ?? false,
      password: canonicalSecret(mail?.password ?? null, true),
      smtpHost: mail?.smtpHost ?? null,
      smtpPort: mail?.smtpPort ?? 25,
      starttls: mail?.starttls ?? false,
      subject: mail?.subject ?? null,
      tls: mail?.tls ?? false,
      to: mail?.to ?? null,
      username: mail?.username ?? null,
      validate_certs: mail?.validateCerts ?? true,
    },
    sentry: {
      body: sentry?.body ?? null,
      dsn: canonicalSecret(sentry?.dsn ?? null, true),
      environment: sentry?.environment ?? null,
      extra: sentry?.extra ?? {},
      fingerprint: sentry?.fingerprint ?? DEFAULT_SENTRY_FINGERPRINT,
      level: sentry?.level ?? null,
      maxStringLength: sentry?.maxStringLength ?? 8192,
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
      body: webhook?.body ?? null,
      contentType: webhook?.contentType ?? 'application/json',
      headers: Object.fromEntries(
        Object.keys(webhook?.headers ?? {}).map((name) => [name, REDACTED]),
      ),
      method: webhook?.method ?? 'POST',
      timeout: seconds(webhook?.timeoutMs ?? 10_000),
      url: canonicalSecret(webhook?.url ?? null, true),
    },
  };
}

/** Already-canonical JSON, spliced verbatim by canonicalJson. */
class CanonicalText {
  constructor(readonly json: string) {}
}

// Pure memo: the canonical JSON of a report block with no reporter configured (most jobs have
// two or three of those, and serialising them dominated the digest time).
const unconfiguredReportJson = new Map<NodeJS.Platform, CanonicalText>();

function reportForDigest(block: ReportBlock, platform: NodeJS.Platform): unknown {
  if (block.sentry || block.mail || block.shell || block.webhook) {
    return canonicalReport(block, platform);
  }
  let cached = unconfiguredReportJson.get(platform);
  if (cached === undefined) {
    cached = new CanonicalText(canonicalJson(canonicalReport(block, platform)));
    unconfiguredReportJson.set(platform, cached);
  }
  return cached;
}

/** The canonical identity object of fingerprint.md §3 (never mutates the job). */
export function canonicalJobObject(
  job: JobIdentityInput,
  platform: NodeJS.Platform = process.platform,
): Record<string, unknown> {
  return buildCanonical(job, platform, canonicalReport);
}

function buildCanonical(
  job: JobIdentityInput,
  platform: NodeJS.Platform,
  report: (block: ReportBlock, platform: NodeJS.Platform) => unknown,
): Record<string, unknown> {
  return {
    captureStderr: job.captureStderr,
    captureStdout: job.captureStdout,
    clusterPolicy: job.clusterPolicy,
    command:
      job.command.kind === 'shell'
        ? { shell_command: job.command.script }
        : { argv: [...job.command.argv] },
    concurrencyPolicy: job.concurrencyPolicy,
    // Fields added after v1 shipped appear only when they differ from their default.
    ...(job.concurrencyScope === 'node' ? {} : { concurrencyScope: job.concurrencyScope }),
    enabled: job.enabled,
    environment: [...new Set(job.environment.map((entry) => entry.key))].sort(),
    executionTimeout: job.executionTimeoutMs === null ? null : seconds(job.executionTimeoutMs),
    failsWhen: {
      always: job.failsWhen.always,
      nonzeroReturn: job.failsWhen.nonzeroReturn,
      producesStderr: job.failsWhen.producesStderr,
      producesStdout: job.failsWhen.producesStdout,
    },
    group: job.group,
    killTimeout: seconds(job.killTimeoutMs),
    maxLineLength: job.maxLineLength,
    name: job.name,
    onFailure: {
      report: report(job.onFailureReport, platform),
      retry: {
        backoffMultiplier: job.retry.backoffMultiplier,
        initialDelay: seconds(job.retry.initialDelayMs),
        maximumDelay: seconds(job.retry.maximumDelayMs),
        maximumRetries: job.retry.maximumRetries,
      },
    },
    onPermanentFailure: { report: report(job.onPermanentFailureReport, platform) },
    onSuccess: { report: report(job.onSuccessReport, platform) },
    onlyIfLastSucceeded: job.onlyIfLastSucceeded,
    saveLimit: job.saveLimit,
    schedule: job.schedule.kind === 'reboot' ? '@reboot' : job.schedule.text,
    shell: job.shell,
    statsd:
      job.statsd === null
        ? null
        : { host: job.statsd.host, port: job.statsd.port, prefix: job.statsd.prefix },
    streamPrefix: job.streamPrefix,
    timezone: job.timezone,
    user: job.user,
  };
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
    case 'object':
      if (value instanceof CanonicalText) return value.json;
      return Array.isArray(value)
        ? canonicalArray(value)
        : canonicalRecord(value as Record<string, unknown>);
    default:
      throw new TypeError(`cannot fingerprint a ${typeof value}`);
  }
}

function canonicalArray(list: readonly unknown[]): string {
  let out = '[';
  for (let index = 0; index < list.length; index++) {
    if (index > 0) out += ',';
    out += canonicalJson(list[index]);
  }
  return out + ']';
}

function canonicalRecord(record: Record<string, unknown>): string {
  const keys = Object.keys(record);
  // The canonical objects are built in key order; only sort when that is not already so.
  for (let index = 1; index < keys.length; index++) {
    if ((keys[index - 1] ?? '') > (keys[index] ?? '')) {
      keys.sort();
      break;
    }
  }
  let out = '{';
  for (const key of keys) {
    const child = record[key];
    if (child === undefined) continue;
    if (out.length > 1) out += ',';
    out += asciiJsonString(key) + ':' + canonicalJson(child);
  }
  return out + '}';
}

const NON_ASCII = /[\u007f-\uffff]/;
const NON_ASCII_ALL = /[\u007f-\uffff]/g;

function asciiJsonString(text: string): string {
  const json = JSON.stringify(text);
  if (!NON_ASCII.test(json)) return json;
  return json.replace(
    NON_ASCII_ALL,
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
  return sha256Hex(canonicalJson(buildCanonical(job, platform, reportForDigest)));
}

/** `v1:` + sha256("v1\n" + sorted digests joined by "\n"); order-independent. */
export function computeJobSetId(jobs: Iterable<{ readonly digest: string } | string>): string {
  const digests = [...jobs].map((job) => (typeof job === 'string' ? job : job.digest)).sort();
  return `${JOB_SET_SCHEME}:${sha256Hex(`${JOB_SET_SCHEME}\n${digests.join('\n')}`)}`;
}
