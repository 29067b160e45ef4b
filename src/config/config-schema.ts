// The config language's shape (spec/config.md §2, §5, §7, §9-§11) as schema-walker values,
// plus the one table of top-level sections that are not implemented yet.
import type { FieldSpec, Schema } from './schema.js';

const str: Schema = { kind: 'str' };
const bool: Schema = { kind: 'bool' };
const int: Schema = { kind: 'int' };
const float: Schema = { kind: 'float' };
const emptyOrStr: Schema = { kind: 'emptyNone', inner: str };
const emptyOrInt: Schema = { kind: 'emptyNone', inner: int };
const intOrStr: Schema = { kind: 'intOrStr' };
const strList: Schema = { kind: 'seq', item: str };

function opt(schema: Schema): FieldSpec {
  return { schema };
}
function req(schema: Schema): FieldSpec {
  return { schema, required: true };
}
function map(fields: Record<string, FieldSpec>): Schema {
  return { kind: 'map', fields };
}
function oneOf(values: readonly string[]): Schema {
  return { kind: 'enum', values };
}

/** A command: a string for the shell, or a list exec'd directly. */
const command: Schema = {
  kind: 'either',
  scalar: str,
  seq: strList,
  expected: 'a string or a list of strings',
};

/** `value` / `fromFile` / `fromEnvVar`, each possibly empty. */
const secretSource = map({
  value: opt(emptyOrStr),
  fromFile: opt(emptyOrStr),
  fromEnvVar: opt(emptyOrStr),
});

const sentry = map({
  dsn: opt(secretSource),
  fingerprint: opt(strList),
  level: opt(emptyOrStr),
  extra: opt({ kind: 'mapOf', value: { kind: 'scalarValue' } }),
  body: opt(str),
  environment: opt(emptyOrStr),
  maxStringLength: opt(int),
});

// `from`/`to` are optional keys here although the reference requires both whenever a mail block
// is written: it lets a job set only `to` and inherit `from` from defaults (config.md §6.2).
const mail = map({
  from: opt(emptyOrStr),
  to: opt(emptyOrStr),
  smtpHost: opt(emptyOrStr),
  smtpPort: opt(int),
  tls: opt(bool),
  starttls: opt(bool),
  validate_certs: opt(bool),
  username: opt(emptyOrStr),
  password: opt(secretSource),
  subject: opt(str),
  body: opt(str),
  html: opt(bool),
});

const shellReport = map({
  command: req({ kind: 'emptyNone', inner: command }),
  shell: opt(str),
});

const webhook = map({
  url: opt(secretSource),
  method: opt(str),
  contentType: opt(str),
  headers: opt({ kind: 'mapOf', value: str }),
  body: opt(str),
  timeout: opt(float),
});

const report = map({
  sentry: opt(sentry),
  mail: opt(mail),
  shell: opt(shellReport),
  webhook: opt(webhook),
});

const retry = map({
  maximumRetries: req(int),
  initialDelay: req(float),
  maximumDelay: req(float),
  backoffMultiplier: req(float),
});

const monitorResources: Schema = {
  kind: 'either',
  scalar: bool,
  map: map({ enabled: opt(bool), interval: opt(float), history: opt(int) }),
  expected: 'a boolean or a mapping',
};

