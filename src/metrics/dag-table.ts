// The state behind the yacron2_dag_* families (docs/metrics.md "DAG families"): per DAG its
// finished runs by final state and the runs this node advances; per task of kind `task` its
// attempts by status, their duration histogram and the attempts running here. Fed by the DAG
// engine's observer calls; zero-filled for the configured DAGs, removed ones dropped once nothing
// of them runs here. Labels are the DAG name and the task id only (never a run key or map index).
// Must not: import the dags layer (it sits above; the engine calls in through DagObserver's shape).
import type { ResolvedDag } from '../config/index.js';
import type { RunOutcome } from '../runner/index.js';
import { labelPair } from './exposition.js';
import { DurationHistogram, type BucketLayout } from './job-series.js';

export class DagSeries {
  readonly name: string;
  /** `dag="<escaped>"`. */
  readonly label: string;
  configured = true;
  runsSuccess = 0;
  runsFailed = 0;
  /** Runs this node advances now. */
  running = 0;

  constructor(name: string) {
    this.name = name;
    this.label = labelPair('dag', name);
  }
}

export class DagTaskSeries {
  readonly key: string;
  /** `dag="…",task="…"`. */
  readonly label: string;
  configured = true;
  success = 0;
  failure = 0;
  cancelled = 0;
  histogram: DurationHistogram;
  /** Attempts running on this node now. */
  running = 0;

  constructor(dag: string, task: string, layout: BucketLayout) {
    this.key = JSON.stringify([dag, task]);
    this.label = `${labelPair('dag', dag)},${labelPair('task', task)}`;
    this.histogram = new DurationHistogram(layout);
  }
}

function sortedValues<T>(map: Map<string, T>): T[] {
  return [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
}

export class DagTable {
  #layout: BucketLayout;
  readonly #dags = new Map<string, DagSeries>();
  readonly #tasks = new Map<string, DagTaskSeries>();

  constructor(layout: BucketLayout) {
    this.#layout = layout;
  }

  get layout(): BucketLayout {
    return this.#layout;
  }

  /** DAG series in name order. */
  dags(): DagSeries[] {
    return sortedValues(this.#dags);
  }

  /** Task series in (DAG, task) order. */
  tasks(): DagTaskSeries[] {
    return sortedValues(this.#tasks);
  }

  /** The configured DAGs: new ones zero-filled, removed ones dropped once idle here. */
  applyDags(dags: readonly ResolvedDag[]): void {
    for (const series of this.#dags.values()) series.configured = false;
    for (const series of this.#tasks.values()) series.configured = false;
    for (const dag of dags) {
      this.#dag(dag.name).configured = true;
      for (const task of dag.tasks) {
        if (task.kind === 'task') this.#task(dag.name, task.id).configured = true;
      }
    }
    for (const series of [...this.#dags.values()]) this.#pruneDag(series);
    for (const series of [...this.#tasks.values()]) this.#pruneTask(series);
  }

  /** New histogram bounds reset every task's histogram; counters are untouched. */
  setLayout(layout: BucketLayout): void {
    this.#layout = layout;
    for (const series of this.#tasks.values()) series.histogram = new DurationHistogram(layout);
  }

  // The DagObserver calls (src/dags/dag-observer.ts names the contract).

  runAdvanced(dag: string): void {
    this.#dag(dag).running += 1;
  }

  runReleased(dag: string): void {
    const series = this.#dag(dag);
    series.running = Math.max(0, series.running - 1);
    this.#pruneDag(series);
  }

  runFinished(dag: string, state: 'success' | 'failed'): void {
    const series = this.#dag(dag);
    if (state === 'success') series.runsSuccess += 1;
    else series.runsFailed += 1;
    this.#pruneDag(series);
  }

  attemptStarted(dag: string, task: string): void {
    this.#task(dag, task).running += 1;
  }

  attemptFinished(dag: string, task: string, outcome: RunOutcome): void {
    const series = this.#task(dag, task);
    series.running = Math.max(0, series.running - 1);
    switch (outcome.kind) {
      case 'succeeded':
        series.success += 1;
        break;
      case 'failed':
      case 'timed-out':
      case 'spawn-failed':
        series.failure += 1;
        break;
      case 'killed':
        series.cancelled += 1;
        break;
    }
    series.histogram.observe(outcome.durationMs / 1000);
    this.#pruneTask(series);
  }

  #dag(name: string): DagSeries {
    let series = this.#dags.get(name);
    if (series === undefined) {
      series = new DagSeries(name);
      series.configured = false;
      this.#dags.set(name, series);
    }
    return series;
  }

  #task(dag: string, task: string): DagTaskSeries {
    const key = JSON.stringify([dag, task]);
    let series = this.#tasks.get(key);
    if (series === undefined) {
      series = new DagTaskSeries(dag, task, this.#layout);
      series.configured = false;
      this.#tasks.set(key, series);
    }
    return series;
  }

  #pruneDag(series: DagSeries): void {
    if (!series.configured && series.running === 0) this.#dags.delete(series.name);
  }

  #pruneTask(series: DagTaskSeries): void {
    if (!series.configured && series.running === 0) this.#tasks.delete(series.key);
  }
}
