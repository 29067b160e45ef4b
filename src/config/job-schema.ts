// The job keys (docs/configuration.md "Job keys"), one row each: type, built-in default, and how
// the key enters the job identity. This table is the single source of truth for the job schema:
// the walker types YAML by it, TypedJob is inferred from it, resolution and the test job
// factory take their defaults from it (`jobDefaults`), and the fingerprint walks it.
// Adding a key: a row here (the compiler then asks for its identity rule), its resolution in
// resolve-job.ts if the key needs logic, and docs/configuration.md.
import { COMMAND, REPORT, SECRET_SOURCE } from './report-schema.js';
import {
  FROM_FIELDS,
  SYSTEM_SHELL,
  bool,
  defaultsOf,
  either,
  emptyNone,
  float,
  int,
  intOrStr,
  map,
  oneOf,
  opt,
  refused,
  req,
  seq,
  str,
  type DefaultsOf,
  type FieldSpec,
  type IdentityRule,
  type MapOut,
} from './schema-nodes.js';

const FAILS_WHEN = map({
  producesStdout: req(bool, { default: false }),
  producesStderr: opt(bool, { default: true }),
  nonzeroReturn: opt(bool, { default: true }),
  always: opt(bool, { default: false }),
});

/** If the block is written, all four keys are required. Delays are seconds. */
const RETRY = map({
  maximumRetries: req(int, { default: 0 }),
  initialDelay: req(float, { default: 1 }),
  maximumDelay: req(float, { default: 300 }),
  backoffMultiplier: req(float, { default: 2 }),
});

export const MONITOR_RESOURCES_MAP = map({
  enabled: opt(bool, { default: true }),
  interval: opt(float, { default: 1 }),
  history: opt(int, { default: 240 }),
});

const SCHEDULE_OBJECT = map({
  second: opt(str),
  minute: opt(str),
  hour: opt(str),
  dayOfMonth: opt(str),
  month: opt(str),
  dayOfWeek: opt(str),
  year: opt(str),
});
export type TypedScheduleObject = MapOut<typeof SCHEDULE_OBJECT.fields>;

const ENVIRONMENT_ENTRY = map({ key: req(str), value: req(str) });
const SECRET_ENTRY = map({ name: req(str), ...SECRET_SOURCE.fields });

type JobRow = FieldSpec & { readonly identity: IdentityRule };

/** Keys legal both on a job and in `defaults`. */
const COMMON_JOB_FIELDS = {
  shell: opt(str, { default: SYSTEM_SHELL, identity: 'hashed' }),
  enabled: opt(bool, { default: true, identity: 'hashed' }),
  // Identity: the variable names only, with the names read from env_file.
  environment: opt(seq(ENVIRONMENT_ENTRY), { default: [], identity: 'custom' }),
  env_file: opt(str, { identity: 'excluded' }),
  // As configured (a name or a number), never the resolved uid/gid.
  user: opt(intOrStr, { default: null, identity: 'hashed' }),
  group: opt(intOrStr, { default: null, identity: 'hashed' }),
  secrets: opt(seq(SECRET_ENTRY), { default: [], identity: 'excluded' }),
  stateAllowedScopes: opt(seq(str), { default: [], identity: 'excluded' }),
  // Folded into the identity's `timezone` (the frame: a zone, UTC, or local time).
  utc: opt(bool, { default: true, identity: 'excluded' }),
  timezone: opt(str, { identity: 'custom' }),
  captureStdout: opt(bool, { default: false, identity: 'hashed' }),
  captureStderr: opt(bool, { default: true, identity: 'hashed' }),
  saveLimit: opt(int, { default: 4096, identity: 'hashed' }),
  maxLineLength: opt(int, { default: 16_777_216, identity: 'hashed' }),
  streamPrefix: opt(str, { default: '[{job_name} {stream_name}] ', identity: 'hashed' }),
  concurrencyPolicy: opt(oneOf(['Allow', 'Forbid', 'Replace']), {
    default: 'Allow',
    identity: 'hashed',
  }),
  concurrencyScope: opt(oneOf(['node', 'cluster']), {
    default: 'node',
    identity: 'hashed-unless-default',
  }),
  clusterPolicy: opt(oneOf(['Leader', 'PreferLeader', 'EveryNode']), {
    default: 'Leader',
    identity: 'hashed',
  }),
  executionTimeout: opt(float, { default: null, identity: 'hashed' }),
  killTimeout: opt(float, { default: 30, identity: 'hashed' }),
  failsWhen: opt(FAILS_WHEN, { default: FROM_FIELDS, identity: 'hashed' }),
  onFailure: opt(
    map({
      retry: opt(RETRY, { default: FROM_FIELDS }),
      report: opt(REPORT, { default: FROM_FIELDS }),
    }),
    { default: FROM_FIELDS, identity: 'hashed' },
  ),
  onPermanentFailure: opt(map({ report: opt(REPORT, { default: FROM_FIELDS }) }), {
    default: FROM_FIELDS,
    identity: 'hashed',
  }),
  onSuccess: opt(map({ report: opt(REPORT, { default: FROM_FIELDS }) }), {
    default: FROM_FIELDS,
    identity: 'hashed',
  }),
  statsd: opt(map({ prefix: req(str), host: req(str), port: req(int) }), {
    default: null,
    identity: 'hashed',
  }),
  monitorResources: opt(
    either({ scalar: bool, map: MONITOR_RESOURCES_MAP, expected: 'a boolean or a mapping' }),
    { default: false, identity: 'excluded' },
  ),
  onMissed: opt(oneOf(['skip', 'run-once', 'run-all']), { default: 'skip', identity: 'excluded' }),
  startingDeadlineSeconds: opt(emptyNone(int), { default: null, identity: 'excluded' }),
  catchupJitterSeconds: opt(int, { default: 0, identity: 'excluded' }),
  onlyIfLastSucceeded: opt(bool, { default: false, identity: 'hashed' }),
  archiveOutput: opt(bool, { default: false, identity: 'excluded' }),
  redactArchivedSecrets: opt(bool, { default: true, identity: 'excluded' }),
  inheritSecretEnvVars: opt(bool, { default: false, identity: 'excluded' }),
} as const satisfies Record<string, JobRow>;

