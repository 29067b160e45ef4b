// Test helpers: a ResolvedJob with the spec's built-in defaults (config.md §5) and a ResolvedConfig
// around a job list. The schedule is given as text and parsed with the real cron engine.
import { createHash } from 'node:crypto';
import type {
  FailsWhen,
  JobSchedule,
  ReportBlock,
  ResolvedConfig,
  ResolvedJob,
  RetryPolicy,
} from './types.js';
import { localTimezone, parseSchedule } from '../schedule/index.js';

export type MakeJobOverrides = Partial<Omit<ResolvedJob, 'schedule' | 'retry' | 'failsWhen'>> & {
  /** Cron text or '@reboot' (default '* * * * *'), or a ready JobSchedule. */
  readonly schedule?: string | JobSchedule;
  readonly retry?: Partial<RetryPolicy>;
  readonly failsWhen?: Partial<FailsWhen>;
};

const NO_REPORTS: ReportBlock = { sentry: null, mail: null, shell: null, webhook: null };

export function makeSchedule(text: string, timezone: string | null): JobSchedule {
  if (text === '@reboot') return { kind: 'reboot' };
  const normalized = text.trim().split(/\s+/).join(' ');
  const schedule = parseSchedule(normalized, { timezone: timezone ?? localTimezone() });
  return { kind: 'cron', text: normalized, schedule, secondGranularity: schedule.hasSeconds };
}

let jobCounter = 0;

export function makeJob(overrides: MakeJobOverrides = {}): ResolvedJob {
  const { schedule: scheduleInput, retry, failsWhen, ...rest } = overrides;
  const name = rest.name ?? `job-${++jobCounter}`;
  const timezone = rest.timezone === undefined ? 'UTC' : rest.timezone;
  const schedule =
    typeof scheduleInput === 'object'
      ? scheduleInput
      : makeSchedule(scheduleInput ?? '* * * * *', timezone);
  const base: Omit<ResolvedJob, 'digest'> = {
    name,
    command: { kind: 'shell', script: 'true' },
    shell: '/bin/sh',
    schedule,
    timezone,
    enabled: true,
    environment: [],
    hasEnvironment: false,
    user: null,
    group: null,
    uid: null,
    gid: null,
    userName: null,
    captureStdout: false,
    captureStderr: true,
    saveLimit: 4096,
    maxLineLength: 16_777_216,
    streamPrefix: '[{job_name} {stream_name}] ',
    concurrencyPolicy: 'Allow',
    concurrencyScope: 'node',
    clusterPolicy: 'Leader',
    executionTimeoutMs: null,
    killTimeoutMs: 30_000,
    failsWhen: {
      producesStdout: false,
      producesStderr: true,
      nonzeroReturn: true,
      always: false,
      ...failsWhen,
    },
    retry: {
      maximumRetries: 0,
      initialDelayMs: 1000,
      maximumDelayMs: 300_000,
      backoffMultiplier: 2,
      ...retry,
    },
    onFailureReport: NO_REPORTS,
    onPermanentFailureReport: NO_REPORTS,
    onSuccessReport: NO_REPORTS,
    statsd: null,
    monitorResources: { enabled: false, intervalMs: 1000, history: 240 },
    onMissed: 'skip',
    startingDeadlineMs: null,
    catchupJitterMs: 0,
    onlyIfLastSucceeded: false,
    archiveOutput: false,
    redactArchivedSecrets: true,
    secrets: [],
    stateAllowedScopes: [],
    source: { file: 'test.yaml', line: 0 },
    ...rest,
  };
  const canonical = JSON.stringify({
    ...base,
    schedule: schedule.kind === 'reboot' ? '@reboot' : schedule.text,
  });
  const digest = rest.digest ?? createHash('sha256').update(canonical).digest('hex');
  return Object.freeze({ ...base, name, timezone, schedule, digest });
}

export function makeConfig(jobs: readonly ResolvedJob[]): ResolvedConfig {
  const digest = createHash('sha256')
    .update(jobs.map((job) => job.digest).join('\n'))
    .digest('hex');
  return {
    jobs,
    jobSetId: `v1:${digest}`,
    logging: null,
    state: null,
    sourceFiles: [],
    configPath: 'test.yaml',
  };
}
