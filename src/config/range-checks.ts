// The numeric range checks of docs/configuration.md "Load-time checks" (plus finiteness of
// durations and sane ports), run on a merged typed job; the first failure is returned, located
// where the value was written.
import type { ConfigIssue, Loc } from './issues.js';
import { JOB_SCHEMA, type TypedJob } from './job-schema.js';
import type { TypedReport } from './report-schema.js';

type Where = (container: object | undefined, key: string, parentPath?: string) => Loc;
type JobIssue = (loc: Loc, message: string) => ConfigIssue;

interface RangeRule {
  readonly container: object | undefined;
  readonly key: string;
  readonly label: string;
  readonly value: number | null | undefined;
  readonly ok: (value: number) => boolean;
  readonly requirement: string;
}

/**
 * The range checks of docs/configuration.md "Job keys" in order, plus finiteness of durations and
 * sane port numbers.
 */
export function checkRanges(
  job: TypedJob,
  where: Where,
  jobIssue: JobIssue,
): ConfigIssue | undefined {
  const finite = Number.isFinite;
  const retry = job.onFailure?.retry;
  const monitor = typeof job.monitorResources === 'object' ? job.monitorResources : undefined;
  const rules: RangeRule[] = [
    rule(job, 'saveLimit', job.saveLimit, (v) => v >= 0, '>= 0'),
    rule(job, 'maxLineLength', job.maxLineLength, (v) => v > 0, '> 0'),
    rule(job, 'killTimeout', job.killTimeout, (v) => v >= 0 && finite(v), 'a finite number >= 0'),
    rule(
      job,
      'executionTimeout',
      job.executionTimeout,
      (v) => v > 0 && finite(v),
      'a finite number > 0',
    ),
    rule(job, 'catchupJitterSeconds', job.catchupJitterSeconds, (v) => v >= 0, '>= 0'),
    rule(job, 'startingDeadlineSeconds', job.startingDeadlineSeconds, (v) => v > 0, '> 0'),
    rule(
      retry,
      'maximumRetries',
      retry?.maximumRetries,
      (v) => v >= -1,
      '>= -1',
      'onFailure.retry',
    ),
    rule(
      retry,
      'initialDelay',
      retry?.initialDelay,
      (v) => v >= 0 && finite(v),
      'a finite number >= 0',
      'onFailure.retry',
    ),
    rule(
      retry,
      'maximumDelay',
      retry?.maximumDelay,
      (v) => v > 0 && finite(v),
      'a finite number > 0',
      'onFailure.retry',
    ),
    rule(
      retry,
      'backoffMultiplier',
      retry?.backoffMultiplier,
      (v) => v > 0 && finite(v),
      'a finite number > 0',
      'onFailure.retry',
    ),
    rule(
      monitor,
      'interval',
      monitor?.interval,
      (v) => v >= 0.1 && finite(v),
      'a finite number >= 0.1',
      'monitorResources',
    ),
    rule(
      monitor,
      'history',
      monitor?.history,
      (v) => v >= 0 && v <= 2000,
      'between 0 and 2000',
      'monitorResources',
    ),
    rule(job.statsd, 'port', job.statsd?.port, isPort, 'between 1 and 65535', 'statsd'),
  ];
  for (const [hook, block] of [
    ['onFailure', job.onFailure?.report],
    ['onPermanentFailure', job.onPermanentFailure?.report],
    ['onSuccess', job.onSuccess?.report],
  ] as const) {
    rules.push(...reportRules(`${hook}.report`, block));
  }
  for (const check of rules) {
    if (check.value === undefined || check.value === null || check.ok(check.value)) continue;
    return jobIssue(
      where(check.container, check.key),
      `${check.label} must be ${check.requirement}, found ${check.value}`,
    );
  }
  const policy = job.concurrencyPolicy ?? JOB_SCHEMA.fields.concurrencyPolicy.default;
  if (job.concurrencyScope === 'cluster' && policy === 'Allow') {
    return jobIssue(
      where(job, 'concurrencyScope'),
      'concurrencyScope cluster needs concurrencyPolicy Forbid or Replace, not Allow',
    );
  }
  return undefined;
}

function isPort(value: number): boolean {
  return value >= 1 && value <= 65535;
}

function reportRules(prefix: string, block: TypedReport | undefined): RangeRule[] {
  if (block === undefined) return [];
  return [
    rule(
      block.mail,
      'smtpPort',
      block.mail?.smtpPort,
      isPort,
      'between 1 and 65535',
      `${prefix}.mail`,
    ),
    rule(
      block.webhook,
      'timeout',
      block.webhook?.timeout,
      (v) => v > 0 && Number.isFinite(v),
      'a finite number > 0',
      `${prefix}.webhook`,
    ),
  ];
}

function rule(
  container: object | undefined,
  key: string,
  value: number | null | undefined,
  ok: (value: number) => boolean,
  requirement: string,
  parent?: string,
): RangeRule {
  return {
    container,
    key,
    label: parent === undefined ? key : `${parent}.${key}`,
    value,
    ok,
    requirement,
  };
}
