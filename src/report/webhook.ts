// The webhook reporter (docs/reports.md "webhook"): one HTTP request with the rendered body,
// bounded by the configured total timeout. Throws ReportError on a connection error, a timeout,
// a redirect (never followed: the configured headers may carry credentials that must not reach
// another server) or a status >= 400. The URL may hold a token (Slack, Teams): it never reaches
// a log line.
import type { Clock } from '../common/index.js';
import type { Logger } from '../logging/index.js';
import type { ResolvedJob, WebhookReport } from '../config/index.js';
import type { RunUsageSummary } from '../resources/index.js';
import type { RunOutcome } from '../runner/index.js';
import { describeSafely, readTextPrefix, ReportError, timeoutSignal } from './report-error.js';
import { resolveSecret } from './secrets.js';
import {
  buildTemplateVariables,
  DEFAULT_WEBHOOK_BODY_TEMPLATE,
  renderTemplate,
  type TemplateRenderer,
} from './templates.js';

/** How much of an error response goes into the log line (spec: the first 1024 characters). */
export const WEBHOOK_RESPONSE_EXCERPT_CHARS = 1024;

export interface WebhookReportDeps {
  readonly logger: Logger;
  readonly baseEnv: NodeJS.ProcessEnv;
  readonly clock: Clock;
  readonly templates: TemplateRenderer;
}

export interface WebhookReportInput {
  readonly job: ResolvedJob;
  readonly outcome: RunOutcome;
  /** The run\'s resource usage (monitorResources); null or absent for an unmonitored run. */
  readonly usage?: RunUsageSummary | null;
  readonly report: WebhookReport;
}

/** fetch refuses a body on these methods; the request goes without one. */
const BODILESS_METHODS = new Set(['GET', 'HEAD']);

export async function sendWebhookReport(
  deps: WebhookReportDeps,
  input: WebhookReportInput,
): Promise<void> {
  const { job, outcome, report } = input;
  const url = await resolveSecret(report.url, deps.baseEnv, 'webhook', 'webhook URL');
  if (url === null) return;
  const body = await renderTemplate(
    deps.templates,
    'webhook',
    'body',
    report.body,
    DEFAULT_WEBHOOK_BODY_TEMPLATE,
    buildTemplateVariables(job, outcome, input.usage ?? null),
  );
  const headers = buildHeaders(report);
  const method = report.method.toUpperCase();
  const timeout = timeoutSignal(deps.clock, report.timeoutMs);
  try {
    const response = await fetch(url, {
      // Upper-cased as the reference's client does (fetch itself only normalises six methods).
      method,
      headers,
      ...(BODILESS_METHODS.has(method) ? {} : { body: Buffer.from(body, 'utf8') }),
      signal: timeout.signal,
      redirect: 'manual',
    });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw new ReportError(
        'webhook',
        `Webhook answered HTTP ${response.status} with a redirect, which is not followed (its custom headers may carry credentials): point url at the final address`,
      );
    }
    if (response.status >= 400) {
      const excerpt = await readTextPrefix(response, WEBHOOK_RESPONSE_EXCERPT_CHARS);
      throw new ReportError(
        'webhook',
        `Webhook returned HTTP ${response.status}: ${describeSafely(excerpt, urlSecrets(url))}`,
      );
    }
    await response.body?.cancel();
  } catch (error) {
    if (error instanceof ReportError) throw error;
    const reason: unknown = timeout.signal.aborted ? timeout.signal.reason : error;
    throw new ReportError(
      'webhook',
      `Cannot send the webhook: ${describeSafely(reason, urlSecrets(url))}`,
    );
  } finally {
    timeout.dispose();
  }
  deps.logger.debug(`Job ${job.name}: webhook sent (${outcome.kind})`);
}

/**
 * The URL and the parts of it that usually hold the token (path and query, user info), so an
 * error message or a response echoing them does not leak it.
 */
function urlSecrets(url: string): string[] {
  const secrets = [url];
  try {
    const parsed = new URL(url);
    secrets.push(parsed.pathname + parsed.search, parsed.search, parsed.username, parsed.password);
  } catch {
    // Not a URL: fetch fails, and only the whole string can appear in its message.
  }
  // Single characters ('/', '?') would mangle every message.
  return secrets.filter((secret) => secret.length > 1);
}

/**
 * `Content-Type: <contentType>`, then the configured headers in order (case-insensitively
 * overriding it). A bad header is reported by name only: its value may be a credential.
 */
function buildHeaders(report: WebhookReport): Headers {
  const headers = new Headers();
  const entries: [string, string][] = [
    ['Content-Type', report.contentType],
    ...Object.entries(report.headers),
  ];
  for (const [name, value] of entries) {
    try {
      headers.set(name, value);
    } catch {
      throw new ReportError('webhook', `Cannot send the webhook: header ${name} is not valid`);
    }
  }
  return headers;
}
