// Schedule previews for the Schedule tab and the cron sandbox (docs/dashboard.md): the repo's own
// schedule engine (src/schedule, bundled into the page) validates the expression and computes the
// next fires in the job's zone, so the page and the daemon agree fire for fire; each fire carries
// a daylight-saving note when a clock change shifts or repeats it (docs/schedules.md
// "Daylight-saving rules"). Pure: the caller passes the instant to count from.
import { describeError } from '../../common/errors.js';
import {
  matchesAt,
  nextFireTime,
  parseSchedule,
  wallTimeAt,
  type Schedule,
} from '../../schedule/index.js';
import { describeCron } from './cron-english.js';
import { pad2 } from './format.js';

export interface FirePreview {
  readonly atMs: number;
  /** `2026-03-08 03:30:00` on the zone's wall clock. */
  readonly wall: string;
  /** `UTC-04:00`. */
  readonly offset: string;
  /** Why this fire is special (clock change, shifted or repeated wall time), else null. */
  readonly dstNote: string | null;
}

export type SchedulePreview =
  | { readonly kind: 'reboot'; readonly english: string }
  | { readonly kind: 'invalid'; readonly error: string }
  | {
      readonly kind: 'ok';
      readonly english: string | null;
      readonly timezone: string;
      readonly hasSeconds: boolean;
      readonly fires: readonly FirePreview[];
      /** No fire at all before the engine's horizon (end of 2099). */
      readonly impossible: boolean;
      /** The zone changes its offset during the year (fires keep their wall time). */
      readonly zoneHasDst: boolean;
    };

export function formatOffset(offsetMs: number): string {
  const minutes = Math.round(Math.abs(offsetMs) / 60_000);
  return `UTC${offsetMs < 0 ? '-' : '+'}${pad2(Math.floor(minutes / 60))}:${pad2(minutes % 60)}`;
}

export function formatWall(timezone: string, atMs: number): string {
  const w = wallTimeAt(timezone, atMs);
  return `${w.year}-${pad2(w.month)}-${pad2(w.day)} ${pad2(w.hour)}:${pad2(w.minute)}:${pad2(w.second)}`;
}

/** Parses and previews `count` fires after `fromMs` in `timezone` ('UTC' or an IANA name). */
export function previewSchedule(
  expression: string,
  timezone: string,
  fromMs: number,
  count: number,
): SchedulePreview {
  if (expression.trim().toLowerCase() === '@reboot') {
    return { kind: 'reboot', english: describeCron('@reboot') ?? '' };
  }
  let schedule: Schedule;
  try {
    schedule = parseSchedule(expression, { timezone });
  } catch (error) {
    return { kind: 'invalid', error: describeError(error) };
  }
  const fires: FirePreview[] = [];
  let after = fromMs;
  let previousOffset = wallTimeAt(schedule.timezone, fromMs).offsetMs;
  for (let i = 0; i < count; i++) {
    const at = nextFireTime(schedule, after);
    if (at === null) break;
    const wall = wallTimeAt(schedule.timezone, at);
    fires.push({
      atMs: at,
      wall: formatWall(schedule.timezone, at),
      offset: formatOffset(wall.offsetMs),
      dstNote: dstNote(schedule, at, wall.offsetMs, previousOffset),
    });
    previousOffset = wall.offsetMs;
    after = at;
  }
  return {
    kind: 'ok',
    english: describeCron(expression),
    timezone: schedule.timezone,
    hasSeconds: schedule.hasSeconds,
    fires,
    impossible: fires.length === 0,
    zoneHasDst: zoneHasDst(schedule.timezone, fromMs),
  };
}

function dstNote(
  schedule: Schedule,
  atMs: number,
  offsetMs: number,
  previousOffsetMs: number,
): string | null {
  const notes: string[] = [];
  if (!matchesAt(schedule, atMs)) {
    const wall = wallTimeAt(schedule.timezone, atMs);
    notes.push(
      `the scheduled wall time does not exist this day (clocks spring forward), so it fires at ${pad2(wall.hour)}:${pad2(wall.minute)} instead`,
    );
  } else if (repeatsLater(schedule.timezone, atMs, offsetMs)) {
    notes.push(
      'this wall time happens twice this day (clocks fall back): it fires on the first pass only',
    );
  }
  if (offsetMs !== previousOffsetMs) {
    notes.push(
      `clocks changed since the previous fire (${formatOffset(previousOffsetMs)} → ${formatOffset(offsetMs)})`,
    );
  }
  return notes.length === 0 ? null : notes.join('; ');
}

/** Whether the wall time at atMs comes round again once the clocks go back. */
function repeatsLater(timezone: string, atMs: number, offsetMs: number): boolean {
  const later = wallTimeAt(timezone, atMs + 3 * 3_600_000).offsetMs;
  const back = offsetMs - later;
  if (back <= 0) return false;
  return formatWall(timezone, atMs + back) === formatWall(timezone, atMs);
}

/** Whether the zone's offset differs anywhere in the year from fromMs (sampled monthly). */
function zoneHasDst(timezone: string, fromMs: number): boolean {
  const first = wallTimeAt(timezone, fromMs).offsetMs;
  for (let month = 1; month <= 12; month++) {
    if (wallTimeAt(timezone, fromMs + month * 30 * 86_400_000).offsetMs !== first) return true;
  }
  return false;
}
