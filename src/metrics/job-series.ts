// Per-job metric state: the cumulative values (runs by status, retries, failures, the duration
// histogram, last success/failure, CPU, peak RSS), the running count and the latest recorded run.
// Plain synchronous bookkeeping; rendering reads it at scrape time.
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
  }

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
  /** `job_name="<escaped>"`, rendered once. */
  readonly label: string;
  /** In the current configuration (else kept only while an instance still runs). */
  configured = true;

  runsSuccess = 0;
  runsFailure = 0;
  runsCancelled = 0;
  retries = 0;
  permanentFailures = 0;
  startFailures = 0;
  histogram: DurationHistogram;
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
    this.label = labelPair('job_name', name);
    this.histogram = new DurationHistogram(layout);
  }
}
