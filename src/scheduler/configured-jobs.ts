// The configured job set as the loop holds it: one ConfiguredJob per name (its config, its config
// order and its node in the next-fire heap), built from a resolved config, plus the helpers the
// loop applies to it (first fires of the start-up pass, config-order sorting of a due batch,
// "does a reload keep this job's pending fire"). No timers, no clock reads.
import type { ResolvedConfig, ResolvedJob } from '../config/index.js';
import { nextFireTime, schedulesEqual, type Schedule } from '../schedule/index.js';
import type { FireNode } from './fire-heap.js';

/** A configured job, and its node in the next-fire heap (one object per job, nothing else). */
export class ConfiguredJob implements FireNode {
  // NaN, not 0: the field holds a double from the start, so writing an epoch instant (not a small
  // integer) does not change the field's representation and migrate all 100k objects.
  atMs = Number.NaN;
  heapIndex = -1;
  constructor(
    readonly job: ResolvedJob,
    public order: number,
  ) {}
}

/**
 * The config's jobs by name, in config order. Duplicate names: the later definition wins
 * (docs/configuration.md), at its own position. One pass; only a config with duplicates pays for
 * renumbering (orders must stay dense and in map order).
 */
export function indexJobs(config: ResolvedConfig): Map<string, ConfiguredJob> {
  const jobs = new Map<string, ConfiguredJob>();
  let duplicates = false;
  for (const job of config.jobs) {
    if (jobs.delete(job.name)) duplicates = true;
    jobs.set(job.name, new ConfiguredJob(job, jobs.size));
  }
  if (duplicates) {
    let order = 0;
    for (const entry of jobs.values()) entry.order = order++;
  }
  return jobs;
}

/**
 * The start-up pass's seeding: every enabled cron job's first fire strictly after `nowMs` (set on
 * its entry), and the entries that have one. Jobs with the same expression and zone share one
 * parsed Schedule (the config loader caches them), so large configs compute each distinct first
 * fire once.
 */
export function seedFirstFires(jobs: Iterable<ConfiguredJob>, nowMs: number): ConfiguredJob[] {
  const seeded: ConfiguredJob[] = [];
  const firstFires = new Map<Schedule, number | null>();
  for (const entry of jobs) {
    const { job } = entry;
    if (!job.enabled || job.schedule.kind !== 'cron') continue;
    const { schedule } = job.schedule;
    let atMs = firstFires.get(schedule);
    if (atMs === undefined) {
      atMs = nextFireTime(schedule, nowMs);
      firstFires.set(schedule, atMs);
    }
    if (atMs === null) continue;
    entry.atMs = atMs;
    seeded.push(entry);
  }
  return seeded;
}

/**
 * Entries in config order. A burst sorts a thousand entries on a wake whose code is still cold,
 * where a comparator sort costs ~0.5 ms: large lists sort (order, index) keys packed into a
 * Float64Array with the engine's native numeric sort instead.
 */
export function sortByOrder(entries: ConfiguredJob[]): ConfiguredJob[] {
  if (entries.length < 64) return entries.sort((a, b) => a.order - b.order);
  // order * scale + index is an exact double while order * scale < 2^53, e.g. orders below 2^33
  // with a million due entries: far beyond any config.
  const scale = 2 ** (32 - Math.clz32(entries.length));
  const keys = new Float64Array(entries.length);
  for (let index = 0; index < entries.length; index++) {
    keys[index] = (entries[index] as ConfiguredJob).order * scale + index;
  }
  keys.sort();
  const sorted = new Array<ConfiguredJob>(entries.length);
  for (let index = 0; index < keys.length; index++) {
    sorted[index] = entries[(keys[index] as number) % scale] as ConfiguredJob;
  }
  return sorted;
}

/** Same schedule sets and the same zone: a reload keeps the pending next fire. */
export function sameCronTiming(before: ResolvedJob, after: ResolvedJob): boolean {
  return (
    before.enabled &&
    before.schedule.kind === 'cron' &&
    after.schedule.kind === 'cron' &&
    before.timezone === after.timezone &&
    schedulesEqual(before.schedule.schedule, after.schedule.schedule)
  );
}
