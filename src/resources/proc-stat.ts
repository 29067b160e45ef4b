// The fields of /proc/<pid>/stat the samplers use (proc(5)), parsed without allocating more
// than the field array. The command name sits in parentheses and may itself hold spaces and
// parentheses, so the fields are counted from the LAST `)`.
// Must not: trust the command name (any bytes a process chose).

/** One process as /proc/<pid>/stat shows it; times in clock ticks, RSS in pages. */
export interface ProcStat {
  readonly pid: number;
  /** R, S, D, Z (zombie: exited, not yet reaped; its times are final), T, ... */
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
  readonly session: number;
  readonly userTicks: number;
  readonly systemTicks: number;
  /** CPU of children this process waited for (they are gone from /proc once reaped). */
  readonly childUserTicks: number;
  readonly childSystemTicks: number;
  /** Ticks after boot when the process started: with the pid, the process's identity. */
  readonly startTicks: number;
  readonly rssPages: number;
}

/**
 * Field numbers (proc(5) numbers them from 1; `state` is field 3, the first after the `)`).
 * Only these are converted: the line is scanned once, not split (a pass parses hundreds).
 */
const FIELD = {
  ppid: 4,
  pgrp: 5,
  session: 6,
  utime: 14,
  stime: 15,
  cutime: 16,
  cstime: 17,
  starttime: 22,
  rss: 24,
} as const;
const LAST_FIELD = FIELD.rss;

const ZERO = 48;
const SPACE = 32;
const MINUS = 45;

export function parseProcStat(text: string): ProcStat | undefined {
  const open = text.indexOf(' (');
  const close = text.lastIndexOf(')');
  if (open <= 0 || close < open || text.charCodeAt(close + 1) !== SPACE) return undefined;
  const pid = Number(text.slice(0, open));
  const state = text.charAt(close + 2);
  // values[n] = field n; integers are read digit by digit (ticks and pages fit in a double).
  const values = new Array<number>(LAST_FIELD + 1).fill(Number.NaN);
  let field = 3;
  let index = close + 2;
  while (field <= LAST_FIELD && index < text.length) {
    let end = text.indexOf(' ', index);
    if (end < 0) end = text.length;
    if (field > 3) {
      let value = 0;
      let sign = 1;
      let position = index;
      if (text.charCodeAt(position) === MINUS) {
        sign = -1;
        position++;
      }
      let digits = 0;
      for (; position < end; position++) {
        const digit = text.charCodeAt(position) - ZERO;
        if (digit < 0 || digit > 9) break;
        value = value * 10 + digit;
        digits++;
      }
      if (digits > 0 && (position === end || text.charCodeAt(position) === 10)) {
        values[field] = sign * value;
      }
    }
    field++;
    index = end + 1;
  }
  const at = (n: number): number => values[n] ?? Number.NaN;
  const stat: ProcStat = {
    pid,
    state,
    ppid: at(FIELD.ppid),
    pgrp: at(FIELD.pgrp),
    session: at(FIELD.session),
    userTicks: at(FIELD.utime),
    systemTicks: at(FIELD.stime),
    childUserTicks: at(FIELD.cutime),
    childSystemTicks: at(FIELD.cstime),
    startTicks: at(FIELD.starttime),
    rssPages: at(FIELD.rss),
  };
  // A field missing or not a number: not a stat line we understand.
  if (
    !Number.isInteger(pid) ||
    Number.isNaN(stat.ppid + stat.pgrp + stat.session + stat.userTicks + stat.systemTicks) ||
    Number.isNaN(stat.childUserTicks + stat.childSystemTicks + stat.startTicks + stat.rssPages)
  ) {
    return undefined;
  }
  return stat;
}
