// A typed job (written keys only) plus what the load looked up or checked → the ResolvedJob
// shape, every unwritten key taken from the built-in defaults of job-schema.ts and durations
// converted to milliseconds. Pure; shared by resolution and the test job factory, so both
// carry the same defaults by construction.
import { secondsToMs } from '../common/index.js';
import {
  MONITOR_RESOURCES_MAP,
  jobDefaults,
  type JobDefaults,
  type TypedJob,
} from './job-schema.js';
import { resolveReportBlock, toJobCommand } from './reports.js';
import { defaultsOf } from './schema-nodes.js';
import type {
  EnvironmentEntry,
  FailsWhen,
  JobSchedule,
  JobSecret,
  MonitorResources,
  ResolvedJob,
  RetryPolicy,
  SourceLocation,
} from './types.js';

/** What resolution found out about a job beyond its own keys. */
export interface JobFacts {
  readonly schedule: JobSchedule;
  /** The frame: an IANA name, 'UTC', or null for the daemon's local zone. */
  readonly timezone: string | null;
  /** env_file entries, then the merged `environment` (later wins, deduplicated). */
  readonly environment: readonly EnvironmentEntry[];
  readonly uid: number | null;
  readonly gid: number | null;
  readonly userName: string | null;
  readonly secrets: readonly JobSecret[];
  readonly digest: string;
  readonly source: SourceLocation;
}

// Shared by every job that does not override them (frozen: jobs are immutable). With 100k jobs
// a per-job copy of each of these is several MB of identical objects.
const NO_ENTRIES: readonly never[] = Object.freeze([]);
const resolvedDefaults = new Map<NodeJS.Platform, ResolvedDefaults>();

interface ResolvedDefaults {
  readonly failsWhen: FailsWhen;
  readonly retry: RetryPolicy;
  readonly monitorResources: MonitorResources;
}

function resolvedDefaultsFor(platform: NodeJS.Platform): ResolvedDefaults {
  let built = resolvedDefaults.get(platform);
  if (built === undefined) {
    const defaults = jobDefaults(platform);
    built = Object.freeze({
      failsWhen: Object.freeze(resolveFailsWhen({}, defaults)),
      retry: Object.freeze(resolveRetry(defaults.onFailure.retry)),
      monitorResources: Object.freeze(resolveMonitorResources(false, platform)),
    });
    resolvedDefaults.set(platform, built);
  }
  return built;
}

