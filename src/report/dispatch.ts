// Routes a finished run to the reporters configured for a hook (onFailure / onPermanentFailure
// / onSuccess). The four reporters run concurrently as separate background tasks: a slow or
// failing reporter never delays reaping other runs, the next fire or the other reporters; the
// TaskSet's close() waits for the ones still running. A failure is logged and counted, never
// thrown, and never changes the run's outcome.
import {
  describeError,
  readPackageVersion,
  systemClock,
  type Clock,
  type TaskSet,
} from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { ReportBlock, ResolvedJob } from '../config/index.js';
import type { RunUsageSummary } from '../resources/index.js';
import type { RunOutcome } from '../runner/index.js';
import { sendMailReport } from './mail.js';
import { ReportError, type ReporterName } from './report-error.js';
import { sendSentryReport } from './sentry.js';
import { runShellReport } from './shell.js';
import { createTemplateRenderer, type TemplateRenderer } from './templates.js';
import { sendWebhookReport } from './webhook.js';

export type ReportHook = 'failure' | 'permanent-failure' | 'success';

export interface ReporterDeps {
  readonly logger: Logger;
  /** The daemon's environment: the shell reporter's base and where `fromEnvVar` secrets live. */
  readonly baseEnv: NodeJS.ProcessEnv;
  readonly tasks: TaskSet;
  /** Timeouts and the mail Date header; the system clock when not given. */
  readonly clock?: Clock;
  /** Shared compiled-template cache; a process-wide one when not given. */
  readonly templates?: TemplateRenderer;
  /** Sent in the Sentry event's sdk field and auth header; package.json's when not given. */
  readonly version?: string;
  /** Called once per reporter that failed (after it was logged), e.g. for a metrics counter. */
  readonly onReporterFailed?: (reporter: ReporterName, jobName: string) => void;
  /** Aborted when the daemon stops waiting for its reports: shell reporters are killed. */
  readonly abandon?: AbortSignal;
}

export interface ReportInput {
  /** The config the run was launched under (not a reloaded one). */
  readonly job: ResolvedJob;
  readonly outcome: RunOutcome;
  /**
   * The run's summary as the scheduler's report events carry it; its `resources` (null for an
   * unmonitored run) fill the resource variables.
   */
  readonly summary?: { readonly resources: RunUsageSummary | null };
}

const BLOCK_OF_HOOK: Record<ReportHook, (job: ResolvedJob) => ReportBlock> = {
  failure: (job) => job.onFailureReport,
  'permanent-failure': (job) => job.onPermanentFailureReport,
  success: (job) => job.onSuccessReport,
};

let sharedTemplates: TemplateRenderer | undefined;

/**
 * Pure memo: one compiled-template cache for callers that do not bring their own (daemon.ts),
 * so each distinct template source is compiled once per process, not once per report.
 */
function defaultTemplates(): TemplateRenderer {
  sharedTemplates ??= createTemplateRenderer();
  return sharedTemplates;
}

let packageVersion: string | undefined;

/** Pure memo of package.json's version (a synchronous read), taken on the first Sentry report. */
function defaultVersion(): string {
  packageVersion ??= readPackageVersion();
  return packageVersion;
}

/** Start every reporter configured for `hook` in the background. */
export function dispatchReport(deps: ReporterDeps, hook: ReportHook, input: ReportInput): void {
  const { job, outcome } = input;
  const usage = input.summary?.resources ?? null;
  const block = BLOCK_OF_HOOK[hook](job);
  const clock = deps.clock ?? systemClock;
  const templates = deps.templates ?? defaultTemplates();
  const context = { logger: deps.logger, baseEnv: deps.baseEnv, clock, templates };

  const { sentry, mail, shell, webhook } = block;
  if (sentry?.dsn) {
    const sentryDeps = { ...context, version: deps.version ?? defaultVersion() };
    start(deps, 'sentry', job.name, () =>
      sendSentryReport(sentryDeps, { job, outcome, usage, report: sentry }),
    );
  }
  if (mail?.from && mail.to) {
    start(deps, 'mail', job.name, () =>
      sendMailReport(context, { job, outcome, usage, report: mail }),
    );
  }
  if (shell?.command) {
    const scheduleText = job.schedule.text;
    start(deps, 'shell', job.name, async () => {
      const result = await runShellReport(
        {
          logger: deps.logger,
          baseEnv: deps.baseEnv,
          clock,
          ...(deps.abandon === undefined ? {} : { abandon: deps.abandon }),
        },
        { job, outcome, usage, report: shell, scheduleText },
      );
      // The shell reporter logs its own failures; only count them.
      if (result === 'failed') countFailure(deps, 'shell', job.name);
    });
  }
  if (webhook?.url) {
    start(deps, 'webhook', job.name, () =>
      sendWebhookReport(context, { job, outcome, usage, report: webhook }),
    );
  }
}

function start(
  deps: ReporterDeps,
  reporter: ReporterName,
  jobName: string,
  work: () => Promise<void>,
): void {
  deps.tasks.run(async () => {
    try {
      await work();
    } catch (error) {
      // Only the message: error objects from HTTP clients can hold the URL or the DSN, and
      // ReportError messages were built with secrets redacted.
      const message = error instanceof ReportError ? error.message : describeError(error);
      deps.logger.error(
        { reporter, job: jobName },
        `Problem reporting job ${jobName} failure: ${message}`,
      );
      countFailure(deps, reporter, jobName);
    }
  });
}

function countFailure(deps: ReporterDeps, reporter: ReporterName, jobName: string): void {
  try {
    deps.onReporterFailed?.(reporter, jobName);
  } catch (error) {
    deps.logger.error(`Cannot count a failed ${reporter} report: ${describeError(error)}`);
  }
}
