// Human formatting of durations, ages, countdowns, sizes and instants for the dashboard; pure.
// Must not: read the clock (callers pass `nowMs`) or depend on the browser's locale, so the
// same data renders the same text everywhere (and in the node:test unit tests).

/** `850 ms`, `4.2 s`, `3 m 12 s`, `2 h 05 m`, `3 d 04 h`; `—` for null. */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—';
  const value = Math.max(0, seconds);
  if (value < 1) return `${Math.round(value * 1000)} ms`;
  if (value < 10) return `${(Math.floor(value * 10) / 10).toFixed(1)} s`;
  return formatWholeSeconds(Math.floor(value));
}

/** `12 s`, `4 m 03 s`, `2 h 10 m`, `3 d 04 h`: whole seconds, two units at most. */
export function formatWholeSeconds(total: number): string {
  const s = Math.max(0, Math.floor(total));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} m ${pad2(s % 60)} s`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${pad2(Math.floor((s % 3600) / 60))} m`;
  return `${Math.floor(s / 86_400)} d ${pad2(Math.floor((s % 86_400) / 3600))} h`;
}

/** Compact age for table cells: `now`, `42s`, `5m`, `3h`, `2d`. */
export function formatAge(ms: number): string {
  const s = Math.floor(Math.max(0, ms) / 1000);
  if (s < 1) return 'now';
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/** Countdown to an instant: `in 12 s`, `in 4 m 03 s`, or `due` once it has passed. */
export function formatCountdown(ms: number): string {
  if (ms <= 0) return 'due';
  return `in ${formatWholeSeconds(Math.ceil(ms / 1000))}`;
}

/** `512 B`, `3.4 KiB`, `12.0 MiB`, `1.50 GiB`. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${value} B`;
  return `${value.toFixed(value < 10 ? 2 : 1)} ${units[unit]}`;
}

/** `42%`; one decimal under 10 %. */
export function formatPercent(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return value < 10 ? `${value.toFixed(1)}%` : `${Math.round(value)}%`;
}

export function pad2(value: number): string {
  return String(value).padStart(2, '0');
}

/** Epoch ms of an ISO timestamp from the API (microseconds allowed); null when unreadable. */
export function parseIso(iso: string | null | undefined): number | null {
  if (iso === null || iso === undefined) return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
}

/** `2026-06-21 12:00:05 UTC`. */
export function formatUtc(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())} ${pad2(
    d.getUTCHours(),
  )}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())} UTC`;
}

/** `12:00:05` (UTC), for the header clock. */
export function formatUtcClock(ms: number): string {
  const d = new Date(ms);
  return `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`;
}
