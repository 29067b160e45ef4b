// The test door of config/ (never built into dist/: tsconfig.build.json leaves `testing.ts` out,
// and lint forbids shipped code to import it): a ResolvedJob carrying the built-in defaults of
// job-schema.ts — through the same mapping resolution uses — and a ResolvedConfig around a job
// list. The schedule is given as text and parsed with the real cron engine. And the secret
// source paths the schema tables declare (test-secret-source-paths.ts).
import { createHash } from 'node:crypto';
import { collapseScheduleWhitespace, localTimezone, parseSchedule } from '../schedule/index.js';
import { computeJobSetId } from './fingerprint.js';
import { buildResolvedJob } from './job-values.js';
import type { FailsWhen, JobSchedule, ResolvedConfig, ResolvedJob, RetryPolicy } from './types.js';

export { secretSourcePaths } from './test-secret-source-paths.js';

export type MakeJobOverrides = Partial<Omit<ResolvedJob, 'schedule' | 'retry' | 'failsWhen'>> & {
  /** Cron text or '@reboot' (default '* * * * *'), or a ready JobSchedule. */
  readonly schedule?: string | JobSchedule;
  readonly retry?: Partial<RetryPolicy>;
  readonly failsWhen?: Partial<FailsWhen>;
};

export function makeSchedule(text: string, timezone: string | null): JobSchedule {
  if (text === '@reboot') return { kind: 'reboot', text: '@reboot' };
  const normalized = collapseScheduleWhitespace(text);
  const schedule = parseSchedule(normalized, { timezone: timezone ?? localTimezone() });
  return { kind: 'cron', text: normalized, schedule, secondGranularity: schedule.hasSeconds };
}

let jobCounter = 0;

/** A job as `jobs: [{name, command: "true", schedule}]` would resolve on Linux, then `overrides`. */
export function makeJob(overrides: MakeJobOverrides = {}): ResolvedJob {
  const { schedule: scheduleInput, retry, failsWhen, ...rest } = overrides;
  const name = rest.name ?? `job-${++jobCounter}`;
  const timezone = rest.timezone === undefined ? 'UTC' : rest.timezone;
  const schedule =
    typeof scheduleInput === 'object'
      ? scheduleInput
      : makeSchedule(scheduleInput ?? '* * * * *', timezone);
  const defaults = buildResolvedJob(
    { name, command: 'true', schedule: schedule.text },
    {
      schedule,
      timezone,
      environment: [],
      uid: null,
      gid: null,
      userName: null,
      secrets: [],
      digest: '',
      source: { file: 'test.yaml', line: 0 },
    },
    'linux',
  );
  const base: ResolvedJob = {
    ...defaults,
    failsWhen: { ...defaults.failsWhen, ...failsWhen },
    retry: { ...defaults.retry, ...retry },
    ...rest,
    name,
    timezone,
    schedule,
  };
  // Not the real identity (that needs the typed job): any field change still changes it.
  const digest =
    rest.digest ??
    createHash('sha256')
      .update(JSON.stringify({ ...base, digest: '', schedule: schedule.text }))
      .digest('hex');
  return Object.freeze({ ...base, digest });
}

export function makeConfig(jobs: readonly ResolvedJob[]): ResolvedConfig {
  return {
    jobs,
    jobSetId: computeJobSetId(jobs),
    logging: null,
    state: null,
    sourceFiles: [],
    configPath: 'test.yaml',
  };
}
