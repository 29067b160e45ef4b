// /metrics as a scrape sees it, with a real scheduler on a FakeClock and a FakeRunner: every family
// of docs/metrics.md "Daemon families" and "Per-job families" with its type and labels after a
// success, a failure with a retry, a timeout and a launch failure; zero-fill, pruning on reload,
// Replace and cancel.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeClock, TypedEmitter } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import type { ResolvedJob } from '../config/index.js';
import {
  createScheduler,
  type RunFinishedEvent,
  type RunStartedEvent,
  type Scheduler,
  type SchedulerEvents,
} from '../scheduler/index.js';
import { FakeRunner } from '../scheduler/testing.js';
import { makeConfig, makeJob } from '../config/testing.js';
import { createMetrics, type Metrics } from './create-metrics.js';
import { parseExposition, type ParsedFamily } from './exposition-parser.js';

const T0 = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;

/** Every job and daemon family of the spec (plus cluster_enabled), in exposition order. */
const SPEC_FAMILIES: readonly (readonly [string, string, readonly string[]])[] = [
  ['yacron2_info', 'gauge', ['version']],
  ['yacron2_start_time_seconds', 'gauge', []],
  ['yacron2_job_set_info', 'gauge', ['job_set_id']],
  ['yacron2_jobs', 'gauge', ['state']],
  ['yacron2_config_last_reload_successful', 'gauge', []],
  ['yacron2_config_last_reload_success_timestamp_seconds', 'gauge', []],
  ['yacron2_job_runs_total', 'counter', ['job_name', 'status']],
  ['yacron2_job_retries_total', 'counter', ['job_name']],
  ['yacron2_job_permanent_failures_total', 'counter', ['job_name']],
  ['yacron2_job_start_failures_total', 'counter', ['job_name']],
  ['yacron2_job_duration_seconds', 'histogram', ['job_name']],
  ['yacron2_job_last_success_timestamp_seconds', 'gauge', ['job_name']],
  ['yacron2_job_last_failure_timestamp_seconds', 'gauge', ['job_name']],
  ['yacron2_job_cpu_seconds_total', 'counter', ['job_name', 'mode']],
  ['yacron2_job_peak_rss_bytes', 'gauge', ['job_name']],
  ['yacron2_job_info', 'gauge', ['job_name', 'schedule', 'cluster_policy']],
  ['yacron2_job_enabled', 'gauge', ['job_name']],
  ['yacron2_job_running', 'gauge', ['job_name']],
  ['yacron2_job_next_run_timestamp_seconds', 'gauge', ['job_name']],
  ['yacron2_job_last_run_timestamp_seconds', 'gauge', ['job_name']],
  ['yacron2_job_last_run_duration_seconds', 'gauge', ['job_name']],
  ['yacron2_job_last_run_exit_code', 'gauge', ['job_name']],
  ['yacron2_job_last_run_success', 'gauge', ['job_name']],
  ['yacron2_job_last_run_cpu_seconds', 'gauge', ['job_name']],
  ['yacron2_job_last_run_max_rss_bytes', 'gauge', ['job_name']],
  ['yacron2_cluster_enabled', 'gauge', []],
];

/** Families that only appear after a monitored (monitorResources) run. */
const MONITORED_ONLY = new Set([
  'yacron2_job_cpu_seconds_total',
  'yacron2_job_peak_rss_bytes',
  'yacron2_job_last_run_cpu_seconds',
  'yacron2_job_last_run_max_rss_bytes',
]);

class Scrape {
  readonly families: Map<string, ParsedFamily>;
  constructor(readonly list: readonly ParsedFamily[]) {
    this.families = new Map(list.map((family) => [family.name, family]));
  }

  family(name: string): ParsedFamily {
    const family = this.families.get(name);
    assert.ok(family, `family ${name} missing`);
    return family;
  }

  /** The value of one sample, undefined when absent. */
  value(sampleName: string, labels: Record<string, string> = {}): number | undefined {
    for (const family of this.list) {
      for (const sample of family.samples) {
        if (sample.name !== sampleName) continue;
        const keys = Object.keys(labels);
        if (keys.every((key) => sample.labels[key] === labels[key])) return sample.value;
      }
    }
    return undefined;
  }

