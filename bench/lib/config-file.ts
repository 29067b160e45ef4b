// Generated YAML configs for the benchmarks: N jobs with a realistic mix of schedules and zones,
// or a burst of jobs that all fire in one given second. Text only; the daemon's loadConfig
// reads the files.
import { writeFileSync } from 'node:fs';

// Typical expressions; {m} and {h} vary per job so a large config has many distinct schedules
// (like a generated config would), not 8 shared ones.
const SCHEDULE_TEMPLATES = [
  '*/5 * * * *',
  '{m} {h} * * *',
  '0 0 13 * 5',
  '*/10 * * * * * *',
  '{m} */6 * * *',
  '{m} {h} * * 1-5',
  '@hourly',
  '{m} {h} 1 * *',
] as const;

// null = no timezone key (UTC, the default).
const TIMEZONES = [
  null,
  'America/New_York',
  'Europe/Berlin',
  null,
  'Asia/Tokyo',
  'Australia/Sydney',
  'America/Los_Angeles',
] as const;

/** The i-th job's schedule expression and zone of the mixed config (deterministic). */
export function mixedJobTiming(index: number): { schedule: string; timezone: string | null } {
  const template = SCHEDULE_TEMPLATES[index % SCHEDULE_TEMPLATES.length] ?? '* * * * *';
  const schedule = template
    .replace('{m}', String((index * 7) % 60))
    .replace('{h}', String((index * 5) % 24));
  const timezone = TIMEZONES[Math.floor(index / SCHEDULE_TEMPLATES.length) % TIMEZONES.length];
  return { schedule, timezone: timezone ?? null };
}

/** Writes a config of `count` jobs with mixed schedules and zones. */
export function writeMixedConfig(file: string, count: number): void {
  const lines = [`# ${count} generated jobs (bench/lib/config-file.ts)`, 'jobs:'];
  for (let index = 0; index < count; index++) {
    const { schedule, timezone } = mixedJobTiming(index);
    lines.push(`  - name: job-${index}`, `    command: echo job ${index}`);
    lines.push(`    schedule: "${schedule}"`);
    if (timezone !== null) lines.push(`    timezone: ${timezone}`);
  }
  writeFileSync(file, lines.join('\n') + '\n');
}

/** The 7-field UTC expression matching exactly the second starting at `epochMs`. */
export function exactSecondExpression(epochMs: number): string {
  const at = new Date(epochMs);
  return [
    at.getUTCSeconds(),
    at.getUTCMinutes(),
    at.getUTCHours(),
    at.getUTCDate(),
    at.getUTCMonth() + 1,
    '*',
    at.getUTCFullYear(),
  ].join(' ');
}

/**
 * The burst config: first a lone job `lone` firing every second, then `count` jobs `burst-<i>`
 * that all fire once, in the second starting at `burstAtMs`. Every job runs `true` with the
 * default capture settings (stderr captured, stdout inherited).
 */
export function writeBurstConfig(file: string, count: number, burstAtMs: number): void {
  const burstSchedule = exactSecondExpression(burstAtMs);
  const lines = ['jobs:', '  - name: lone', '    command: "true"', '    schedule: "* * * * * * *"'];
  for (let index = 0; index < count; index++) {
    lines.push(
      `  - name: burst-${index}`,
      '    command: "true"',
      `    schedule: "${burstSchedule}"`,
    );
  }
  writeFileSync(file, lines.join('\n') + '\n');
}

/**
 * `count` instants `spacingS` apart, the first at or after `fromS` (epoch s), all in one UTC
 * minute: writeLaunchConfig lists their seconds in one 7-field expression, which fires only in
 * the minute it names (instants past a minute boundary would never fire).
 */
export function instantsInOneMinute(fromS: number, count: number, spacingS: number): number[] {
  let first = fromS;
  const span = (count - 1) * spacingS;
  while (Math.floor(first / 60) !== Math.floor((first + span) / 60)) first++;
  return Array.from({ length: count }, (_, index) => first + index * spacingS);
}

/** The jobs of the launch group's config that fire together at every measured instant. */
export const LAUNCH_BURST_JOBS = 200;

export interface LaunchConfigOptions {
  /** All jobs, the LAUNCH_BURST_JOBS burst jobs included. */
  readonly jobs: number;
  /** The instants (epoch seconds, all in one UTC minute) at which the burst jobs fire. */
  readonly instantsS: readonly number[];
  /** A `state:` section with this store directory, or none. */
  readonly statePath: string | null;
}

/**
 * The launch group's config: LAUNCH_BURST_JOBS jobs `burst-<i>` printing `$EPOCHREALTIME` (bash,
 * stdout inherited, so the line shows when the command began) at each given instant, then idle
 * jobs up to `jobs` with the mixed zones and varied minutes/hours, in a month six months away
 * (nothing of them fires during a run, whatever the date).
 */
export function writeLaunchConfig(file: string, options: LaunchConfigOptions): void {
  const first = new Date((options.instantsS[0] ?? 0) * 1000);
  const seconds = options.instantsS.map((s) => new Date(s * 1000).getUTCSeconds()).join(',');
  const burstSchedule = [
    seconds,
    first.getUTCMinutes(),
    first.getUTCHours(),
    first.getUTCDate(),
    first.getUTCMonth() + 1,
    '*',
    first.getUTCFullYear(),
  ].join(' ');
  const idleMonth = ((first.getUTCMonth() + 6) % 12) + 1;
  const lines = ['jobs:'];
  for (let index = 0; index < LAUNCH_BURST_JOBS; index++) {
    lines.push(
      `  - name: burst-${index}`,
      '    command: echo "$EPOCHREALTIME"',
      '    shell: /bin/bash',
      `    schedule: "${burstSchedule}"`,
    );
  }
  for (let index = 0; index < options.jobs - LAUNCH_BURST_JOBS; index++) {
    const minute = (index * 7) % 60;
    const hour = (index * 5) % 24;
    const day = (index % 28) + 1;
    const schedule =
      index % 2 === 0
        ? `${minute} ${hour} ${day} ${idleMonth} *`
        : `${index % 60} ${minute} ${hour} ${day} ${idleMonth} * *`;
    const timezone = TIMEZONES[Math.floor(index / 2) % TIMEZONES.length];
    lines.push(`  - name: job-${index}`, `    command: echo job ${index}`);
    lines.push(`    schedule: "${schedule}"`);
    if (timezone !== null) lines.push(`    timezone: ${timezone}`);
  }
  if (options.statePath !== null) {
    lines.push('state:', `  path: ${JSON.stringify(options.statePath)}`);
  }
  writeFileSync(file, lines.join('\n') + '\n');
}

/**
 * The launch group's throughput config: `count` jobs printing `$EPOCHREALTIME` every second
 * (as in writeLaunchConfig).
 */
export function writeEverySecondConfig(file: string, count: number): void {
  const lines = ['jobs:'];
  for (let index = 0; index < count; index++) {
    lines.push(
      `  - name: tick-${index}`,
      '    command: echo "$EPOCHREALTIME"',
      '    shell: /bin/bash',
      '    schedule: "* * * * * * *"',
    );
  }
  writeFileSync(file, lines.join('\n') + '\n');
}
