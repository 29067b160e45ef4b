// A run's CPU/RSS series bounded by `monitorResources.history` points (docs/http-api.md "GET
// /jobs/{name}/resources"): while the run is shorter than the cap every sample is a point; past
// it, adjacent points are merged in pairs (mean CPU, peak RSS, the later instant) and each point
// from then on stands for twice as many samples. The series therefore always spans the whole
// run at an even resolution, holds at most `history` points (the newest one possibly a partial
// bucket still filling), and costs O(history) memory however long the run lasts.
// `history: 0` keeps no points (the run's summary is still complete).

/** One point: when (epoch ms, the last sample in the bucket), CPU % (mean), RSS bytes (peak). */
export type UsagePoint = readonly [atMs: number, cpuPercent: number, rssBytes: number];

interface Bucket {
  atMs: number;
  cpuSum: number;
  rssMax: number;
  samples: number;
}

export class UsageSeries {
  readonly #capacity: number;
  readonly #complete: Bucket[] = [];
  #pending: Bucket | null = null;
  /** Samples per complete point. */
  #stride = 1;

  constructor(capacity: number) {
    this.#capacity = Math.max(0, Math.floor(capacity));
  }

  add(atMs: number, cpuPercent: number, rssBytes: number): void {
    if (this.#capacity === 0) return;
    if (this.#pending === null && this.#complete.length >= this.#capacity) this.#merge();
    const bucket = (this.#pending ??= { atMs, cpuSum: 0, rssMax: 0, samples: 0 });
    bucket.atMs = atMs;
    bucket.cpuSum += cpuPercent;
    bucket.rssMax = Math.max(bucket.rssMax, rssBytes);
    bucket.samples += 1;
    if (bucket.samples >= this.#stride) {
      this.#complete.push(bucket);
      this.#pending = null;
    }
  }

  /** The points, oldest first (a new array). */
  points(): UsagePoint[] {
    const buckets = this.#pending ? [...this.#complete, this.#pending] : this.#complete;
    return buckets.map((bucket) => [bucket.atMs, bucket.cpuSum / bucket.samples, bucket.rssMax]);
  }

  /** Halve the resolution: pairs become one point; an odd last point keeps filling. */
  #merge(): void {
    const merged: Bucket[] = [];
    for (let index = 0; index + 1 < this.#complete.length; index += 2) {
      const older = this.#complete[index]!;
      const newer = this.#complete[index + 1]!;
      merged.push({
        atMs: newer.atMs,
        cpuSum: older.cpuSum + newer.cpuSum,
        rssMax: Math.max(older.rssMax, newer.rssMax),
        samples: older.samples + newer.samples,
      });
    }
    this.#pending = this.#complete.length % 2 === 1 ? this.#complete.at(-1)! : null;
    this.#complete.length = 0;
    this.#complete.push(...merged);
    this.#stride *= 2;
  }
}
