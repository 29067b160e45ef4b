// PLACEHOLDER door of the pure cron engine; the schedule/ implementation replaces this file.
export interface Schedule {
  readonly expression: string;
  readonly timezone: string;
  readonly hasSeconds: boolean;
}
export declare function parseSchedule(
  expression: string,
  options?: { timezone?: string },
): Schedule;
export declare function nextFireTime(schedule: Schedule, afterEpochMs: number): number | null;
export declare function matchesAt(schedule: Schedule, epochMs: number): boolean;
export declare function schedulesEqual(a: Schedule, b: Schedule): boolean;