/** Keys legal both on a job and in `defaults` (config.md §5). */
const COMMON_JOB_FIELDS: Record<string, FieldSpec> = {
  shell: opt(str),
  enabled: opt(bool),
  environment: opt({ kind: 'seq', item: map({ key: req(str), value: req(str) }) }),
  env_file: opt(str),
  user: opt(intOrStr),
  group: opt(intOrStr),
  secrets: opt({
    kind: 'seq',
    item: map({
      name: req(str),
      value: opt(emptyOrStr),
      fromFile: opt(emptyOrStr),
      fromEnvVar: opt(emptyOrStr),
    }),
  }),
  stateAllowedScopes: opt(strList),
  utc: opt(bool),
  timezone: opt(str),
  captureStdout: opt(bool),
  captureStderr: opt(bool),
  saveLimit: opt(int),
  maxLineLength: opt(int),
  streamPrefix: opt(str),
  concurrencyPolicy: opt(oneOf(['Allow', 'Forbid', 'Replace'])),
  concurrencyScope: opt(oneOf(['node', 'cluster'])),
  clusterPolicy: opt(oneOf(['Leader', 'PreferLeader', 'EveryNode'])),
  executionTimeout: opt(float),
  killTimeout: opt(float),
  failsWhen: opt(
    map({
      producesStdout: req(bool),
      producesStderr: opt(bool),
      nonzeroReturn: opt(bool),
      always: opt(bool),
    }),
  ),
  onFailure: opt(map({ retry: opt(retry), report: opt(report) })),
  onPermanentFailure: opt(map({ report: opt(report) })),
  onSuccess: opt(map({ report: opt(report) })),
  statsd: opt(map({ prefix: req(str), host: req(str), port: req(int) })),
  monitorResources: opt(monitorResources),
  onMissed: opt(oneOf(['skip', 'run-once', 'run-all'])),
  startingDeadlineSeconds: opt(emptyOrInt),
  catchupJitterSeconds: opt(int),
  onlyIfLastSucceeded: opt(bool),
  archiveOutput: opt(bool),
  redactArchivedSecrets: opt(bool),
};

const scheduleObject = map({
  second: opt(str),
  minute: opt(str),
  hour: opt(str),
  dayOfMonth: opt(str),
  month: opt(str),
  dayOfWeek: opt(str),
  year: opt(str),
});

export const JOB_SCHEMA: Schema = map({
  name: req(str),
  command: req(command),
  schedule: req({
    kind: 'either',
    scalar: str,
    map: scheduleObject,
    expected: 'a cron expression or a schedule mapping',
  }),
  ...COMMON_JOB_FIELDS,
});

const NOT_IN_DEFAULTS = 'defaults may not contain name, command or schedule';

export const DEFAULTS_SCHEMA: Schema = map({
  name: { schema: str, refuse: NOT_IN_DEFAULTS },
  command: { schema: str, refuse: NOT_IN_DEFAULTS },
  schedule: { schema: str, refuse: NOT_IN_DEFAULTS },
  ...COMMON_JOB_FIELDS,
});

export const INCLUDE_SCHEMA: Schema = strList;

/** Python dictConfig: `version` is checked, the rest is passed through (config.md §11). */
export const LOGGING_SCHEMA: Schema = map({
  version: req(int),
  incremental: opt(bool),
  disable_existing_loggers: opt(bool),
  formatters: opt({ kind: 'any' }),
  filters: opt({ kind: 'any' }),
  handlers: opt({ kind: 'any' }),
  loggers: opt({ kind: 'any' }),
  root: opt({ kind: 'any' }),
});

/** Top-level keys (config.md §2). */
export const TOP_LEVEL_KEYS = [
  'defaults',
  'jobs',
  'include',
  'logging',
  'web',
  'dags',
  'cluster',
  'state',
] as const;

/** Top-level sections of which the whole config may hold at most one. */
export const SINGLETON_SECTIONS = ['logging', 'web', 'cluster', 'state'] as const;
export type SingletonSection = (typeof SINGLETON_SECTIONS)[number];

/**
 * Sections not implemented yet: a config using one is refused with a clear message instead of
 * being half-honoured. To enable a section, remove it here and give it a schema in file-unit.ts.
 * (`cluster` is typed and validated in full, then refused by the loader unless the caller accepts
 * it: see LoadConfigOptions.acceptClusterSection.)
 */
export const UNSUPPORTED_SECTIONS: ReadonlySet<string> = new Set(['dags']);

export function unsupportedSectionMessage(section: string): string {
  return `the '${section}' section is not supported yet`;
}
