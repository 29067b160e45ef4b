// Per-job metric state: the cumulative values (runs by status, retries, failures, the duration
// histogram, last success/failure, CPU, peak RSS), the running count and the latest recorded run.
// Plain synchronous bookkeeping; rendering reads it at scrape time. What an idle job would only
// hold for a scrape is not kept (docs/performance.md "Memory"): the `job_name` label pair is
// rendered at the first scrape (not at load), and a job that never finished a run reads its layout's shared empty
// histogram until the first observation.
import { formatFloat, labelPair } from './exposition.js';

/** The default bounds of docs/metrics.md "Per-job families" (seconds); `+Inf` is implied. */
export const DEFAULT_DURATION_BUCKETS_SECONDS: readonly number[] = Object.freeze([
  0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600,
]);

/** Histogram bounds with their pre-rendered `le` label pairs (shared by every job). */
export class BucketLayout {
  readonly bounds: readonly number[];
  /** One per bound, then `le="+Inf"`. */
  readonly leLabels: readonly string[];

  constructor(bounds: readonly number[]) {
    bounds.forEach((bound, index) => {
      const previous = bounds[index - 1];
      if (!Number.isFinite(bound) || bound <= 0 || (previous !== undefined && bound <= previous)) {
        throw new RangeError(
          `Cannot use duration buckets ${JSON.stringify(bounds)}: bounds must be finite, positive and strictly increasing`,
        );
      }
    });
    if (bounds.length === 0) throw new RangeError('Cannot use duration buckets: none given');
    this.bounds = Object.freeze([...bounds]);
    this.leLabels = Object.freeze([
      ...bounds.map((bound) => labelPair('le', formatFloat(bound))),
      'le="+Inf"',
    ]);
    this.empty = new DurationHistogram(this);
    Object.freeze(this.empty.counts);
    Object.freeze(this.empty);
  }

  /** All zeros, frozen: the histogram of every job that has not finished a run yet. */
  readonly empty: DurationHistogram;

  sameBounds(bounds: readonly number[]): boolean {
    return bounds.length === this.bounds.length && bounds.every((b, i) => b === this.bounds[i]);
  }
}

export class DurationHistogram {
  /** Non-cumulative counts, one per bound plus the +Inf overflow; rendered cumulatively. */
  readonly counts: number[];
  sum = 0;
  count = 0;
  readonly #bounds: readonly number[];

  constructor(layout: BucketLayout) {
    this.#bounds = layout.bounds;
    this.counts = new Array<number>(layout.bounds.length + 1).fill(0);
  }

  observe(seconds: number): void {
    let index = this.#bounds.findIndex((bound) => seconds <= bound);
    if (index < 0) index = this.#bounds.length;
    this.counts[index] = (this.counts[index] ?? 0) + 1;
    this.sum += seconds;
    this.count += 1;
  }
}

/** The latest recorded run, as the live `yacron2_job_last_run_*` gauges need it. */
export interface LastRun {
  readonly finishedAtMs: number;
  readonly durationSeconds: number | null;
  readonly exitCode: number | null;
  readonly success: boolean;
  readonly cpuSeconds: number | null;
  readonly maxRssBytes: number | null;
}

export class JobSeries {
  readonly name: string;
  /** In the current configuration (else kept only while an instance still runs). */
  configured = true;

  runsSuccess = 0;
  runsFailure = 0;
  runsCancelled = 0;
  retries = 0;
  permanentFailures = 0;
  startFailures = 0;
  #layout: BucketLayout;
  /** null until the first write: `histogram` reads the layout's shared empty one meanwhile. */
  #histogram: DurationHistogram | null = null;
  lastSuccessMs: number | null = null;
  lastFailureMs: number | null = null;
  /** null until the first monitored run. */
  cpuUserSeconds: number | null = null;
  cpuSystemSeconds: number | null = null;
  /** Monitored runs the CPU sums cover. */
  cpuCount = 0;
  /** null until a non-zero observation. */
  peakRssBytes: number | null = null;

  running = 0;
  lastRun: LastRun | null = null;

  constructor(name: string, layout: BucketLayout) {
    this.name = name;
    this.#layout = layout;
  }

  /** null until the first scrape: an idle daemon nobody scrapes keeps no label string per job. */
  #label: string | null = null;

  /**
   * `job_name="<escaped>"`, rendered at the first use and kept: a scrape reads it once per
   * sample, a dozen times per job.
   */
  get label(): string {
    this.#label ??= labelPair('job_name', this.name);
    return this.#label;
  }

  /** The duration histogram, for reading (frozen and empty until the first write). */
  get histogram(): DurationHistogram {
    return this.#histogram ?? this.#layout.empty;
  }

  /** The duration histogram to add to, created at the first write. */
  writableHistogram(): DurationHistogram {
    this.#histogram ??= new DurationHistogram(this.#layout);
    return this.#histogram;
  }

  /** New bounds: the histogram starts again, empty. */
  resetHistogram(layout: BucketLayout): void {
    this.#layout = layout;
    this.#histogram = null;
  }
}