  /** job_name label values of a family's samples, in order, deduplicated. */
  jobNames(familyName: string): string[] {
    const names = this.family(familyName).samples.map((sample) => sample.labels['job_name']);
    return [...new Set(names)].filter((name): name is string => name !== undefined);
  }
}

async function scrape(metrics: Metrics): Promise<Scrape> {
  const { contentType, body } = await metrics.render('text/plain');
  assert.equal(contentType, 'text/plain; version=0.0.4; charset=utf-8');
  return new Scrape(parseExposition(body, 'text'));
}

interface Fixture {
  readonly clock: FakeClock;
  readonly runner: FakeRunner;
  readonly scheduler: Scheduler;
  readonly metrics: Metrics;
  stop(): Promise<void>;
}

function setUp(jobs: readonly ResolvedJob[]): Fixture {
  const clock = new FakeClock(T0);
  const runner = new FakeRunner({ clock });
  const config = makeConfig(jobs);
  const scheduler = createScheduler({ clock, logger: silentLogger(), runner }, config);
  const metrics = createMetrics({ clock, config, version: '1.2.3', processStartMs: T0 - 1500 });
  const unsubscribe = metrics.subscribe(scheduler);
  metrics.onConfigReloaded(true, config);
  return {
    clock,
    runner,
    scheduler,
    metrics,
    async stop() {
      let settled = false;
      const done = scheduler.shutdown(0).then(() => (settled = true));
      for (let step = 0; step < 1000 && !settled; step++) await clock.advance(1000);
      await done;
      unsubscribe();
    },
  };
}

