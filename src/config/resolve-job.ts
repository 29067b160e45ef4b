// One typed job (+ its file's defaults layer) → a frozen, fully defaulted ResolvedJob. Checks run
// in the spec's order — schedule, timezone, secrets, env_file, user/group, numeric ranges — and
// the first failure is the job's one issue (config.md §5.9).
import * as path from 'node:path';
import { isYacronError, describeError, secondsToMs, type ErrorCode } from '../common/index.js';
import { renderScheduleObject, type Schedule } from '../schedule/index.js';
import { parseEnvFile } from './env-file.js';
import { computeJobDigest } from './fingerprint.js';
import { checkRanges } from './range-checks.js';
import { resolveIdentity, type IdentityDatabase, type ResolvedIdentity } from './identity.js';
import { childPath, type ConfigIssue, type Loc, type LocTable } from './issues.js';
import { deepMerge } from './merge.js';
import { defaultShell, resolveReportBlock, resolveSecretSource, toJobCommand } from './reports.js';
import type { TypedJob } from './typed-job.js';
import type {
  EnvironmentEntry,
  FailsWhen,
  JobSchedule,
  JobSecret,
  MonitorResources,
  ResolvedJob,
  RetryPolicy,
} from './types.js';

export type EnvFileRead =
  { readonly ok: true; readonly text: string } | { readonly ok: false; readonly reason: string };

/** What resolution needs from the load (caches and the outside world). */
export interface ResolveServices {
  readonly locs: LocTable;
  readonly cwd: string;
  readonly platform: NodeJS.Platform;
  readonly euid: number | null;
  /** Parse (cached) with the effective zone; throws the schedule module's YacronErrors. */
  parseSchedule(expression: string, timezone: string): Schedule;
  assertTimezone(name: string): void;
  localTimezone(): string;
  readEnvFile(absolutePath: string): Promise<EnvFileRead>;
  identityDatabase(): Promise<IdentityDatabase>;
  displayPath(absolutePath: string): string;
}

export interface JobDraft {
  readonly typed: TypedJob;
  /** Merged `defaults` of the job's own file and its includes; null for crontab entries. */
  readonly layer: TypedJob | null;
  readonly loc: Loc;
}

// Defaults shared by every job that does not override them (frozen: jobs are immutable). With
// 100k jobs a per-job copy of each of these is several MB of identical objects.
const MONITOR_DEFAULTS: MonitorResources = Object.freeze({
  enabled: false,
  intervalMs: 1000,
  history: 240,
});
const FAILS_WHEN_DEFAULTS: FailsWhen = Object.freeze({
  producesStdout: false,
  producesStderr: true,
  nonzeroReturn: true,
  always: false,
});
const RETRY_DEFAULTS: RetryPolicy = Object.freeze({
  maximumRetries: 0,
  initialDelayMs: secondsToMs(1),
  maximumDelayMs: secondsToMs(300),
  backoffMultiplier: 2,
});
const NO_ENTRIES: readonly never[] = Object.freeze([]);

