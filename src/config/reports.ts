// Report blocks (docs/configuration.md "Reports"): typed, merged blocks → frozen ReportBlock values
// with the built-in defaults of report-schema.ts applied. A reporter whose block was never
// written resolves to null (no-op); an unwritten subject or body to null (report/ then renders
// its default template).
import { secondsToMs } from '../common/index.js';
import { parseBoolText, parseIntText } from './scalars.js';
import { REPORT, type TypedReport, type TypedSecretSource } from './report-schema.js';
import { defaultsOf, type WrittenScalar } from './schema-nodes.js';
import type {
  JobCommand,
  MailReport,
  ReportBlock,
  SecretSource,
  SentryReport,
  ShellReport,
  WebhookReport,
} from './types.js';

export { DEFAULT_SENTRY_FINGERPRINT } from './report-schema.js';

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

/** '' (an empty value, as the reference reads these keys) means unset here (docs/deviations.md). */
function nonEmpty(value: string | null | undefined): string | null {
  return value === undefined || value === '' ? null : value;
}

/** A quoted value stays text; a plain one is typed int, then bool, then text. */
function typedExtraValue(value: WrittenScalar): string | number | boolean {
  if (value.quoted) return value.text;
  return parseIntText(value.text) ?? parseBoolText(value.text) ?? value.text;
}

const EMPTY_BLOCK: ReportBlock = Object.freeze({
  sentry: null,
  mail: null,
  shell: null,
  webhook: null,
});

export function resolveReportBlock(
  typed: TypedReport | undefined,
  platform: NodeJS.Platform,
): ReportBlock {
  if (typed === undefined) return EMPTY_BLOCK;
  const defaults = defaultsOf(REPORT, platform);
  const { sentry, mail, shell, webhook } = typed;
  return {
    sentry:
      sentry === undefined
        ? null
        : ({
            dsn: resolveSecretSource(sentry.dsn),
            fingerprint: sentry.fingerprint ?? defaults.sentry.fingerprint,
            level: nonEmpty(sentry.level),
            extra:
              sentry.extra === undefined
                ? {}
                : Object.fromEntries(
                    Object.entries(sentry.extra).map(([key, value]) => [
                      key,
                      typedExtraValue(value),
                    ]),
                  ),
            body: sentry.body ?? null,
            environment: nonEmpty(sentry.environment),
            maxStringLength: sentry.maxStringLength ?? defaults.sentry.maxStringLength,
          } satisfies SentryReport),
    mail:
      mail === undefined
        ? null
        : ({
            from: mail.from ?? defaults.mail.from,
            to: mail.to ?? defaults.mail.to,
            smtpHost: nonEmpty(mail.smtpHost),
            smtpPort: mail.smtpPort ?? defaults.mail.smtpPort,
            tls: mail.tls ?? defaults.mail.tls,
            starttls: mail.starttls ?? defaults.mail.starttls,
            validateCerts: mail.validate_certs ?? defaults.mail.validate_certs,
            username: nonEmpty(mail.username),
            password: resolveSecretSource(mail.password),
            subject: mail.subject ?? null,
            body: mail.body ?? null,
            html: mail.html ?? defaults.mail.html,
          } satisfies MailReport),
    shell:
      shell === undefined
        ? null
        : ({
            command: shell.command === null ? null : toJobCommand(shell.command),
            shell: shell.shell ?? defaults.shell.shell,
          } satisfies ShellReport),
    webhook:
      webhook === undefined
        ? null
        : ({
            url: resolveSecretSource(webhook.url),
            method: webhook.method ?? defaults.webhook.method,
            contentType: webhook.contentType ?? defaults.webhook.contentType,
            headers: webhook.headers ?? defaults.webhook.headers,
            body: webhook.body ?? null,
            timeoutMs: secondsToMs(webhook.timeout ?? defaults.webhook.timeout),
          } satisfies WebhookReport),
  };
}
