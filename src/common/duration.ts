// Conversions at the config edge: YAML seconds (possibly fractional) to integer milliseconds.

export function secondsToMs(seconds: number): number {
  return Math.round(seconds * 1000);
}

/** "12.5 seconds" style, as the reference prints durations in log lines. */
export function formatSeconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}