describe('Prometheus families driven by a scheduler', () => {
  test('after a success, a retried failure, a timeout and a launch failure', async () => {
    const odd = 'odd "job"\\x';
    const f = setUp([
      makeJob({ name: 'ok' }),
      makeJob({ name: 'bad', retry: { maximumRetries: 1, initialDelayMs: 1000 } }),
      makeJob({ name: 'slow', executionTimeoutMs: 5000 }),
      makeJob({ name: 'nolaunch' }),
      makeJob({ name: 'off', enabled: false }),
      makeJob({ name: 'boot', schedule: '@reboot', clusterPolicy: 'EveryNode' }),
      makeJob({ name: odd, schedule: '*/5 * * * *' }),
    ]);
    f.runner.script('ok', { exitCode: 0, durationMs: 2500 });
    f.runner.script('bad', { exitCode: 2, durationMs: 100 }, { exitCode: 3, durationMs: 200 });
    f.runner.script('slow', { timedOut: true, durationMs: 5000 });
    f.runner.script('nolaunch', { spawnFails: true });
    f.scheduler.start(); // @reboot: 'boot' runs until the test ends it

    const before = await scrape(f.metrics);
    assert.equal(before.value('yacron2_job_runs_total', { job_name: 'ok', status: 'success' }), 0);
    assert.equal(before.value('yacron2_job_duration_seconds_count', { job_name: 'ok' }), 0);
    assert.equal(before.value('yacron2_job_last_success_timestamp_seconds'), undefined);
    assert.equal(before.value('yacron2_job_last_run_timestamp_seconds'), undefined);
    assert.equal(before.value('yacron2_job_running', { job_name: 'boot' }), 1);
    assert.equal(
      before.value('yacron2_job_next_run_timestamp_seconds', { job_name: 'ok' }),
      (T0 + MINUTE) / 1000,
    );

    await f.clock.advance(MINUTE); // every '* * * * *' job fires at T0+60s
    await f.clock.advance(10_000); // runs end; 'bad' retries after 1 s and fails again
    const s = await scrape(f.metrics);

    // Every family with its type, label names and order; monitored-only ones are absent.
    const expected = SPEC_FAMILIES.filter(([name]) => !MONITORED_ONLY.has(name));
    assert.deepEqual(
      s.list.map((family) => [family.name, family.type]),
      expected.map(([name, type]) => [name, type]),
    );
    for (const [name, , labels] of expected) {
      for (const sample of s.family(name).samples) {
        const want = sample.name.endsWith('_bucket') ? [...labels, 'le'] : labels;
        assert.deepEqual(Object.keys(sample.labels), want, `${sample.name} labels`);
      }
    }

    // Daemon families.
    assert.equal(s.value('yacron2_info', { version: '1.2.3' }), 1);
    assert.equal(s.value('yacron2_start_time_seconds'), (T0 - 1500) / 1000);
    assert.equal(s.family('yacron2_job_set_info').samples.length, 1);
    assert.match(s.family('yacron2_job_set_info').samples[0]?.labels['job_set_id'] ?? '', /^v1:/);
    assert.equal(s.value('yacron2_jobs', { state: 'enabled' }), 6);
    assert.equal(s.value('yacron2_jobs', { state: 'disabled' }), 1);
    assert.equal(s.value('yacron2_config_last_reload_successful'), 1);
    assert.equal(s.value('yacron2_config_last_reload_success_timestamp_seconds'), T0 / 1000);
    assert.equal(s.value('yacron2_cluster_enabled'), 0);

    // Success.
    const ok = { job_name: 'ok' };
    assert.equal(s.value('yacron2_job_runs_total', { ...ok, status: 'success' }), 1);
    assert.equal(s.value('yacron2_job_runs_total', { ...ok, status: 'failure' }), 0);
    assert.equal(s.value('yacron2_job_runs_total', { ...ok, status: 'cancelled' }), 0);
    assert.equal(
      s.value('yacron2_job_last_success_timestamp_seconds', ok),
      (T0 + MINUTE + 2500) / 1000,
    );
    assert.equal(s.value('yacron2_job_last_failure_timestamp_seconds', ok), undefined);
    assert.equal(s.value('yacron2_job_duration_seconds_bucket', { ...ok, le: '1.0' }), 0);
    assert.equal(s.value('yacron2_job_duration_seconds_bucket', { ...ok, le: '5.0' }), 1);
    assert.equal(s.value('yacron2_job_duration_seconds_bucket', { ...ok, le: '+Inf' }), 1);
    assert.deepEqual(
      s
        .family('yacron2_job_duration_seconds')
        .samples.filter((x) => x.labels['job_name'] === 'ok' && x.name.endsWith('_bucket'))
        .map((x) => x.labels['le']),
      ['0.1', '0.5', '1.0', '5.0', '15.0', '60.0', '300.0', '900.0', '3600.0', '+Inf'],
    );
    assert.equal(s.value('yacron2_job_duration_seconds_sum', ok), 2.5);
    assert.equal(s.value('yacron2_job_duration_seconds_count', ok), 1);
    assert.equal(s.value('yacron2_job_last_run_success', ok), 1);
    assert.equal(s.value('yacron2_job_last_run_exit_code', ok), 0);
    assert.equal(s.value('yacron2_job_last_run_duration_seconds', ok), 2.5);
    assert.equal(
      s.value('yacron2_job_last_run_timestamp_seconds', ok),
      (T0 + MINUTE + 2500) / 1000,
    );
    assert.equal(s.value('yacron2_job_next_run_timestamp_seconds', ok), (T0 + 2 * MINUTE) / 1000);
    assert.equal(s.value('yacron2_job_running', ok), 0);
    assert.equal(s.value('yacron2_job_enabled', ok), 1);

    // A failure, its retry (also failing) and the permanent failure that ends the ladder.
    const bad = { job_name: 'bad' };
    assert.equal(s.value('yacron2_job_runs_total', { ...bad, status: 'failure' }), 2);
    assert.equal(s.value('yacron2_job_retries_total', bad), 1);
    assert.equal(s.value('yacron2_job_permanent_failures_total', bad), 1);
    assert.equal(s.value('yacron2_job_last_run_exit_code', bad), 3);
    assert.equal(s.value('yacron2_job_last_run_success', bad), 0);
    assert.equal(s.value('yacron2_job_duration_seconds_count', bad), 2);
    assert.equal(s.value('yacron2_job_last_success_timestamp_seconds', bad), undefined);
    assert.equal(typeof s.value('yacron2_job_last_failure_timestamp_seconds', bad), 'number');

    // A timeout is a failure with exit code -100 (no retries configured: permanent at once).
    const slow = { job_name: 'slow' };
    assert.equal(s.value('yacron2_job_runs_total', { ...slow, status: 'failure' }), 1);
    assert.equal(s.value('yacron2_job_last_run_exit_code', slow), -100);
    assert.equal(s.value('yacron2_job_last_run_duration_seconds', slow), 5);
    assert.equal(s.value('yacron2_job_permanent_failures_total', slow), 1);
    assert.equal(s.value('yacron2_job_retries_total', slow), 0);
    assert.equal(
      s.value('yacron2_job_last_failure_timestamp_seconds', slow),
      (T0 + MINUTE + 5000) / 1000,
    );

    // A launch failure: a start failure and a failure with exit code 127.
    const nolaunch = { job_name: 'nolaunch' };
    assert.equal(s.value('yacron2_job_start_failures_total', nolaunch), 1);
    assert.equal(s.value('yacron2_job_runs_total', { ...nolaunch, status: 'failure' }), 1);
    assert.equal(s.value('yacron2_job_last_run_exit_code', nolaunch), 127);
    assert.equal(s.value('yacron2_job_start_failures_total', ok), 0);

    // Disabled and @reboot jobs have no next run; the job info carries schedule and policy.
    assert.equal(s.value('yacron2_job_enabled', { job_name: 'off' }), 0);
    assert.equal(s.value('yacron2_job_next_run_timestamp_seconds', { job_name: 'off' }), undefined);
    assert.equal(
      s.value('yacron2_job_next_run_timestamp_seconds', { job_name: 'boot' }),
      undefined,
    );
    assert.equal(s.value('yacron2_job_running', { job_name: 'boot' }), 1);
    assert.equal(
      s.value('yacron2_job_info', {
        job_name: 'boot',
        schedule: '@reboot',
        cluster_policy: 'EveryNode',
      }),
      1,
    );
    assert.equal(
      s.value('yacron2_job_info', {
        job_name: odd,
        schedule: '*/5 * * * *',
        cluster_policy: 'Leader',
      }),
      1,
    );

    // Cumulative families sorted by job name, live families in config order.
    const sorted = ['bad', 'boot', 'nolaunch', odd, 'off', 'ok', 'slow'];
    const configOrder = ['ok', 'bad', 'slow', 'nolaunch', 'off', 'boot', odd];
    assert.deepEqual(s.jobNames('yacron2_job_runs_total'), sorted);
    assert.deepEqual(s.jobNames('yacron2_job_duration_seconds'), sorted);
    assert.deepEqual(s.jobNames('yacron2_job_info'), configOrder);
    assert.deepEqual(s.jobNames('yacron2_job_running'), configOrder);

    await f.stop();
  });

  test('a reload prunes removed jobs, but only once their running instance finished', async () => {
    const f = setUp([
      makeJob({ name: 'ok' }),
      makeJob({ name: 'long', schedule: '@reboot' }),
      makeJob({ name: 'stays' }),
    ]);
    f.runner.setDefault({ exitCode: 0, durationMs: 1000 });
    f.runner.script('long', { exitCode: 0, durationMs: 10 * MINUTE });
    f.scheduler.start();
    await f.clock.advance(MINUTE + 2000);
    const first = await scrape(f.metrics);
    const firstJobSet = first.family('yacron2_job_set_info').samples[0]?.labels['job_set_id'];

    const next = makeConfig([makeJob({ name: 'stays' }), makeJob({ name: 'new' })]);
    f.scheduler.applyConfig(next);
    f.metrics.onConfigReloaded(true, next);
    const reloaded = await scrape(f.metrics);
    assert.deepEqual(reloaded.jobNames('yacron2_job_runs_total'), ['long', 'new', 'stays']);
    assert.deepEqual(reloaded.jobNames('yacron2_job_info'), ['stays', 'new']);
    assert.equal(
      reloaded.value('yacron2_job_runs_total', { job_name: 'stays', status: 'success' }),
      1,
    );
    assert.equal(
      reloaded.value('yacron2_job_runs_total', { job_name: 'new', status: 'success' }),
      0,
    );
    assert.equal(reloaded.value('yacron2_jobs', { state: 'enabled' }), 2);
    const jobSet = reloaded.family('yacron2_job_set_info').samples[0]?.labels['job_set_id'];
    assert.equal(jobSet, next.jobSetId);
    assert.notEqual(jobSet, firstJobSet);

    // A failed parse: the flag drops to 0, the last success time and the job set stay.
    f.clock.setWall(T0 + 5 * MINUTE);
    f.metrics.onConfigReloaded(false);
    const failed = await scrape(f.metrics);
    assert.equal(failed.value('yacron2_config_last_reload_successful'), 0);
    assert.equal(
      failed.value('yacron2_config_last_reload_success_timestamp_seconds'),
      (T0 + MINUTE + 2000) / 1000,
    );
    assert.equal(failed.family('yacron2_job_set_info').samples[0]?.labels['job_set_id'], jobSet);

    await f.clock.advance(10 * MINUTE); // 'long' finishes: recorded, then pruned
    const done = await scrape(f.metrics);
    assert.deepEqual(done.jobNames('yacron2_job_runs_total'), ['new', 'stays']);
    await f.stop();
  });

  test('Replace-killed runs are not runs; manual cancels count as cancelled', async () => {
    const f = setUp([
      makeJob({ name: 'rep', concurrencyPolicy: 'Replace' }),
      makeJob({ name: 'manual', schedule: '0 0 1 1 *' }),
    ]);
    f.scheduler.start();
    await f.clock.advance(MINUTE); // rep #1 runs (manual completion)
    await f.clock.advance(MINUTE); // rep #2 replaces it
    await f.scheduler.startJob('manual');
    await f.scheduler.cancelJob('manual');
    const s = await scrape(f.metrics);
    for (const status of ['success', 'failure', 'cancelled']) {
      assert.equal(s.value('yacron2_job_runs_total', { job_name: 'rep', status }), 0, status);
    }
    assert.equal(s.value('yacron2_job_duration_seconds_count', { job_name: 'rep' }), 0);
    assert.equal(s.value('yacron2_job_running', { job_name: 'rep' }), 1);
    assert.equal(s.value('yacron2_job_last_run_timestamp_seconds', { job_name: 'rep' }), undefined);
    const manual = { job_name: 'manual' };
    assert.equal(s.value('yacron2_job_runs_total', { ...manual, status: 'cancelled' }), 1);
    assert.equal(s.value('yacron2_job_runs_total', { ...manual, status: 'failure' }), 0);
    assert.equal(s.value('yacron2_job_last_run_success', manual), 0);
    assert.equal(s.value('yacron2_job_permanent_failures_total', manual), 0);
    await f.stop();
  });

  test('new histogram bounds reset every histogram and keep the counters', async () => {
    const f = setUp([makeJob({ name: 'ok' })]);
    f.runner.setDefault({ exitCode: 0, durationMs: 700 });
    f.scheduler.start();
    await f.clock.advance(MINUTE + 1000);
    f.metrics.setDurationBuckets([0.5, 1, 2.5]);
    let s = await scrape(f.metrics);
    assert.deepEqual(
      s
        .family('yacron2_job_duration_seconds')
        .samples.map((x) => [x.name, x.labels['le'], x.value]),
      [
        ['yacron2_job_duration_seconds_bucket', '0.5', 0],
        ['yacron2_job_duration_seconds_bucket', '1.0', 0],
        ['yacron2_job_duration_seconds_bucket', '2.5', 0],
        ['yacron2_job_duration_seconds_bucket', '+Inf', 0],
        ['yacron2_job_duration_seconds_sum', undefined, 0],
        ['yacron2_job_duration_seconds_count', undefined, 0],
      ],
    );
    assert.equal(s.value('yacron2_job_runs_total', { job_name: 'ok', status: 'success' }), 1);
    await f.clock.advance(MINUTE);
    s = await scrape(f.metrics);
    assert.equal(s.value('yacron2_job_duration_seconds_bucket', { le: '0.5' }), 0);
    assert.equal(s.value('yacron2_job_duration_seconds_bucket', { le: '1.0' }), 1);
    assert.equal(s.value('yacron2_job_duration_seconds_sum'), 0.7);
    assert.throws(() => f.metrics.setDurationBuckets([1, 1]), /strictly increasing/);
    await f.stop();
  });

  test('config reload state is absent before the first parse result', async () => {
    const clock = new FakeClock(T0);
    const metrics = createMetrics({ clock, config: makeConfig([]), processStartMs: T0 });
    const s = new Scrape(parseExposition((await metrics.render()).body, 'text'));
    assert.equal(s.families.has('yacron2_config_last_reload_successful'), false);
    assert.equal(s.families.has('yacron2_config_last_reload_success_timestamp_seconds'), false);
    assert.equal(s.value('yacron2_jobs', { state: 'enabled' }), 0);
    assert.equal(s.families.has('yacron2_job_runs_total'), false); // no jobs, no samples
  });
});