/**
 * The job keys a DAG task may set (docs/dags.md "Task keys"): how its process is launched. The
 * rows are the job's own, so a task key types, defaults and checks exactly like the job key.
 */
export const DAG_TASK_LAUNCH_FIELDS = {
  shell: COMMON_JOB_FIELDS.shell,
  environment: COMMON_JOB_FIELDS.environment,
  env_file: COMMON_JOB_FIELDS.env_file,
  captureStdout: COMMON_JOB_FIELDS.captureStdout,
  captureStderr: COMMON_JOB_FIELDS.captureStderr,
  monitorResources: COMMON_JOB_FIELDS.monitorResources,
  saveLimit: COMMON_JOB_FIELDS.saveLimit,
  maxLineLength: COMMON_JOB_FIELDS.maxLineLength,
  streamPrefix: COMMON_JOB_FIELDS.streamPrefix,
  failsWhen: COMMON_JOB_FIELDS.failsWhen,
  executionTimeout: COMMON_JOB_FIELDS.executionTimeout,
  killTimeout: COMMON_JOB_FIELDS.killTimeout,
  statsd: COMMON_JOB_FIELDS.statsd,
  user: COMMON_JOB_FIELDS.user,
  group: COMMON_JOB_FIELDS.group,
  secrets: COMMON_JOB_FIELDS.secrets,
  stateAllowedScopes: COMMON_JOB_FIELDS.stateAllowedScopes,
} as const satisfies Record<string, JobRow>;

/** The cron schedule key, on a job and on a DAG. */
export const SCHEDULE_FIELD = req(
  either({
    scalar: str,
    map: SCHEDULE_OBJECT,
    expected: 'a cron expression or a schedule mapping',
  }),
  { identity: 'custom' },
);

const JOB_FIELDS = {
  name: req(str, { identity: 'hashed' }),
  command: req(COMMAND, { identity: 'custom' }),
  schedule: SCHEDULE_FIELD,
  ...COMMON_JOB_FIELDS,
} as const satisfies Record<string, JobRow>;

export const JOB_SCHEMA = map(JOB_FIELDS);

const NOT_IN_DEFAULTS = 'defaults may not contain name, command or schedule';

export const DEFAULTS_SCHEMA = map({
  name: refused(NOT_IN_DEFAULTS),
  command: refused(NOT_IN_DEFAULTS),
  schedule: refused(NOT_IN_DEFAULTS),
  ...COMMON_JOB_FIELDS,
});

/** A job as written (typed, not yet merged with built-in defaults or checked). */
export type TypedJob = MapOut<typeof JOB_FIELDS>;
/** A `defaults` block as written (or several merged). */
export type TypedDefaults = MapOut<typeof COMMON_JOB_FIELDS>;

export type JobKey = keyof typeof JOB_FIELDS;
/** The keys whose identity is rendered by a rule of their own (fingerprint.ts). */
export type CustomIdentityKey = {
  [K in JobKey]: (typeof JOB_FIELDS)[K]['identity'] extends 'custom' ? K : never;
}[JobKey];

/** The built-in defaults of every job key, frozen, one shared object per platform. */
export type JobDefaults = DefaultsOf<typeof JOB_FIELDS>;

export function jobDefaults(platform: NodeJS.Platform): JobDefaults {
  return defaultsOf(JOB_SCHEMA, platform);
}
