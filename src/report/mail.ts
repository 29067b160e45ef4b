// The mail reporter (jobs.md §9.2): renders the body and subject, then sends one message over
// SMTP with nodemailer (implicit TLS or STARTTLS, optional login) and always closes the
// connection. Throws ReportError on any failure; the dispatcher logs and counts it.
import type * as NodemailerModule from 'nodemailer';
import type { Clock, Logger } from '../common/index.js';
import type { MailReport, ResolvedJob } from '../config/index.js';
import type { RunOutcome } from '../runner/index.js';
import { describeSafely, ReportError } from './report-error.js';
import { resolveSecret } from './secrets.js';
import {
  buildTemplateVariables,
  DEFAULT_BODY_TEMPLATE,
  DEFAULT_SUBJECT_TEMPLATE,
  renderTemplate,
  type TemplateRenderer,
} from './templates.js';

/**
 * Connection, greeting and socket-inactivity timeouts. nodemailer's own defaults (2 min, 30 s,
 * 10 min) let a dead server hold a report task for ten minutes.
 */
export const MAIL_TIMEOUT_MS = 60_000;

/** Where mail goes when `smtpHost` is not set: the local MTA, like cron's own mail. */
export const DEFAULT_SMTP_HOST = 'localhost';

export interface MailReportDeps {
  readonly logger: Logger;
  /** The daemon's environment, for `password.fromEnvVar`. */
  readonly baseEnv: NodeJS.ProcessEnv;
  readonly clock: Clock;
  readonly templates: TemplateRenderer;
  readonly timeoutMs?: number;
}

export interface MailReportInput {
  readonly job: ResolvedJob;
  readonly outcome: RunOutcome;
  readonly report: MailReport;
}

export async function sendMailReport(deps: MailReportDeps, input: MailReportInput): Promise<void> {
  const { job, outcome, report } = input;
  if (!report.from || !report.to) return;
  const variables = buildTemplateVariables(job, outcome);
  const body = await renderTemplate(
    deps.templates,
    'mail',
    'body',
    report.body,
    DEFAULT_BODY_TEMPLATE,
    variables,
  );
  if (variables.success && body.trim() === '') {
    deps.logger.debug(`Job ${job.name}: mail body is empty, not sending the success report`);
    return;
  }
  const subject = (
    await renderTemplate(
      deps.templates,
      'mail',
      'subject',
      report.subject,
      DEFAULT_SUBJECT_TEMPLATE,
      variables,
    )
  ).trim();
  const password = await resolveSecret(report.password, deps.baseEnv, 'mail', 'mail password');

  const timeoutMs = deps.timeoutMs ?? MAIL_TIMEOUT_MS;
  const nodemailer = await loadNodemailer();
  const transport = nodemailer.createTransport({
    host: report.smtpHost ?? DEFAULT_SMTP_HOST,
    port: report.smtpPort,
    secure: report.tls,
    // STARTTLS exactly when asked for: never opportunistic, so a server with a certificate
    // validate_certs would reject still gets plain mail when starttls is off.
    requireTLS: report.starttls,
    ignoreTLS: !report.starttls,
    tls: { rejectUnauthorized: report.validateCerts },
    ...(report.username && password ? { auth: { user: report.username, pass: password } } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  try {
    await transport.sendMail({
      from: report.from,
      to: report.to.trim(),
      subject,
      date: new Date(deps.clock.now()),
      ...(report.html ? { html: body } : { text: body }),
      disableFileAccess: true,
      disableUrlAccess: true,
    });
  } catch (error) {
    throw new ReportError('mail', `Cannot send the mail: ${describeSafely(error, [password])}`);
  } finally {
    transport.close();
  }
  deps.logger.debug(`Job ${job.name}: mail report sent`);
}

type Nodemailer = typeof NodemailerModule.default;

/** Loaded on the first mail: ~130 ms the daemon does not pay at start-up. */
async function loadNodemailer(): Promise<Nodemailer> {
  const module = await import('nodemailer');
  return module.default;
}
