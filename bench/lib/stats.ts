// Order statistics for benchmark samples: median, nearest-rank percentiles, min and max. Pure.

/** The samples sorted ascending (a copy). */
function sorted(samples: readonly number[]): number[] {
  return [...samples].sort((a, b) => a - b);
}

/** Nearest-rank percentile (p in 0..100) of a non-empty sample; NaN when empty. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const ordered = sorted(samples);
  const rank = Math.ceil((p / 100) * ordered.length);
  return ordered[Math.min(ordered.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

/** The middle value (mean of the two middle values for an even count); NaN when empty. */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  const ordered = sorted(samples);
  const middle = ordered.length >> 1;
  if (ordered.length % 2 === 1) return ordered[middle] ?? Number.NaN;
  return ((ordered[middle - 1] ?? Number.NaN) + (ordered[middle] ?? Number.NaN)) / 2;
}

export function min(samples: readonly number[]): number {
  return samples.length === 0 ? Number.NaN : Math.min(...samples);
}

export function max(samples: readonly number[]): number {
  return samples.length === 0 ? Number.NaN : Math.max(...samples);
}

/** Rounds to `digits` decimals (keeps JSON output short); NaN and infinities become null. */
export function round(value: number, digits = 2): number | null {
  if (!Number.isFinite(value)) return null;
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** Every sample rounded, for the `samples` detail of a metric line. */
export function roundAll(samples: readonly number[], digits = 2): (number | null)[] {
  return samples.map((sample) => round(sample, digits));
}