describe('resource families (monitorResources runs)', () => {
  test('CPU and peak RSS appear after the first monitored run', async () => {
    const clock = new FakeClock(T0);
    const job = makeJob({ name: 'mon' });
    const metrics = createMetrics({ clock, config: makeConfig([job]), processStartMs: T0 });
    const events = new TypedEmitter<SchedulerEvents>();
    metrics.subscribe({ events, getNextFireAtMs: () => null });
    const started: RunStartedEvent = {
      job,
      runId: 'r1',
      pid: 42,
      trigger: 'schedule',
      attempt: 0,
      scheduledAtMs: T0,
      startedAtMs: T0,
      decisionLatenessMs: 0,
      launchDelayMs: 0,
    };
    let s = new Scrape(parseExposition((await metrics.render()).body, 'text'));
    for (const name of MONITORED_ONLY) assert.equal(s.families.has(name), false, name);

    const finished = (runId: string, cpuUser: number, cpuSystem: number, rss: number) =>
      ({
        job,
        runId,
        trigger: 'schedule',
        attempt: 0,
        scheduledAtMs: T0,
        recorded: true,
        disposition: 'success',
        outcome: {
          kind: 'succeeded',
          exitCode: 0,
          failReason: null,
          cancelReason: null,
          pid: 42,
          startedAtMs: T0,
          finishedAtMs: T0 + 2000,
          durationMs: 2000,
          stdout: null,
          stderr: null,
          environment: null,
          spawnError: null,
        },
        summary: {
          outcome: 'success',
          exitCode: 0,
          startedAtMs: null,
          finishedAtMs: T0 + 2000,
          durationMs: 2000,
          failReason: null,
          resources: {
            cpuUserSeconds: cpuUser,
            cpuSystemSeconds: cpuSystem,
            cpuTotalSeconds: cpuUser + cpuSystem,
            maxRssBytes: rss,
            samples: 3,
          },
        },
      }) satisfies RunFinishedEvent;
    events.emit('run:started', started);
    events.emit('run:finished', finished('r1', 1.5, 0.25, 4096));
    events.emit('run:started', { ...started, runId: 'r2' });
    events.emit('run:finished', finished('r2', 0.5, 0.25, 1024));
    s = new Scrape(parseExposition((await metrics.render()).body, 'text'));
    const mon = { job_name: 'mon' };
    assert.equal(s.value('yacron2_job_cpu_seconds_total', { ...mon, mode: 'user' }), 2);
    assert.equal(s.value('yacron2_job_cpu_seconds_total', { ...mon, mode: 'system' }), 0.5);
    assert.equal(s.value('yacron2_job_peak_rss_bytes', mon), 4096);
    assert.equal(s.value('yacron2_job_last_run_cpu_seconds', mon), 0.75);
    assert.equal(s.value('yacron2_job_last_run_max_rss_bytes', mon), 1024);
    for (const [name, type, labels] of SPEC_FAMILIES.filter(([n]) => MONITORED_ONLY.has(n))) {
      assert.equal(s.family(name).type, type);
      for (const sample of s.family(name).samples) {
        assert.deepEqual(Object.keys(sample.labels), labels);
      }
    }
  });
});
