// The yacron2_dag_* families (docs/metrics.md "DAG families"), named after the per-job ones:
// cumulative (runs by final state, task attempts by status, the attempt duration histogram) then
// live (runs and attempts on this node). A scrape shows them only while DAGs are configured or
// something of a removed DAG still runs here: a daemon without a `dags:` section emits none.
import type { DagTable } from './dag-table.js';
import { MetricFamily } from './family.js';
import { writeHistogram } from './job-families.js';

export function createDagFamilies(table: DagTable): MetricFamily[] {
  const runs = 'yacron2_dag_runs_total';
  const attempts = 'yacron2_dag_task_attempts_total';
  const duration = 'yacron2_dag_task_duration_seconds';
  const runsRunning = 'yacron2_dag_runs_running';
  const tasksRunning = 'yacron2_dag_task_running';
  return [
    new MetricFamily({
      name: runs,
      kind: 'counter',
      help: 'DAG runs finished by a pass of this node, by final state',
      collect(sink) {
        for (const series of table.dags()) {
          sink(runs, `${series.label},state="success"`, series.runsSuccess);
          sink(runs, `${series.label},state="failed"`, series.runsFailed);
        }
      },
      reset: () =>
        table.dags().forEach((series) => {
          series.runsSuccess = series.runsFailed = 0;
        }),
    }),
    new MetricFamily({
      name: attempts,
      kind: 'counter',
      help: 'Finished attempts of the DAG task on this node by status (sensor pokes not counted)',
      collect(sink) {
        for (const series of table.tasks()) {
          sink(attempts, `${series.label},status="success"`, series.success);
          sink(attempts, `${series.label},status="failure"`, series.failure);
          sink(attempts, `${series.label},status="cancelled"`, series.cancelled);
        }
      },
      reset: () =>
        table.tasks().forEach((series) => {
          series.success = series.failure = series.cancelled = 0;
        }),
    }),
    new MetricFamily({
      name: duration,
      kind: 'histogram',
      help: 'Duration of finished attempts of the DAG task on this node in seconds',
      collect(sink) {
        const { leLabels } = table.layout;
        for (const series of table.tasks()) {
          writeHistogram(sink, duration, series.label, series.histogram, leLabels);
        }
      },
      reset: () => table.setLayout(table.layout),
    }),
    new MetricFamily({
      name: runsRunning,
      kind: 'gauge',
      help: 'Running runs of the DAG this node advances',
      collect(sink) {
        for (const series of table.dags()) sink(runsRunning, series.label, series.running);
      },
    }),
    new MetricFamily({
      name: tasksRunning,
      kind: 'gauge',
      help: 'Attempts of the DAG task running on this node',
      collect(sink) {
        for (const series of table.tasks()) sink(tasksRunning, series.label, series.running);
      },
    }),
  ];
}