export async function resolveJob(
  draft: JobDraft,
  services: ResolveServices,
): Promise<ResolvedJob | ConfigIssue> {
  const { locs } = services;
  const job = (
    draft.layer === null ? draft.typed : deepMerge(draft.layer, draft.typed, locs)
  ) as TypedJob;
  const name = job.name ?? '';
  const where = (container: object | undefined, key: string, parentPath = draft.loc.path): Loc =>
    locs.at(container, key, { ...draft.loc, path: childPath(parentPath, key) });
  const issue = (loc: Loc, message: string): ConfigIssue => ({ ...loc, message });
  const jobIssue = (loc: Loc, message: string): ConfigIssue =>
    issue(loc, `Job ${name}: ${message}`);

  // 1-2. Schedule, then timezone.
  const timezone = job.timezone !== undefined ? job.timezone : (job.utc ?? true) ? 'UTC' : null;
  const scheduled = resolveSchedule(job, timezone, services);
  if ('error' in scheduled) {
    const loc = scheduled.field === 'timezone' ? where(job, 'timezone') : where(job, 'schedule');
    return issue(loc, scheduled.error);
  }

  // 3. Secrets.
  const secrets: JobSecret[] = [];
  for (const secret of dedupeBy(job.secrets ?? [], (entry) => entry.name)) {
    const source = resolveSecretSource(secret);
    if (source === null) {
      return jobIssue(
        locs.at(secret, 'name', where(job, 'secrets')),
        `secret '${secret.name}' needs a non-empty value, fromFile or fromEnvVar`,
      );
    }
    secrets.push({ name: secret.name, source });
  }

  // 4. env_file (resolved against the daemon's working directory, not the config file).
  let fileEntries: readonly EnvironmentEntry[] = [];
  if (job.env_file !== undefined) {
    const absolute = path.resolve(services.cwd, job.env_file);
    const read = await services.readEnvFile(absolute);
    if (!read.ok) {
      return jobIssue(where(job, 'env_file'), `Could not load env_file: ${read.reason}`);
    }
    const parsed = parseEnvFile(read.text);
    if (!parsed.ok) {
      return jobIssue(
        where(job, 'env_file'),
        `Invalid line in env_file: '${parsed.text}' (${services.displayPath(absolute)} line ${parsed.line})`,
      );
    }
    fileEntries = parsed.entries;
  }

  // 5. user / group.
  const user = job.user ?? null;
  const group = job.group ?? null;
  let identity: ResolvedIdentity = { uid: null, gid: null, userName: null };
  if (user !== null || group !== null) {
    const loc = user !== null ? where(job, 'user') : where(job, 'group');
    if (services.platform === 'win32') {
      return jobIssue(loc, 'changing user/group is not supported on Windows');
    }
    const resolved = resolveIdentity(user, group, await services.identityDatabase());
    if ('error' in resolved) return jobIssue(where(job, resolved.field), resolved.error);
    if ((resolved.uid !== null || resolved.gid !== null) && services.euid !== 0) {
      return issue(
        loc,
        `Job ${name} wants to change user or group, but yacron2 is not running as superuser`,
      );
    }
    identity = resolved;
  }

  // 6. Numeric ranges.
  const rangeIssue = checkRanges(job, where, jobIssue);
  if (rangeIssue) return rangeIssue;

  const environment =
    fileEntries.length === 0 && (job.environment ?? []).length === 0
      ? NO_ENTRIES
      : dedupeBy(
          [...fileEntries, ...dedupeBy(job.environment ?? [], (entry) => entry.key)],
          (entry) => entry.key,
        ).map(({ key, value }) => ({ key, value }));

  // Built once, from one literal, and mutated only to set the digest (computed from every other
  // field) before freezing: every job then has the same hidden class. A spread copy plus new keys
  // gave each job a shape of its own (~1 KB of map and descriptors per job, and megamorphic
  // property reads in the scheduler).
  const resolved: { -readonly [K in keyof ResolvedJob]: ResolvedJob[K] } = {
    digest: '',
    source: { file: draft.loc.file, line: draft.loc.line },
    name,
    command: toJobCommand(job.command ?? ''),
    shell: job.shell ?? defaultShell(services.platform),
    schedule: scheduled.schedule,
    timezone,
    enabled: job.enabled ?? true,
    environment,
    hasEnvironment: environment.length > 0,
    user,
    group,
    uid: identity.uid,
    gid: identity.gid,
    userName: identity.userName,
    captureStdout: job.captureStdout ?? false,
    captureStderr: job.captureStderr ?? true,
    saveLimit: job.saveLimit ?? 4096,
    maxLineLength: job.maxLineLength ?? 16_777_216,
    streamPrefix: job.streamPrefix ?? '[{job_name} {stream_name}] ',
    concurrencyPolicy: job.concurrencyPolicy ?? 'Allow',
    concurrencyScope: job.concurrencyScope ?? 'node',
    clusterPolicy: job.clusterPolicy ?? 'Leader',
    executionTimeoutMs:
      job.executionTimeout === undefined ? null : secondsToMs(job.executionTimeout),
    killTimeoutMs: secondsToMs(job.killTimeout ?? 30),
    failsWhen: resolveFailsWhen(job.failsWhen),
    retry: resolveRetry(job.onFailure?.retry),
    onFailureReport: resolveReportBlock(job.onFailure?.report, services.platform),
    onPermanentFailureReport: resolveReportBlock(job.onPermanentFailure?.report, services.platform),
    onSuccessReport: resolveReportBlock(job.onSuccess?.report, services.platform),
    statsd:
      job.statsd === undefined
        ? null
        : { prefix: job.statsd.prefix, host: job.statsd.host, port: job.statsd.port },
    monitorResources: resolveMonitorResources(job.monitorResources),
    onMissed: job.onMissed ?? 'skip',
    startingDeadlineMs:
      job.startingDeadlineSeconds === undefined || job.startingDeadlineSeconds === null
        ? null
        : job.startingDeadlineSeconds * 1000,
    catchupJitterMs: (job.catchupJitterSeconds ?? 0) * 1000,
    onlyIfLastSucceeded: job.onlyIfLastSucceeded ?? false,
    archiveOutput: job.archiveOutput ?? false,
    redactArchivedSecrets: job.redactArchivedSecrets ?? true,
    secrets: secrets.length === 0 ? NO_ENTRIES : secrets,
    stateAllowedScopes:
      job.stateAllowedScopes === undefined || job.stateAllowedScopes.length === 0
        ? NO_ENTRIES
        : [...job.stateAllowedScopes],
  };
  resolved.digest = computeJobDigest(resolved, services.platform);
  return deepFreeze(resolved);
}

