// The yacron2_dag_* families (docs/metrics.md "DAG families") as a scrape sees them: absent
// without DAGs, zero-filled for the configured ones, fed through the engine's observer calls,
// a removed DAG kept while an attempt of it runs here, and histogram bounds that follow the web
// section.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../common/index.js';
import type { ResolvedDag } from '../config/index.js';
import { makeDag } from '../dags/testing.js';
import type { RunOutcome } from '../runner/index.js';
import { runOutcome } from '../runner/testing.js';
import { createMetrics, type Metrics } from './create-metrics.js';
import { parseExposition, type ParsedFamily } from './exposition-parser.js';

const ETL = makeDag('etl', [
  { id: 'extract' },
  { id: 'wait', kind: 'sensor' },
  { id: 'gate', kind: 'approval', dependsOn: ['extract'] },
]);

function metricsWith(dags: readonly ResolvedDag[] | undefined): Metrics {
  return createMetrics({
    clock: new FakeClock(Date.UTC(2026, 0, 1)),
    config: { jobs: [], jobSetId: 'x', ...(dags === undefined ? {} : { dags }) },
    version: '0',
    processStartMs: 0,
  });
}

async function dagFamilies(metrics: Metrics): Promise<Map<string, ParsedFamily>> {
  const families = parseExposition((await metrics.render()).body, 'text');
  return new Map(
    families
      .filter((family) => family.name.startsWith('yacron2_dag_'))
      .map((family) => [family.name, family]),
  );
}

function sample(
  families: Map<string, ParsedFamily>,
  name: string,
  labels: Record<string, string>,
  family = name,
): number | undefined {
  return families
    .get(family)
    ?.samples.find(
      (s) =>
        s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value),
    )?.value;
}

function outcome(kind: RunOutcome['kind'], durationMs: number): RunOutcome {
  return runOutcome({
    kind,
    exitCode: kind === 'succeeded' ? 0 : 1,
    failReason: null,
    cancelReason: null,
    pid: 1,
    startedAtMs: 0,
    finishedAtMs: durationMs,
    durationMs,
    stdout: null,
    stderr: null,
    environment: null,
    spawnError: null,
  });
}

void test('no dags section: no yacron2_dag_* family at all', async () => {
  assert.deepEqual([...(await dagFamilies(metricsWith(undefined))).keys()], []);
  assert.deepEqual([...(await dagFamilies(metricsWith([]))).keys()], []);
});

void test('configured DAGs are zero-filled; tasks of kind task only, labels dag and task', async () => {
  const families = await dagFamilies(metricsWith([ETL]));
  assert.deepEqual(
    [...families.values()].map((family) => [family.name, family.type]),
    [
      ['yacron2_dag_runs_total', 'counter'],
      ['yacron2_dag_task_attempts_total', 'counter'],
      ['yacron2_dag_task_duration_seconds', 'histogram'],
      ['yacron2_dag_runs_running', 'gauge'],
      ['yacron2_dag_task_running', 'gauge'],
    ],
  );
  assert.deepEqual(
    families.get('yacron2_dag_task_attempts_total')?.samples.map((s) => s.labels),
    ['success', 'failure', 'cancelled'].map((status) => ({ dag: 'etl', task: 'extract', status })),
  );
  assert.deepEqual(
    families.get('yacron2_dag_runs_total')?.samples.map((s) => [s.labels, s.value]),
    [
      [{ dag: 'etl', state: 'success' }, 0],
      [{ dag: 'etl', state: 'failed' }, 0],
    ],
  );
});

void test('observer calls move the counters, gauges and the histogram', async () => {
  const metrics = metricsWith([ETL]);
  const { dags } = metrics;
  dags.runAdvanced('etl');
  dags.attemptStarted('etl', 'extract');
  let f = await dagFamilies(metrics);
  assert.equal(sample(f, 'yacron2_dag_runs_running', { dag: 'etl' }), 1);
  assert.equal(sample(f, 'yacron2_dag_task_running', { task: 'extract' }), 1);
  dags.attemptFinished('etl', 'extract', outcome('failed', 2_000));
  dags.attemptStarted('etl', 'extract');
  dags.attemptFinished('etl', 'extract', outcome('succeeded', 200));
  dags.attemptStarted('etl', 'extract');
  dags.attemptFinished('etl', 'extract', outcome('killed', 50));
  dags.runFinished('etl', 'success');
  dags.runReleased('etl');
  f = await dagFamilies(metrics);
  const attempts = (status: string) =>
    sample(f, 'yacron2_dag_task_attempts_total', { task: 'extract', status });
  assert.deepEqual([attempts('success'), attempts('failure'), attempts('cancelled')], [1, 1, 1]);
  assert.equal(sample(f, 'yacron2_dag_runs_total', { state: 'success' }), 1);
  assert.equal(sample(f, 'yacron2_dag_runs_total', { state: 'failed' }), 0);
  assert.equal(sample(f, 'yacron2_dag_runs_running', { dag: 'etl' }), 0);
  assert.equal(sample(f, 'yacron2_dag_task_running', { task: 'extract' }), 0);
  const histogram = 'yacron2_dag_task_duration_seconds';
  assert.equal(sample(f, `${histogram}_count`, { task: 'extract' }, histogram), 3);
  assert.equal(sample(f, `${histogram}_sum`, { task: 'extract' }, histogram), 2.25);
  assert.equal(sample(f, `${histogram}_bucket`, { le: '0.1' }, histogram), 1);
  assert.equal(sample(f, `${histogram}_bucket`, { le: '0.5' }, histogram), 2);
  assert.equal(sample(f, `${histogram}_bucket`, { le: '5.0' }, histogram), 3);
  // New bounds reset the histogram, not the counters.
  metrics.setDurationBuckets([1, 10]);
  f = await dagFamilies(metrics);
  assert.equal(sample(f, `${histogram}_count`, { task: 'extract' }, histogram), 0);
  assert.equal(sample(f, `${histogram}_bucket`, { le: '10.0' }, histogram), 0);
  assert.equal(attempts('success'), 1);
});

void test('a removed DAG stays while an attempt of it runs here, then goes', async () => {
  const metrics = metricsWith([ETL]);
  metrics.dags.runAdvanced('etl');
  metrics.dags.attemptStarted('etl', 'extract');
  metrics.onConfigReloaded(true, { jobs: [], jobSetId: 'x' });
  let f = await dagFamilies(metrics);
  assert.equal(sample(f, 'yacron2_dag_task_running', { task: 'extract' }), 1);
  assert.equal(sample(f, 'yacron2_dag_runs_running', { dag: 'etl' }), 1);
  metrics.dags.attemptFinished('etl', 'extract', outcome('succeeded', 10));
  metrics.dags.runFinished('etl', 'failed');
  metrics.dags.runReleased('etl');
  f = await dagFamilies(metrics);
  assert.deepEqual([...f.keys()], []);
});
