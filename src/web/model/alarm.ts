// The failure alarm (docs/dashboard.md "Alarm escalation"): which failing jobs the viewer has not
// acknowledged yet, since when, and how many standing-alarm tones are due. A job counts from the
// snapshot in which this page first saw it failing; acknowledging (`a`) covers every job failing
// then, so only a job that starts failing afterwards raises the alarm again; a job that recovers
// (or is disabled, or leaves the config) leaves both sets. Pure; ui/alerts/standing-alarm.ts
// feeds it the job snapshots and the clock.
// Must not: keep a name that no longer fails (both maps are bounded by the job list).
import type { JobWire } from './api-types.js';

export interface AlarmMemory {
  /** Failing job → when this page first saw it failing (ms). */
  readonly failSince: ReadonlyMap<string, number>;
  /** Failing jobs the viewer acknowledged. */
  readonly acknowledged: ReadonlySet<string>;
  /** When the newest unacknowledged failure appeared: the standing alarm's tones count from it. */
  readonly armedMs: number | null;
}

export type AlarmState =
  | { readonly kind: 'idle' }
  | {
      readonly kind: 'active';
      /** When the oldest unacknowledged failure was first seen. */
      readonly sinceMs: number;
      readonly unacknowledged: readonly string[];
    }
  | { readonly kind: 'acknowledged'; readonly sinceMs: number; readonly failing: number };

export const NO_ALARM: AlarmMemory = {
  failSince: new Map(),
  acknowledged: new Set(),
  armedMs: null,
};

/** The standing alarm sounds a tone this often while a failure goes unacknowledged… */
export const ALARM_TONE_EVERY_MS = 6000;
/** …at most this many times for the newest failure (two minutes), then keeps quiet. */
export const ALARM_TONE_MAX = 20;

/** The jobs that count as failing: enabled, with a failed last run (a re-run still counts). */
export function failingJobs(jobs: readonly JobWire[]): string[] {
  return jobs
    .filter((job) => job.enabled && job.last_run?.outcome === 'failure')
    .map((job) => job.name);
}

/** The memory after a snapshot in which `failing` are the failing jobs. */
export function observeFailures(
  memory: AlarmMemory,
  failing: readonly string[],
  nowMs: number,
): AlarmMemory {
  const failSince = new Map<string, number>();
  let armedMs = memory.armedMs;
  for (const name of failing) {
    const since = memory.failSince.get(name);
    failSince.set(name, since ?? nowMs);
    if (since === undefined) armedMs = nowMs;
  }
  const acknowledged = new Set([...memory.acknowledged].filter((name) => failSince.has(name)));
  if (failSince.size === acknowledged.size) armedMs = null;
  return { failSince, acknowledged, armedMs };
}

/** Acknowledges every job failing now. */
export function acknowledge(memory: AlarmMemory): AlarmMemory {
  return {
    failSince: memory.failSince,
    acknowledged: new Set(memory.failSince.keys()),
    armedMs: null,
  };
}

export function alarmState(memory: AlarmMemory): AlarmState {
  if (memory.failSince.size === 0) return { kind: 'idle' };
  const unacknowledged = [...memory.failSince.keys()]
    .filter((name) => !memory.acknowledged.has(name))
    .sort();
  const since = (names: Iterable<string>): number =>
    Math.min(...[...names].map((name) => memory.failSince.get(name) ?? Infinity));
  return unacknowledged.length === 0
    ? {
        kind: 'acknowledged',
        sinceMs: since(memory.failSince.keys()),
        failing: memory.failSince.size,
      }
    : { kind: 'active', sinceMs: since(unacknowledged), unacknowledged };
}

/** How many standing-alarm tones are due by `nowMs` (the first at once, capped). */
export function tonesDue(memory: AlarmMemory, nowMs: number): number {
  if (memory.armedMs === null) return 0;
  const elapsed = Math.max(0, nowMs - memory.armedMs);
  return Math.min(ALARM_TONE_MAX, Math.floor(elapsed / ALARM_TONE_EVERY_MS) + 1);
}
