// Rendering per request: OpenMetrics and the text format from the same registry in any order,
// prom-client metrics of other components in the same registry, family order and scrape safety.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { FakeClock, TypedEmitter } from '../common/index.js';
import { recordingLogger } from '../logging/testing.js';
import { type SchedulerEvents } from '../scheduler/index.js';
import { makeConfig, makeJob } from '../config/testing.js';
import { createMetrics } from './create-metrics.js';
import { parseExposition } from './exposition-parser.js';

const T0 = Date.UTC(2026, 0, 1);

function build(registry = new Registry(), logger = recordingLogger()) {
  const clock = new FakeClock(T0);
  const job = makeJob({ name: 'nightly', schedule: '0 3 * * *' });
  const metrics = createMetrics({
    clock,
    registry,
    config: makeConfig([job]),
    version: '2.0.0',
    processStartMs: T0,
    logger,
  });
  metrics.onConfigReloaded(true, makeConfig([job]));
  const events = new TypedEmitter<SchedulerEvents>();
  metrics.subscribe({ events, getNextFireAtMs: () => T0 + 3 * 3_600_000 });
  return { metrics, registry, logger };
}

describe('OpenMetrics rendering', () => {
  test('Accept with application/openmetrics-text gets OpenMetrics 1.0 ending in # EOF', async () => {
    const { metrics } = build();
    const { contentType, body } = await metrics.render(
      'application/openmetrics-text; version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1',
    );
    assert.equal(contentType, 'application/openmetrics-text; version=1.0.0; charset=utf-8');
    assert.ok(body.endsWith('\n# EOF\n'));
    const families = parseExposition(body, 'openmetrics');
    const types = new Map(families.map((family) => [family.name, family.type]));
    // Counters drop _total and info families drop _info in metadata; sample names keep them.
    assert.equal(types.get('yacron2'), 'info');
    assert.equal(types.get('yacron2_job_set'), 'info');
    assert.equal(types.get('yacron2_job'), 'info');
    assert.equal(types.get('yacron2_job_runs'), 'counter');
    assert.equal(types.get('yacron2_job_retries'), 'counter');
    assert.equal(types.get('yacron2_job_permanent_failures'), 'counter');
    assert.equal(types.get('yacron2_job_start_failures'), 'counter');
    assert.equal(types.get('yacron2_job_duration_seconds'), 'histogram');
    assert.equal(types.get('yacron2_jobs'), 'gauge');
    assert.equal(types.get('yacron2_job_next_run_timestamp_seconds'), 'gauge');
    assert.ok(body.includes('\nyacron2_job_runs_total{job_name="nightly",status="success"} 0\n'));
    assert.ok(body.includes('\nyacron2_info{version="2.0.0"} 1\n'));
    assert.ok(body.includes('\nyacron2_job_info{job_name="nightly",schedule="0 3 * * *",'));
    assert.ok(
      body.includes('\nyacron2_job_next_run_timestamp_seconds{job_name="nightly"} 1767236400\n'),
    );
  });

  test('text after OpenMetrics (and back) renders the same families unchanged', async () => {
    const { metrics, registry } = build();
    new Counter({ name: 'other_events_total', help: 'x', registers: [registry] }).inc(3);
    const text1 = (await metrics.render()).body;
    const om = (await metrics.render('application/openmetrics-text')).body;
    const text2 = (await metrics.render('text/plain')).body;
    assert.equal(text2, text1);
    assert.ok(text2.includes('# TYPE yacron2_job_runs_total counter\n'));
    assert.ok(text2.includes('# TYPE yacron2_info gauge\n'));
    assert.ok(text2.includes('# TYPE other_events_total counter\nother_events_total 3\n'));
    assert.ok(!text2.includes('# EOF'));
    assert.ok(om.includes('# TYPE other_events counter\nother_events_total 3\n'));
    assert.equal((await metrics.render('application/openmetrics-text')).body, om);
  });

  test('HELP escaping differs by format', async () => {
    const { metrics, registry } = build();
    new Gauge({ name: 'quoted', help: 'say "hi"\\ now\nok', registers: [registry] }).set(1);
    const text = (await metrics.render()).body;
    const om = (await metrics.render('application/openmetrics-text')).body;
    assert.ok(text.includes('# HELP quoted say "hi"\\\\ now\\nok\n'));
    assert.ok(om.includes('# HELP quoted say \\"hi\\"\\\\ now\\nok\n'));
    assert.equal(
      parseExposition(om, 'openmetrics').find((family) => family.name === 'quoted')?.help,
      'say "hi"\\ now\nok',
    );
  });
});

