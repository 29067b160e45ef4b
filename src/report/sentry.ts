// The Sentry reporter (docs/reports.md "sentry"): one event per report, POSTed as an envelope to
// the project named by the DSN (no SDK: @sentry/node is ~94 MB). Throws ReportError on failure,
// a redirect included (never followed: X-Sentry-Auth carries the key). The DSN holds the project
// key: it never reaches a log line or an error message.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../common/index.js';
import type { Logger } from '../logging/index.js';
import type { ResolvedJob, SentryReport } from '../config/index.js';
import type { RunUsageSummary } from '../resources/index.js';
import type { RunOutcome } from '../runner/index.js';
import { describeSafely, readTextPrefix, ReportError, timeoutSignal } from './report-error.js';
import { resolveSecret } from './secrets.js';
import {
  buildTemplateVariables,
  DEFAULT_SENTRY_BODY_TEMPLATE,
  renderTemplate,
  type TemplateRenderer,
} from './templates.js';

/** The whole request, response included (the reference SDK sends in the background). */
export const SENTRY_TIMEOUT_MS = 10_000;

/** Sentry's error response is cut to this many characters in the error message. */
const RESPONSE_EXCERPT_CHARS = 1024;

export interface SentryReportDeps {
  readonly logger: Logger;
  readonly baseEnv: NodeJS.ProcessEnv;
  readonly clock: Clock;
  readonly templates: TemplateRenderer;
  readonly timeoutMs?: number;
  /** For the event's sdk field and the auth header. */
  readonly version?: string;
}

export interface SentryReportInput {
  readonly job: ResolvedJob;
  readonly outcome: RunOutcome;
  /** The run\'s resource usage (monitorResources); null or absent for an unmonitored run. */
  readonly usage?: RunUsageSummary | null;
  readonly report: SentryReport;
}

export interface SentryTarget {
  readonly envelopeUrl: string;
  readonly publicKey: string;
  readonly secretKey: string | null;
}

/** `https://<key>[:<secret>]@host[:port][/path]/<project>` → the project's envelope endpoint. */
export function parseSentryDsn(dsn: string): SentryTarget {
  let url: URL;
  try {
    url = new URL(dsn);
  } catch {
    // The URL error carries the input: no cause here.
    throw new ReportError('sentry', 'Cannot parse the Sentry DSN: not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ReportError('sentry', 'Cannot parse the Sentry DSN: the scheme is not http(s)');
  }
  if (url.username === '') {
    throw new ReportError('sentry', 'Cannot parse the Sentry DSN: it has no public key');
  }
  const segments = url.pathname.split('/').filter((segment) => segment !== '');
  const project = segments.pop();
  if (project === undefined) {
    throw new ReportError('sentry', 'Cannot parse the Sentry DSN: it has no project id');
  }
  const prefix = segments.length > 0 ? `/${segments.join('/')}` : '';
  return {
    envelopeUrl: `${url.protocol}//${url.host}${prefix}/api/${project}/envelope/`,
    publicKey: decodeURIComponent(url.username),
    secretKey: url.password === '' ? null : decodeURIComponent(url.password),
  };
}

export type SentryExtraValue = string | number | boolean | readonly string[] | null;

export interface SentryEvent {
  readonly event_id: string;
  readonly timestamp: number;
  readonly platform: 'node';
  readonly logger: 'yacron2';
  readonly level: string;
  readonly message: string;
  readonly fingerprint: readonly string[];
  readonly extra: Readonly<Record<string, SentryExtraValue>>;
  readonly environment?: string;
  readonly server_name?: string;
  readonly sdk: { readonly name: string; readonly version: string };
}

export async function sendSentryReport(
  deps: SentryReportDeps,
  input: SentryReportInput,
): Promise<void> {
  const { job, outcome, report } = input;
  const dsn = await resolveSecret(report.dsn, deps.baseEnv, 'sentry', 'Sentry DSN');
  if (dsn === null) return;
  const target = parseSentryDsn(dsn);
  const event = await buildSentryEvent(deps, input);
  const version = deps.version ?? '0.0.0';
  const eventJson = JSON.stringify(event);
  const envelope =
    JSON.stringify({
      event_id: event.event_id,
      sent_at: new Date(deps.clock.now()).toISOString(),
    }) +
    '\n' +
    JSON.stringify({ type: 'event', length: Buffer.byteLength(eventJson) }) +
    '\n' +
    eventJson +
    '\n';
  const auth = [
    'Sentry sentry_version=7',
    `sentry_key=${target.publicKey}`,
    ...(target.secretKey === null ? [] : [`sentry_secret=${target.secretKey}`]),
    `sentry_client=yacron2/${version}`,
  ].join(', ');
  const secrets = [dsn, target.publicKey, target.secretKey];
  const timeout = timeoutSignal(deps.clock, deps.timeoutMs ?? SENTRY_TIMEOUT_MS);
  try {
    const response = await fetch(target.envelopeUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-sentry-envelope', 'X-Sentry-Auth': auth },
      body: envelope,
      signal: timeout.signal,
      redirect: 'manual',
    });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw new ReportError(
        'sentry',
        `Cannot send the Sentry event: HTTP ${response.status} is a redirect, which is not followed (the X-Sentry-Auth header carries the key): check the DSN`,
      );
    }
    if (response.status >= 400) {
      const excerpt = await readTextPrefix(response, RESPONSE_EXCERPT_CHARS);
      throw new ReportError(
        'sentry',
        `Cannot send the Sentry event: HTTP ${response.status}: ${describeSafely(excerpt, secrets)}`,
      );
    }
    await response.body?.cancel();
  } catch (error) {
    if (error instanceof ReportError) throw error;
    const reason: unknown = timeout.signal.aborted ? timeout.signal.reason : error;
    throw new ReportError(
      'sentry',
      `Cannot send the Sentry event: ${describeSafely(reason, secrets)}`,
    );
  } finally {
    timeout.dispose();
  }
  deps.logger.debug(`Job ${job.name}: Sentry event ${event.event_id} sent (${outcome.kind})`);
}

