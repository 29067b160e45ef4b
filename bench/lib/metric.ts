// The one output format of `npm run bench`: a JSON object per metric, with its target and
// whether the target was met. Never invents a number: an unmeasurable metric has value null and
// a reason.
import { loadavg } from 'node:os';

/** A target from the issue: the value must be >= or <= `value`. */
export interface Target {
  readonly op: '>=' | '<=';
  readonly value: number;
}

export interface MetricLine {
  readonly name: string;
  readonly value: number | null;
  readonly unit: string;
  readonly target?: number;
  readonly targetOp?: Target['op'];
  /** null when the value could not be measured. */
  readonly targetMet?: boolean | null;
  readonly reason?: string;
  readonly [detail: string]: unknown;
}

export function meetsTarget(value: number, target: Target): boolean {
  return target.op === '>=' ? value >= target.value : value <= target.value;
}

/**
 * A metric line: name, value, unit, then the target fields (when the issue sets a target), then
 * the details, then the 1-minute load average so a noisy run is recognisable.
 */
export function metricLine(
  name: string,
  value: number | null,
  unit: string,
  target: Target | null,
  details: Readonly<Record<string, unknown>> = {},
): MetricLine {
  const measured = value !== null && Number.isFinite(value);
  const targetFields =
    target === null
      ? {}
      : {
          target: target.value,
          targetOp: target.op,
          targetMet: measured ? meetsTarget(value, target) : null,
        };
  const reason = measured || 'reason' in details ? {} : { reason: 'no finite sample' };
  return {
    name,
    value: measured ? value : null,
    unit,
    ...targetFields,
    ...reason,
    ...details,
    loadAvg1m: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  };
}

/** A metric that could not be measured: value null and why. */
export function unmeasured(
  name: string,
  unit: string,
  target: Target | null,
  reason: string,
): MetricLine {
  return metricLine(name, null, unit, target, { reason });
}
