// The report door: reporters that turn a finished run into a notification. Subscribed to the
// scheduler's report:* events by daemon.ts; the scheduler never imports them.
export {
  runShellReport,
  buildShellReportEnvironment,
  SHELL_REPORT_OUTPUT_LIMIT,
  type ShellReportDeps,
  type ShellReportInput,
  type ShellReportResult,
} from './shell.js';
export {
  dispatchReport,
  type ReportHook,
  type ReporterDeps,
  type ReportInput,
} from './dispatch.js';
export { ReportError, type ReporterName } from './report-error.js';
export { resolveSecret } from './secrets.js';
export {
  createTemplateRenderer,
  buildTemplateVariables,
  DEFAULT_SUBJECT_TEMPLATE,
  DEFAULT_BODY_TEMPLATE,
  DEFAULT_SENTRY_BODY_TEMPLATE,
  DEFAULT_WEBHOOK_BODY_TEMPLATE,
  type TemplateRenderer,
  type TemplateVariables,
} from './templates.js';
export { sendMailReport, MAIL_TIMEOUT_MS, type MailReportDeps } from './mail.js';
export {
  sendSentryReport,
  parseSentryDsn,
  SENTRY_TIMEOUT_MS,
  type SentryReportDeps,
} from './sentry.js';
export { sendWebhookReport, type WebhookReportDeps } from './webhook.js';
