// Report blocks (config.md §9): typed, merged blocks → frozen ReportBlock values with every
// default applied. A reporter whose block was never written resolves to null (no-op).
import { secondsToMs } from '../common/index.js';
import type {
  JobCommand,
  MailReport,
  ReportBlock,
  SecretSource,
  SentryReport,
  ShellReport,
  WebhookReport,
} from './types.js';
import type { TypedReport, TypedSecretSource } from './typed-job.js';

export const DEFAULT_SENTRY_FINGERPRINT: readonly string[] = Object.freeze([
  'yacron2',
  '{{ environment.HOSTNAME }}',
  '{{ name }}',
]);

export function defaultShell(platform: NodeJS.Platform): string {
  return platform === 'win32' ? '' : '/bin/sh';
}

/** An all-empty source is the same as none (the reporter stays disabled). */
export function resolveSecretSource(typed: TypedSecretSource | undefined): SecretSource | null {
  if (typed === undefined) return null;
  const source = {
    value: typed.value ?? null,
    fromFile: typed.fromFile ?? null,
    fromEnvVar: typed.fromEnvVar ?? null,
  };
  if (source.value === null && source.fromFile === null && source.fromEnvVar === null) return null;
  return source;
}

export function toJobCommand(command: string | readonly string[]): JobCommand {
  return typeof command === 'string'
    ? { kind: 'shell', script: command }
    : { kind: 'argv', argv: [...command] };
}

const EMPTY_BLOCK: ReportBlock = { sentry: null, mail: null, shell: null, webhook: null };

export function resolveReportBlock(
  typed: TypedReport | undefined,
  platform: NodeJS.Platform,
): ReportBlock {
  if (typed === undefined) return EMPTY_BLOCK;
  const { sentry, mail, shell, webhook } = typed;
  return {
    sentry:
      sentry === undefined
        ? null
        : ({
            dsn: resolveSecretSource(sentry.dsn),
            fingerprint: sentry.fingerprint ?? DEFAULT_SENTRY_FINGERPRINT,
            level: sentry.level ?? null,
            extra: sentry.extra ?? {},
            body: sentry.body ?? null,
            environment: sentry.environment ?? null,
            maxStringLength: sentry.maxStringLength ?? 8192,
          } satisfies SentryReport),
    mail:
      mail === undefined
        ? null
        : ({
            from: mail.from ?? null,
            to: mail.to ?? null,
            smtpHost: mail.smtpHost ?? null,
            smtpPort: mail.smtpPort ?? 25,
            tls: mail.tls ?? false,
            starttls: mail.starttls ?? false,
            validateCerts: mail.validate_certs ?? true,
            username: mail.username ?? null,
            password: resolveSecretSource(mail.password),
            subject: mail.subject ?? null,
            body: mail.body ?? null,
            html: mail.html ?? false,
          } satisfies MailReport),
    shell:
      shell === undefined
        ? null
        : ({
            command:
              shell.command === undefined || shell.command === null
                ? null
                : toJobCommand(shell.command),
            shell: shell.shell ?? defaultShell(platform),
          } satisfies ShellReport),
    webhook:
      webhook === undefined
        ? null
        : ({
            url: resolveSecretSource(webhook.url),
            method: webhook.method ?? 'POST',
            contentType: webhook.contentType ?? 'application/json',
            headers: webhook.headers ?? {},
            body: webhook.body ?? null,
            timeoutMs: secondsToMs(webhook.timeout ?? 10),
          } satisfies WebhookReport),
  };
}