describe('a shared prom-client registry', () => {
  test('other components’ metrics render in both formats, state and cluster families last', async () => {
    const registry = new Registry();
    // Registered before ours: the state families still come after the job families.
    const ops = new Counter({
      name: 'yacron2_state_ops_total',
      help: 'Store operations',
      labelNames: ['op'],
      registers: [registry],
    });
    const info = new Gauge({
      name: 'yacron2_state_info',
      help: 'Store backend',
      labelNames: ['backend', 'topology'],
      registers: [registry],
    });
    new Counter({
      name: 'yacron2_state_op_errors_total',
      help: 'no samples yet: omitted',
      labelNames: ['op'],
      registers: [registry],
    });
    const latency = new Histogram({
      name: 'yacron2_state_op_latency_seconds',
      help: 'x',
      buckets: [0.5, 1],
      registers: [registry],
    });
    ops.inc({ op: 'append' }, 2);
    info.set({ backend: 'filesystem', topology: 'single-node' }, 1);
    latency.observe(0.7);
    const { metrics } = build(registry);

    const text = parseExposition((await metrics.render()).body, 'text');
    const names = text.map((family) => family.name);
    assert.deepEqual(names.slice(-4), [
      'yacron2_state_ops_total',
      'yacron2_state_info',
      'yacron2_state_op_latency_seconds',
      'yacron2_cluster_enabled',
    ]);
    assert.equal(names[0], 'yacron2_info');
    assert.ok(!names.includes('yacron2_state_op_errors_total'));
    const latencyFamily = text.find((family) => family.name === 'yacron2_state_op_latency_seconds');
    assert.deepEqual(
      latencyFamily?.samples.filter((s) => s.name.endsWith('_bucket')).map((s) => s.labels['le']),
      ['0.5', '1.0', '+Inf'],
    );

    const om = parseExposition(
      (await metrics.render('application/openmetrics-text')).body,
      'openmetrics',
    );
    const omTypes = new Map(om.map((family) => [family.name, family.type]));
    assert.equal(omTypes.get('yacron2_state_ops'), 'counter');
    assert.equal(omTypes.get('yacron2_state'), 'info');
    assert.deepEqual(om.find((family) => family.name === 'yacron2_state_ops')?.samples, [
      { name: 'yacron2_state_ops_total', labels: { op: 'append' }, value: 2 },
    ]);
  });

  test('a metric whose collect throws is left out and logged; the scrape succeeds', async () => {
    const registry = new Registry();
    const logger = recordingLogger();
    new Gauge({
      name: 'yacron2_cluster_size',
      help: 'x',
      registers: [registry],
      collect() {
        throw new Error('view unreadable');
      },
    });
    const { metrics } = build(registry, logger);
    const { body } = await metrics.render();
    const names = parseExposition(body, 'text').map((family) => family.name);
    assert.ok(!names.includes('yacron2_cluster_size'));
    assert.ok(names.includes('yacron2_job_runs_total'));
    assert.deepEqual(logger.messages(), [
      'Cannot collect metric yacron2_cluster_size: view unreadable',
    ]);
  });

  test('our families answer prom-client’s own JSON API', async () => {
    const { registry } = build();
    const json = await registry.getMetricsAsJSON();
    const runs = json.find((metric) => metric.name === 'yacron2_job_runs_total');
    assert.equal(String(runs?.type), 'counter');
    assert.deepEqual(runs?.values[0], {
      metricName: 'yacron2_job_runs_total',
      labels: { job_name: 'nightly', status: 'success' },
      value: 0,
    });
    // prom-client's own text rendering stays valid too (info families are gauges there).
    const text = await registry.metrics();
    assert.ok(text.includes('# TYPE yacron2_info gauge\nyacron2_info{version="2.0.0"} 1'));
  });

  test('never the global default registry', async () => {
    const { register } = await import('prom-client');
    const before = register.getMetricsAsArray().length;
    build();
    assert.equal(register.getMetricsAsArray().length, before);
    assert.equal(register.getSingleMetric('yacron2_info'), undefined);
  });
});
