// One typed job (+ its file's defaults layer) → a frozen, fully defaulted ResolvedJob. Checks run
// in the spec's order — schedule, timezone, secrets, env_file, user/group, numeric ranges — and
// the first failure is the job's one issue (docs/configuration.md "Load-time checks").
import * as path from 'node:path';
import { deepFreeze, describeError, isYacronError, type ErrorCode } from '../common/index.js';
import {
  collapseScheduleWhitespace,
  renderScheduleObject,
  type Schedule,
} from '../schedule/index.js';
import { identityEnvFileNames, parseEnvFile } from './env-file.js';
import { canonicalJobText, jobDigestOf } from './fingerprint.js';
import { buildResolvedJob } from './job-values.js';
import { checkJobName } from './job-name.js';
import { checkRanges } from './range-checks.js';
import { resolveIdentity, type IdentityDatabase, type ResolvedIdentity } from './identity.js';
import { childPath, type ConfigIssue, type Loc, type LocTable } from './issues.js';
import { jobDefaults, type TypedDefaults, type TypedJob } from './job-schema.js';
import { mergeLayer } from './merge.js';
import { resolveSecretSource } from './reports.js';
import type { EnvironmentEntry, JobSchedule, JobSecret, ResolvedJob } from './types.js';

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
  /** Diagnostics: each job's canonical identity text (LoadConfigOptions.onJobIdentity). */
  readonly onJobIdentity: ((jobName: string, canonicalText: string) => void) | undefined;
}

export interface JobDraft {
  readonly typed: TypedJob;
  /** Merged `defaults` of the job's own file and its includes; null for crontab entries. */
  readonly layer: TypedDefaults | null;
  readonly loc: Loc;
}

export async function resolveJob(
  draft: JobDraft,
  services: ResolveServices,
): Promise<ResolvedJob | ConfigIssue> {
  const { locs } = services;
  const job = draft.layer === null ? draft.typed : mergeLayer(draft.layer, draft.typed, locs);
  const { name } = job;
  const where = (container: object | undefined, key: string, parentPath = draft.loc.path): Loc =>
    locs.at(container, key, { ...draft.loc, path: childPath(parentPath, key) });
  const issue = (loc: Loc, message: string): ConfigIssue => ({ ...loc, message });
  const jobIssue = (loc: Loc, message: string): ConfigIssue =>
    issue(loc, `Job ${name}: ${message}`);

  // 0. The name itself (this project's rule: docs/deviations.md).
  const nameProblem = checkJobName(name);
  if (nameProblem !== undefined) return issue(where(job, 'name'), nameProblem);

  // 1-2. Schedule, then timezone.
  const utc = job.utc ?? jobDefaults(services.platform).utc;
  const timezone = job.timezone !== undefined ? job.timezone : utc ? 'UTC' : null;
  const scheduled = resolveSchedule(job.schedule, timezone, services);
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
  let envFileNames: readonly string[] = [];
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
    envFileNames = identityEnvFileNames(read.text, parsed.entries);
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

  const inline = job.environment ?? [];
  const environment =
    fileEntries.length === 0 && inline.length === 0
      ? []
      : dedupeBy(
          [...fileEntries, ...dedupeBy(inline, (entry) => entry.key)],
          (entry) => entry.key,
        ).map(({ key, value }) => ({ key, value }));

  const canonical = canonicalJobText(job, { envFileNames, platform: services.platform });
  services.onJobIdentity?.(name, canonical);
  const schedule = scheduled.schedule;
  // Freeze the schedule wrapper shallowly first: the compiled Schedule inside belongs to the
  // schedule module (it may be shared between jobs and keep caches), so deepFreeze stops there.
  Object.freeze(schedule);
  return deepFreeze(
    buildResolvedJob(
      job,
      {
        schedule,
        timezone,
        environment,
        uid: identity.uid,
        gid: identity.gid,
        userName: identity.userName,
        secrets,
        digest: jobDigestOf(canonical),
        source: { file: draft.loc.file, line: draft.loc.line },
      },
      services.platform,
    ),
  );
}

const REBOOT: JobSchedule = Object.freeze({ kind: 'reboot', text: '@reboot' });

/**
 * The one `cron` wrapper per compiled schedule: a memo with no behaviour (the wrapper is frozen
 * and derived from the schedule alone), weak so it goes with the configuration that built it.
 */
const cronByCompiled = new WeakMap<Schedule, JobSchedule>();

export type ScheduleResult =
  | { readonly schedule: JobSchedule }
  | { readonly error: string; readonly field: 'schedule' | 'timezone' };

function errorCode(error: unknown): ErrorCode | undefined {
  return isYacronError(error) ? error.code : undefined;
}

/** A job's (or a DAG's) `schedule` in its frame; the timezone is checked too. */
export function resolveSchedule(
  raw: TypedJob['schedule'],
  timezone: string | null,
  services: ResolveServices,
): ScheduleResult {
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
  if (raw === '@reboot') return checkTimezone() ?? { schedule: REBOOT };
  let text: string;
  try {
    text = collapseScheduleWhitespace(typeof raw === 'string' ? raw : renderScheduleObject(raw));
  } catch (error) {
    return { error: describeError(error), field: 'schedule' };
  }
  const effectiveZone = timezone ?? services.localTimezone();
  try {
    const schedule = services.parseSchedule(text, effectiveZone);
    // Jobs with the same expression and zone share the compiled schedule (parseSchedule's cache),
    // and so the frozen wrapper and its text too (docs/performance.md "Memory").
    let cron = cronByCompiled.get(schedule);
    if (cron === undefined) {
      cron = { kind: 'cron', text, schedule, secondGranularity: text.split(' ').length === 7 };
      cronByCompiled.set(schedule, cron);
    }
    return { schedule: cron };
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

/** Later entries win; the position is the first occurrence's (dict semantics). */
function dedupeBy<T>(items: readonly T[], keyOf: (item: T) => string): T[] {
  const byKey = new Map<string, T>();
  for (const item of items) byKey.set(keyOf(item), item);
  return [...byKey.values()];
}
