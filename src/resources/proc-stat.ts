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

/** Field positions after the `)` (proc(5) numbers fields from 1; `state` is field 3). */
const FIRST_FIELD = 3;
const FIELD = {
  state: 3,
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

export function parseProcStat(text: string): ProcStat | undefined {
  const open = text.indexOf(' (');
  const close = text.lastIndexOf(')');
  if (open <= 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open));
  const fields = text.slice(close + 2).split(' ');
  const at = (field: number): number => Number(fields[field - FIRST_FIELD]);
  const stat: ProcStat = {
    pid,
    state: fields[FIELD.state - FIRST_FIELD] ?? '',
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
  for (const value of Object.values(stat)) {
    if (typeof value === 'number' && !Number.isFinite(value)) return undefined;
  }
  return stat;
}
