// `yacron2 next`: prints the next fire times of an expression, in the schedule's zone and in
// UTC. Reads no clock: the caller passes the current time as nowMs.
import { describeError } from '../../common/index.js';
import { nextFireTime, parseSchedule, wallTimeAt, type Schedule } from '../../schedule/index.js';
import type { CommandIo } from '../io.js';

export interface NextOptions {
  readonly expression: string;
  /** IANA zone; default 'UTC'. */
  readonly tz?: string;
  /** ISO 8601 instant with a zone designator; default nowMs. */
  readonly from?: string;
  readonly count: number;
  /** The current time, used when from is absent. */
  readonly nowMs?: number;
}

const PREFIX = 'yacron2 next: ';

/** Commands share an async signature; this one does no I/O that waits. */
export function runNext(options: NextOptions, io: CommandIo): Promise<number> {
  return Promise.resolve(printNextFires(options, io));
}

function printNextFires(options: NextOptions, io: CommandIo): number {
  if (options.expression.trim().toLowerCase() === '@reboot') {
    io.stdout('@reboot is not a recurring schedule: the job runs once, when the daemon starts.\n');
    return 0;
  }
  if (!Number.isInteger(options.count) || options.count < 1) {
    io.stderr(`${PREFIX}the count must be a whole number >= 1, got ${options.count}\n`);
    return 1;
  }
  let schedule: Schedule;
  try {
    schedule = parseSchedule(options.expression, { timezone: options.tz ?? 'UTC' });
  } catch (error) {
    io.stderr(`${PREFIX}${describeError(error)}\n`);
    return 1;
  }
  const fromMs = options.from === undefined ? options.nowMs : parseIsoInstant(options.from);
  if (fromMs === undefined || fromMs === null) {
    io.stderr(
      options.from === undefined
        ? `${PREFIX}Cannot compute fire times: no start instant (give --from)\n`
        : `${PREFIX}Cannot parse --from '${options.from}': expected an ISO 8601 instant such as 2026-03-08T00:00:00Z\n`,
    );
    return 1;
  }

  const abbreviations = abbreviationFormatter(schedule.timezone);
  let after = fromMs;
  for (let printed = 0; printed < options.count; printed++) {
    const fire = nextFireTime(schedule, after);
    if (fire === null) {
      io.stdout('no further fire time before the end of 2099\n');
      break;
    }
    io.stdout(`${formatFire(schedule.timezone, fire, abbreviations)}\n`);
    after = fire;
  }
  return 0;
}

/** '2026-03-08 03:30:00 EDT (-04:00)  2026-03-08T07:30:00Z' */
function formatFire(timezone: string, epochMs: number, abbreviations: Intl.DateTimeFormat): string {
  const wall = wallTimeAt(timezone, epochMs);
  const local =
    `${wall.year}-${pad(wall.month)}-${pad(wall.day)} ` +
    `${pad(wall.hour)}:${pad(wall.minute)}:${pad(wall.second)}`;
  const abbreviation =
    abbreviations.formatToParts(epochMs).find((part) => part.type === 'timeZoneName')?.value ??
    timezone;
  const utc = new Date(epochMs).toISOString().replace('.000Z', 'Z');
  return `${local} ${abbreviation} (${formatOffset(wall.offsetMs)})  ${utc}`;
}

function abbreviationFormatter(timezone: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('en-US', { timeZone: timezone, timeZoneName: 'short' });
}

function formatOffset(offsetMs: number): string {
  const sign = offsetMs < 0 ? '-' : '+';
  const totalSeconds = Math.abs(offsetMs) / 1000;
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  return `${sign}${pad(hours)}:${pad(minutes)}${seconds === 0 ? '' : `:${pad(seconds)}`}`;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

/** Epoch ms of an ISO 8601 date-time with Z or an offset; null when malformed or impossible. */
export function parseIsoInstant(text: string): number | null {
  const match = ISO_INSTANT.exec(text.trim());
  if (match === null) return null;
  const [, year, month, day, hour, minute, second = '0', fraction = '', , sign, offH, offM] = match;
  const fields = [year, month, day, hour, minute, second].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [y, mo, d, h, mi, s] = fields;
  const wallMs = Date.UTC(y, mo - 1, d, h, mi, s);
  const check = new Date(wallMs);
  if (
    check.getUTCFullYear() !== y ||
    check.getUTCMonth() !== mo - 1 ||
    check.getUTCDate() !== d ||
    check.getUTCHours() !== h ||
    check.getUTCMinutes() !== mi ||
    check.getUTCSeconds() !== s
  ) {
    return null;
  }
  const fractionMs = fraction === '' ? 0 : Math.floor(Number(`0.${fraction}`) * 1000);
  const offsetMs =
    sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(offH) * 60 + Number(offM)) * 60_000;
  return wallMs + fractionMs - offsetMs;
}