export async function buildSentryEvent(
  deps: Pick<SentryReportDeps, 'baseEnv' | 'clock' | 'templates' | 'version'>,
  input: SentryReportInput,
): Promise<SentryEvent> {
  const { job, outcome, report } = input;
  const variables = buildTemplateVariables(job, outcome, input.usage ?? null);
  const limit = report.maxStringLength;
  const message = await renderTemplate(
    deps.templates,
    'sentry',
    'body',
    report.body,
    DEFAULT_SENTRY_BODY_TEMPLATE,
    variables,
  );
  const fingerprint: string[] = [];
  for (const [index, entry] of report.fingerprint.entries()) {
    const key = `fingerprint[${index}]`;
    fingerprint.push(await renderTemplate(deps.templates, 'sentry', key, entry, '', variables));
  }
  const extra: Record<string, SentryExtraValue> = {
    job: job.name,
    exit_code: outcome.exitCode,
    command: variables.command,
    shell: job.shell,
    success: variables.success,
    ...report.extra,
  };
  const hostname = deps.baseEnv['HOSTNAME'];
  return {
    event_id: randomUUID().replaceAll('-', ''),
    timestamp: deps.clock.now() / 1000,
    platform: 'node',
    logger: 'yacron2',
    level: report.level ?? 'error',
    message: truncateSentryString(message, limit),
    fingerprint: fingerprint.map((entry) => truncateSentryString(entry, limit)),
    extra: Object.fromEntries(
      Object.entries(extra).map(([key, value]) => [key, truncateExtra(value, limit)]),
    ),
    ...(report.environment === null ? {} : { environment: report.environment }),
    ...(hostname ? { server_name: hostname } : {}),
    sdk: { name: 'yacron2', version: deps.version ?? '0.0.0' },
  };
}

function truncateExtra(value: SentryExtraValue, limit: number): SentryExtraValue {
  if (typeof value === 'string') return truncateSentryString(value, limit);
  if (Array.isArray(value)) return value.map((item: string) => truncateSentryString(item, limit));
  return value;
}

/**
 * The Sentry SDK's strip_string: a string longer than `limit` UTF-8 bytes keeps its first
 * `limit - 3` bytes (never half a character) plus `...`.
 */
export function truncateSentryString(text: string, limit: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit) return text;
  const keep = Math.max(0, limit - 3);
  let end = keep;
  // Step back over UTF-8 continuation bytes so no character is cut in half.
  while (end > 0 && end < bytes.length && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8') + '...';
}
