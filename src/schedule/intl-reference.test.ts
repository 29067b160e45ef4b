// Test support for the schedule tests (no tests of its own; the .test.ts name keeps it out of
// the build): an Intl-only reference for zone arithmetic and a brute-force next fire that
// applies the documented DST rules tick by tick, independent of the engine's offset cache and
// field-skipping search.
import { parseSchedule, matchesAt, type Schedule } from './index.js';

const formatters = new Map<string, Intl.DateTimeFormat>();
const wallMatchers = new Map<string, Schedule>();

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timezone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timezone, formatter);
  }
  return formatter;
}

/** 'YYYY-MM-DDTHH:MM:SS' wall reading of an instant in a zone, straight from Intl. */
export function intlWall(timezone: string, epochMs: number): string {
  const parts: Record<string, string> = {};
  for (const part of formatterFor(timezone).formatToParts(epochMs)) parts[part.type] = part.value;
  const { year, month, day, hour, minute, second } = parts;
  return `${year}-${month}-${day}T${hour}:${minute}:${second}`;
}

const offsetMemo = new Map<string, number>();

/** Wall minus UTC (ms) at an instant, straight from Intl (memoised: sweeps ask repeatedly). */
export function intlOffsetMs(timezone: string, epochMs: number): number {
  const instant = Math.floor(epochMs / 1000) * 1000;
  const key = `${timezone} ${instant}`;
  let offset = offsetMemo.get(key);
  if (offset === undefined) {
    offset = Date.parse(`${intlWall(timezone, instant)}Z`) - instant;
    offsetMemo.set(key, offset);
  }
  return offset;
}

/**
 * The instant of a local 'YYYY-MM-DDTHH:MM:SS' in a zone; fold 0 = first of an ambiguous pair,
 * fold 1 = second (Python's datetime.fold). Throws for a wall time that does not exist.
 */
export function instantOfLocal(timezone: string, local: string, fold: 0 | 1): number {
  const asUtc = Date.parse(`${local}Z`);
  const found: number[] = [];
  for (let offsetMinutes = -14 * 60; offsetMinutes <= 14 * 60; offsetMinutes += 15) {
    const candidate = asUtc - offsetMinutes * 60_000;
    if (intlWall(timezone, candidate) === local) found.push(candidate);
  }
  found.sort((a, b) => a - b);
  const instant = fold === 1 ? found.at(-1) : found[0];
  if (instant === undefined) throw new Error(`${local} does not exist in ${timezone}`);
  return instant;
}

/** Parses 'YYYY-MM-DDTHH:MM:SS[.ffffff]' as UTC, keeping microseconds as a fraction of a ms. */
export function parseNaiveUtc(text: string): number {
  const match = /^([^.]+)(?:\.(\d+))?$/.exec(text);
  if (match === null) throw new Error(`bad timestamp ${text}`);
  const fraction = match[2] === undefined ? 0 : Number(`0.${match[2]}`) * 1000;
  return Date.parse(`${match[1]}Z`) + fraction;
}

const THREE_HOURS_MS = 3 * 3_600_000;

/**
 * Whether an instant is a fire of the expression in the zone under the documented rules:
 * its wall reading matches and is not the second pass of a repeated hour, or it lies within a
 * spring-forward gap's length after the jump and the skipped wall reading (read with the
 * pre-jump offset) matches.
 */
export function isFireInstant(expression: string, timezone: string, epochMs: number): boolean {
  // In UTC, matchesAt(schedule, wallMs) compares the fields of a wall reading.
  let wallMatcher = wallMatchers.get(expression);
  if (wallMatcher === undefined) {
    wallMatcher = parseSchedule(expression);
    wallMatchers.set(expression, wallMatcher);
  }
  const offset = intlOffsetMs(timezone, epochMs);
  const earlierOffset = intlOffsetMs(timezone, epochMs - THREE_HOURS_MS);
  const shift = offset - earlierOffset;
  const recentlyChanged =
    shift !== 0 && intlOffsetMs(timezone, epochMs - Math.abs(shift)) === earlierOffset;
  const repeated = recentlyChanged && shift < 0;
  const afterJump = recentlyChanged && shift > 0;
  if (!repeated && matchesAt(wallMatcher, epochMs + offset)) return true;
  return afterJump && matchesAt(wallMatcher, epochMs + earlierOffset);
}

/** First fire strictly after the reference (whole seconds), scanning tick by tick. */
export function bruteForceNextFire(
  expression: string,
  timezone: string,
  afterEpochMs: number,
  options: { readonly tickMs: number; readonly limitMs: number },
): number | null {
  const reference = Math.floor(afterEpochMs / 1000) * 1000;
  const first = Math.ceil((reference + 1000) / options.tickMs) * options.tickMs;
  for (let t = first; t <= reference + options.limitMs; t += options.tickMs) {
    if (isFireInstant(expression, timezone, t)) return t;
  }
  return null;
}

/** Instants (whole seconds) where the zone's offset changes during a UTC year, from Intl. */
export function intlTransitions(timezone: string, year: number): number[] {
  const transitions: number[] = [];
  const end = Date.UTC(year + 1, 0, 1);
  let previous = Date.UTC(year, 0, 1);
  let previousOffset = intlOffsetMs(timezone, previous);
  for (let t = previous + 86_400_000; t <= end; t += 86_400_000) {
    const offset = intlOffsetMs(timezone, t);
    if (offset !== previousOffset) {
      let low = previous;
      let high = t;
      while (high - low > 1000) {
        const middle = low + Math.floor((high - low) / 2000) * 1000;
        if (intlOffsetMs(timezone, middle) === previousOffset) low = middle;
        else high = middle;
      }
      transitions.push(high);
    }
    previous = t;
    previousOffset = offset;
  }
  return transitions;
}

/** Every fire instant in [startMs, endMs], found tick by tick under the documented rules. */
export function bruteForceFires(
  expression: string,
  timezone: string,
  startMs: number,
  endMs: number,
  tickMs: number,
): number[] {
  const fires: number[] = [];
  for (let t = Math.ceil(startMs / tickMs) * tickMs; t <= endMs; t += tickMs) {
    if (isFireInstant(expression, timezone, t)) fires.push(t);
  }
  return fires;
}