function resolveFailsWhen(value: TypedJob['failsWhen']): FailsWhen {
  if (value === undefined) return FAILS_WHEN_DEFAULTS;
  return {
    producesStdout: value.producesStdout ?? false,
    producesStderr: value.producesStderr ?? true,
    nonzeroReturn: value.nonzeroReturn ?? true,
    always: value.always ?? false,
  };
}

function resolveRetry(value: NonNullable<TypedJob['onFailure']>['retry']): RetryPolicy {
  if (value === undefined) return RETRY_DEFAULTS;
  return {
    maximumRetries: value.maximumRetries ?? 0,
    initialDelayMs: secondsToMs(value.initialDelay ?? 1),
    maximumDelayMs: secondsToMs(value.maximumDelay ?? 300),
    backoffMultiplier: value.backoffMultiplier ?? 2,
  };
}

type ScheduleResult =
  | { readonly schedule: JobSchedule }
  | { readonly error: string; readonly field: 'schedule' | 'timezone' };

function collapseWhitespace(text: string): string {
  return text.trim().split(/\s+/).join(' ');
}

function errorCode(error: unknown): ErrorCode | undefined {
  return isYacronError(error) ? error.code : undefined;
}

function resolveSchedule(
  job: TypedJob,
  timezone: string | null,
  services: ResolveServices,
): ScheduleResult {
  const raw = job.schedule ?? '';
  const checkTimezone = (): ScheduleResult | undefined => {
    if (timezone === null) return undefined;
    try {
      services.assertTimezone(timezone);
      return undefined;
    } catch (error) {
      return { error: describeError(error), field: 'timezone' };
    }
  };
  // `@reboot` is an exact, case-sensitive string, not a cron expression.
  if (raw === '@reboot') return checkTimezone() ?? { schedule: { kind: 'reboot' } };
  let text: string;
  try {
    text = collapseWhitespace(typeof raw === 'string' ? raw : renderScheduleObject(raw));
  } catch (error) {
    return { error: describeError(error), field: 'schedule' };
  }
  const effectiveZone = timezone ?? services.localTimezone();
  try {
    const schedule = services.parseSchedule(text, effectiveZone);
    return {
      schedule: {
        kind: 'cron',
        text,
        schedule,
        secondGranularity: text.split(' ').length === 7,
      },
    };
  } catch (error) {
    if (errorCode(error) !== 'YC_ERR_TIMEZONE_UNKNOWN') {
      return { error: describeError(error), field: 'schedule' };
    }
    // The zone is bad; a bad expression would still be reported first.
    try {
      services.parseSchedule(text, 'UTC');
    } catch (scheduleError) {
      return { error: describeError(scheduleError), field: 'schedule' };
    }
    return { error: describeError(error), field: 'timezone' };
  }
}

function resolveMonitorResources(value: TypedJob['monitorResources']): MonitorResources {
  if (value === undefined || value === false) return MONITOR_DEFAULTS;
  if (value === true) return { enabled: true, intervalMs: 1000, history: 240 };
  return {
    enabled: value.enabled ?? true,
    intervalMs: secondsToMs(value.interval ?? 1),
    history: value.history ?? 240,
  };
}

/** Later entries win; the position is the first occurrence's (dict semantics). */
function dedupeBy<T>(items: readonly T[], keyOf: (item: T) => string): T[] {
  const byKey = new Map<string, T>();
  for (const item of items) byKey.set(keyOf(item), item);
  return [...byKey.values()];
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  // Schedules belong to the schedule module (and may be shared between jobs): leave them be.
  for (const child of Object.values(value)) {
    if (typeof child !== 'object' || child === null) continue;
    if ('kind' in child && 'schedule' in child) Object.freeze(child);
    else deepFreeze(child);
  }
  return Object.freeze(value);
}