export function buildResolvedJob(
  job: TypedJob,
  facts: JobFacts,
  platform: NodeJS.Platform,
): ResolvedJob {
  const defaults = jobDefaults(platform);
  const shared = resolvedDefaultsFor(platform);
  // Built from one literal, in one order, so every job has the same hidden class (a spread copy
  // plus new keys gave each job a shape of its own: ~1 KB of map and descriptors per job, and
  // megamorphic property reads in the scheduler).
  return {
    digest: facts.digest,
    source: facts.source,
    name: job.name,
    command: toJobCommand(job.command),
    shell: job.shell ?? defaults.shell,
    schedule: facts.schedule,
    timezone: facts.timezone,
    enabled: job.enabled ?? defaults.enabled,
    environment: facts.environment.length === 0 ? NO_ENTRIES : facts.environment,
    hasEnvironment: facts.environment.length > 0,
    user: job.user ?? defaults.user,
    group: job.group ?? defaults.group,
    uid: facts.uid,
    gid: facts.gid,
    userName: facts.userName,
    captureStdout: job.captureStdout ?? defaults.captureStdout,
    captureStderr: job.captureStderr ?? defaults.captureStderr,
    saveLimit: job.saveLimit ?? defaults.saveLimit,
    maxLineLength: job.maxLineLength ?? defaults.maxLineLength,
    streamPrefix: job.streamPrefix ?? defaults.streamPrefix,
    concurrencyPolicy: job.concurrencyPolicy ?? defaults.concurrencyPolicy,
    concurrencyScope: job.concurrencyScope ?? defaults.concurrencyScope,
    clusterPolicy: job.clusterPolicy ?? defaults.clusterPolicy,
    executionTimeoutMs: secondsToMsOrNull(job.executionTimeout ?? defaults.executionTimeout),
    killTimeoutMs: secondsToMs(job.killTimeout ?? defaults.killTimeout),
    failsWhen:
      job.failsWhen === undefined ? shared.failsWhen : resolveFailsWhen(job.failsWhen, defaults),
    retry: job.onFailure?.retry === undefined ? shared.retry : resolveRetry(job.onFailure.retry),
    onFailureReport: resolveReportBlock(job.onFailure?.report, platform),
    onPermanentFailureReport: resolveReportBlock(job.onPermanentFailure?.report, platform),
    onSuccessReport: resolveReportBlock(job.onSuccess?.report, platform),
    statsd:
      job.statsd === undefined
        ? defaults.statsd
        : { prefix: job.statsd.prefix, host: job.statsd.host, port: job.statsd.port },
    monitorResources:
      job.monitorResources === undefined
        ? shared.monitorResources
        : resolveMonitorResources(job.monitorResources, platform),
    onMissed: job.onMissed ?? defaults.onMissed,
    startingDeadlineMs: secondsToMsOrNull(
      job.startingDeadlineSeconds ?? defaults.startingDeadlineSeconds,
    ),
    catchupJitterMs: secondsToMs(job.catchupJitterSeconds ?? defaults.catchupJitterSeconds),
    onlyIfLastSucceeded: job.onlyIfLastSucceeded ?? defaults.onlyIfLastSucceeded,
    archiveOutput: job.archiveOutput ?? defaults.archiveOutput,
    redactArchivedSecrets: job.redactArchivedSecrets ?? defaults.redactArchivedSecrets,
    inheritSecretEnvVars: job.inheritSecretEnvVars ?? defaults.inheritSecretEnvVars,
    secrets: facts.secrets.length === 0 ? NO_ENTRIES : facts.secrets,
    stateAllowedScopes:
      job.stateAllowedScopes === undefined || job.stateAllowedScopes.length === 0
        ? NO_ENTRIES
        : [...job.stateAllowedScopes],
  };
}

function secondsToMsOrNull(seconds: number | null): number | null {
  return seconds === null ? null : secondsToMs(seconds);
}

function resolveFailsWhen(
  value: Partial<NonNullable<TypedJob['failsWhen']>>,
  defaults: JobDefaults,
): FailsWhen {
  const fallback = defaults.failsWhen;
  return {
    producesStdout: value.producesStdout ?? fallback.producesStdout,
    producesStderr: value.producesStderr ?? fallback.producesStderr,
    nonzeroReturn: value.nonzeroReturn ?? fallback.nonzeroReturn,
    always: value.always ?? fallback.always,
  };
}

/** A written retry block has all four keys (the schema requires them). */
function resolveRetry(
  value: NonNullable<NonNullable<TypedJob['onFailure']>['retry']>,
): RetryPolicy {
  return {
    maximumRetries: value.maximumRetries,
    initialDelayMs: secondsToMs(value.initialDelay),
    maximumDelayMs: secondsToMs(value.maximumDelay),
    backoffMultiplier: value.backoffMultiplier,
  };
}

/** `true` is the map form with its defaults; writing the map turns sampling on. */
function resolveMonitorResources(
  value: NonNullable<TypedJob['monitorResources']>,
  platform: NodeJS.Platform,
): MonitorResources {
  const defaults = defaultsOf(MONITOR_RESOURCES_MAP, platform);
  const written = typeof value === 'boolean' ? {} : value;
  return {
    enabled: value === false ? false : (written.enabled ?? defaults.enabled),
    intervalMs: secondsToMs(written.interval ?? defaults.interval),
    history: written.history ?? defaults.history,
  };
}
