// The mail reporter (docs/reports.md "mail"): renders the body and subject, then sends one
// message over SMTP with nodemailer (implicit TLS or STARTTLS, optional login) and always closes
// the connection. Every wait is bounded (MAIL_TIMEOUT_MS) and so is the whole exchange
// (MAIL_TOTAL_TIMEOUT_MS): the TCP socket is ours (getSocket), so the deadline can destroy it.
// Throws ReportError on any failure; the dispatcher logs and counts it.
import { connect, type Socket } from 'node:net';
import type * as NodemailerModule from 'nodemailer';
import { formatSeconds, type Clock } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { MailReport, ResolvedJob } from '../config/index.js';
import type { RunUsageSummary } from '../resources/index.js';
import type { RunOutcome } from '../runner/index.js';
import { describeSafely, ReportError, timeoutSignal } from './report-error.js';
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
/**
 * The whole exchange, connect to QUIT. The per-wait timeouts restart with every byte, so a server
 * that trickles its answers could otherwise hold a report task (and the shutdown) for ever.
 */
export const MAIL_TOTAL_TIMEOUT_MS = 180_000;

/** Where mail goes when `smtpHost` is not set: the local MTA, like cron's own mail. */
export const DEFAULT_SMTP_HOST = 'localhost';

export interface MailReportDeps {
  readonly logger: Logger;
  /** The daemon's environment, for `password.fromEnvVar`. */
  readonly baseEnv: NodeJS.ProcessEnv;
  readonly clock: Clock;
  readonly templates: TemplateRenderer;
  /** Each wait (connect, greeting, socket inactivity); default MAIL_TIMEOUT_MS. */
  readonly timeoutMs?: number;
  /** The whole exchange; default MAIL_TOTAL_TIMEOUT_MS. */
  readonly totalTimeoutMs?: number;
}

export interface MailReportInput {
  readonly job: ResolvedJob;
  readonly outcome: RunOutcome;
  /** The run\'s resource usage (monitorResources); null or absent for an unmonitored run. */
  readonly usage?: RunUsageSummary | null;
  readonly report: MailReport;
}

export async function sendMailReport(deps: MailReportDeps, input: MailReportInput): Promise<void> {
  const { job, outcome, report } = input;
  if (!report.from || !report.to) return;
  const variables = buildTemplateVariables(job, outcome, input.usage ?? null);
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
  const totalMs = deps.totalTimeoutMs ?? MAIL_TOTAL_TIMEOUT_MS;
  const host = report.smtpHost ?? DEFAULT_SMTP_HOST;
  const sockets = new Set<Socket>();
  const nodemailer = await loadNodemailer();
  const transport = nodemailer.createTransport({
    host,
    port: report.smtpPort,
    // The TCP connection is opened here, so the total deadline can destroy it; nodemailer still
    // does TLS (implicit or STARTTLS) on it.
    getSocket: (_options: unknown, callback: (error: Error | null, socket: unknown) => void) => {
      const socket = connect({ host, port: report.smtpPort });
      sockets.add(socket);
      socket.setTimeout(timeoutMs, () => socket.destroy(new Error('Connection timeout')));
      const onError = (error: Error): void => callback(error, null);
      socket.once('error', onError);
      socket.once('connect', () => {
        socket.off('error', onError);
        socket.setTimeout(0);
        callback(null, { connection: socket });
      });
    },
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
  const deadline = timeoutSignal(deps.clock, totalMs);
  // With an error: a socket still connecting then fails its getSocket callback too.
  const abandon = (): void => {
    for (const socket of sockets) socket.destroy(new Error('the mail exchange was abandoned'));
  };
  deadline.signal.addEventListener('abort', abandon, { once: true });
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
    const why = deadline.signal.aborted
      ? `no answer within ${formatSeconds(totalMs)} seconds`
      : describeSafely(error, [password]);
    throw new ReportError('mail', `Cannot send the mail: ${why}`);
  } finally {
    deadline.signal.removeEventListener('abort', abandon);
    deadline.dispose();
    transport.close();
    for (const socket of sockets) socket.destroy();
  }
  deps.logger.debug(`Job ${job.name}: mail report sent`);
}

type Nodemailer = typeof NodemailerModule.default;

/** Loaded on the first mail: ~130 ms the daemon does not pay at start-up. */
async function loadNodemailer(): Promise<Nodemailer> {
  const module = await import('nodemailer');
  return module.default;
}
