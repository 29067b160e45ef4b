// The set of per-job series and how scheduler events move them (docs/metrics.md "Per-job
// families"). Series exist for every configured job (zero-filled); a job removed by a reload keeps
// its series only while an instance of it still runs. Must not read the clock or do I/O: events
// carry every instant.
import type { ResolvedJob } from '../config/index.js';
import type { ReportEvent, RunFinishedEvent, RunStartedEvent } from '../scheduler/index.js';
import { labelPair } from './exposition.js';
import { JobSeries, type BucketLayout } from './job-series.js';

/** A configured job with its series, in config order (the live families follow it). */
export interface LiveJob {
  readonly job: ResolvedJob;
  readonly series: JobSeries;
}

/**
 * `job_name=…,schedule=…,cluster_policy=…` of yacron2_job_info, rendered at each scrape (not kept
 * per job: docs/performance.md "Memory").
 */
export function infoLabels({ job, series }: LiveJob): string {
  return [
    series.label,
    labelPair('schedule', job.schedule.text),
    labelPair('cluster_policy', job.clusterPolicy),
  ].join(',');
}

function byName(a: JobSeries, b: JobSeries): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export class JobTable {
  #layout: BucketLayout;
  readonly #series = new Map<string, JobSeries>();
  #sorted: JobSeries[] | null = null;
  #live: LiveJob[] = [];

  constructor(layout: BucketLayout) {
    this.#layout = layout;
  }

  get layout(): BucketLayout {
    return this.#layout;
  }

  /** Series in job-name order (the cumulative families), including removed-but-running jobs. */
  sorted(): readonly JobSeries[] {
    this.#sorted ??= [...this.#series.values()].sort(byName);
    return this.#sorted;
  }

  /** Configured jobs in config order. */
  live(): readonly LiveJob[] {
    return this.#live;
  }

  get(name: string): JobSeries | undefined {
    return this.#series.get(name);
  }

  /** A reload succeeded: zero-fill new jobs, prune removed ones that no longer run. */
  applyJobs(jobs: readonly ResolvedJob[]): void {
    const names = new Set(jobs.map((job) => job.name));
    for (const series of this.#series.values()) {
      if (names.has(series.name)) continue;
      series.configured = false;
      this.#pruneIfGone(series);
    }
    this.#live = jobs.map((job) => {
      const series = this.#touch(job.name);
      series.configured = true;
      return { job, series };
    });
  }

  /** New histogram bounds reset every job's histogram; counters are untouched. */
  setLayout(layout: BucketLayout): void {
    this.#layout = layout;
    for (const series of this.#series.values()) series.resetHistogram(layout);
  }

  onRunStarted(event: RunStartedEvent): void {
    const series = this.#touch(event.job.name);
    series.running += 1;
    if (event.trigger === 'retry') series.retries += 1;
  }

  onRunFinished(event: RunFinishedEvent): void {
    const series = this.#touch(event.job.name);
    series.running = Math.max(0, series.running - 1);
    // A Replace-killed run is not a run (it never enters the history).
    if (event.recorded) this.#record(series, event);
    this.#pruneIfGone(series);
  }

  onPermanentFailure(event: ReportEvent): void {
    const series = this.#series.get(event.job.name);
    if (series) series.permanentFailures += 1;
  }

  #record(series: JobSeries, { summary, outcome }: RunFinishedEvent): void {
    const resources = summary.resources;
    const durationSeconds = summary.durationMs === null ? null : summary.durationMs / 1000;
    series.lastRun = {
      finishedAtMs: outcome.finishedAtMs,
      durationSeconds,
      exitCode: summary.exitCode,
      success: summary.outcome === 'success',
      cpuSeconds: resources?.cpuTotalSeconds ?? null,
      maxRssBytes: resources?.maxRssBytes ?? null,
    };
    switch (summary.outcome) {
      case 'success':
        series.runsSuccess += 1;
        series.lastSuccessMs = outcome.finishedAtMs;
        break;
      case 'failure':
        series.runsFailure += 1;
        series.lastFailureMs = outcome.finishedAtMs;
        break;
      case 'cancelled':
        series.runsCancelled += 1;
        break;
      case 'unknown':
        // Crash-reconciled runs are never exported as runs (docs/metrics.md "Per-job families").
        return;
    }
    if (outcome.kind === 'spawn-failed') series.startFailures += 1;
    if (durationSeconds !== null) series.writableHistogram().observe(durationSeconds);
    if (resources) {
      series.cpuUserSeconds = (series.cpuUserSeconds ?? 0) + resources.cpuUserSeconds;
      series.cpuSystemSeconds = (series.cpuSystemSeconds ?? 0) + resources.cpuSystemSeconds;
      series.cpuCount += 1;
      if (resources.maxRssBytes > (series.peakRssBytes ?? 0)) {
        series.peakRssBytes = resources.maxRssBytes;
      }
    }
  }

  /** The series of `name`, created (unconfigured until a config lists it) when missing. */
  #touch(name: string): JobSeries {
    let series = this.#series.get(name);
    if (!series) {
      series = new JobSeries(name, this.#layout);
      series.configured = false;
      this.#series.set(name, series);
      this.#sorted = null;
    }
    return series;
  }

  #pruneIfGone(series: JobSeries): void {
    if (series.configured || series.running > 0) return;
    this.#series.delete(series.name);
    this.#sorted = null;
  }
}
