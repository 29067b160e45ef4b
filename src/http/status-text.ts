// The text form of `GET /status` (docs/http-api.md "GET /status"): one line per job, `\n`-joined,
// no trailing newline, with the reference's relative-time wording (truncated, never rounded). Pure.
import type { StatusEntry } from './wire/index.js';

function unit(value: number, name: string): string {
  const whole = Math.trunc(value);
  return `in ${whole} ${name}${value >= 2 ? 's' : ''}`;
}

/** `in 5 seconds`, `in 1 minute`, `in 3 hours`, `in 2 days` (docs/http-api.md "GET /status"). */
export function describeRelativeSeconds(seconds: number): string {
  if (seconds < 120) return unit(seconds, 'second');
  const minutes = seconds / 60;
  if (minutes < 120) return unit(minutes, 'minute');
  const hours = minutes / 60;
  if (hours < 48) return unit(hours, 'hour');
  return unit(hours / 24, 'day');
}

export function formatStatusLine(entry: StatusEntry): string {
  switch (entry.status) {
    case 'running':
      return `${entry.job}: running (pid: ${entry.pid.join(', ')})`;
    case 'disabled':
      return `${entry.job}: disabled`;
    case 'scheduled': {
      const { scheduled_in: scheduledIn } = entry;
      if (scheduledIn === '@reboot') return `${entry.job}: scheduled (@reboot)`;
      // The reference has no wording for a schedule without a future fire (e.g. a past year).
      if (scheduledIn === null) return `${entry.job}: scheduled (no future fire)`;
      return `${entry.job}: scheduled (${describeRelativeSeconds(scheduledIn)})`;
    }
  }
}

export function formatStatusText(entries: readonly StatusEntry[]): string {
  return entries.map(formatStatusLine).join('\n');
}
