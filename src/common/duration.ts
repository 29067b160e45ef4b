// Conversions at the edges: YAML seconds (possibly fractional) to integer milliseconds, and
// milliseconds to the seconds the wire formats carry.

export function secondsToMs(seconds: number): number {
  return Math.round(seconds * 1000);
}

/** "12.5 seconds" style, as the reference prints durations in log lines. */
export function formatSeconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}

/**
 * Milliseconds as seconds with microsecond precision, as the reference's
 * `timedelta.total_seconds()` gives them: the run record's and the ledger's `duration`
 * (0.030129, never 0.030128999999999996 from a millisecond round trip).
 */
export function msToSeconds(ms: number): number {
  return Math.round(ms * 1000) / 1e6;
}
