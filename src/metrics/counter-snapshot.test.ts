// Restart-durable counters: a snapshot of one Metrics seeded into a fresh one continues every
// cumulative family; removed jobs, changed buckets, a second seed and hostile store files.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeClock, TypedEmitter } from '../common/index.js';
import type { ResolvedJob } from '../config/index.js';
import {
  type RunFinishedEvent,
  type RunSummaryOutcome,
  type RunResources,
  type SchedulerEvents,
} from '../scheduler/index.js';
import { makeConfig, makeJob } from '../config/testing.js';
import type { CounterSnapshot } from './counter-snapshot.js';
import { createMetrics, type Metrics } from './create-metrics.js';
import { parseExposition, type ParsedFamily } from './exposition-parser.js';

const T0 = Date.UTC(2026, 0, 1);

interface Rig {
  readonly metrics: Metrics;
  readonly jobs: readonly ResolvedJob[];
  run(name: string, options: RunOptions): void;
  permanentFailure(name: string): void;
}

interface RunOptions {
  readonly outcome: RunSummaryOutcome;
  readonly finishedAtMs: number;
  /** Seconds; null = no duration. */
  readonly duration?: number | null;
  readonly retry?: boolean;
  readonly spawnFailed?: boolean;
  readonly resources?: RunResources | null;
}

function createRig(names: readonly string[], durationBucketsSeconds?: readonly number[]): Rig {
  const jobs = names.map((name) => makeJob({ name }));
  const clock = new FakeClock(T0);
  const metrics = createMetrics({
    clock,
    config: makeConfig(jobs),
    processStartMs: T0,
    ...(durationBucketsSeconds ? { durationBucketsSeconds } : {}),
  });
  const events = new TypedEmitter<SchedulerEvents>();
  metrics.subscribe({ events, getNextFireAtMs: () => null });
  const jobOf = (name: string): ResolvedJob => {
    const job = jobs.find((candidate) => candidate.name === name);
    assert.ok(job, name);
    return job;
  };
  let runIds = 0;
  return {
    metrics,
    jobs,
    run(name, options) {
      const job = jobOf(name);
      const runId = `r${++runIds}`;
      const duration = options.duration === undefined ? 1 : options.duration;
      const startedAtMs = options.finishedAtMs - (duration ?? 0) * 1000;
      events.emit('run:started', {
        job,
        runId,
        pid: 1,
        trigger: options.retry ? 'retry' : 'schedule',
        attempt: options.retry ? 1 : 0,
        scheduledAtMs: null,
        startedAtMs,
        decisionLatenessMs: null,
        launchDelayMs: 0,
      });
      const finished: RunFinishedEvent = {
        job,
        runId,
        trigger: 'schedule',
        attempt: 0,
        scheduledAtMs: null,
        recorded: true,
        disposition: options.outcome === 'success' ? 'success' : 'failure',
        outcome: {
          kind: options.spawnFailed ? 'spawn-failed' : 'succeeded',
          exitCode: options.spawnFailed ? 127 : 0,
          failReason: null,
          cancelReason: null,
          pid: 1,
          startedAtMs,
          finishedAtMs: options.finishedAtMs,
          durationMs: (duration ?? 0) * 1000,
          stdout: null,
          stderr: null,
          environment: null,
          spawnError: null,
        },
        summary: {
          outcome: options.outcome,
          exitCode: options.spawnFailed ? 127 : 0,
          startedAtMs: null,
          finishedAtMs: options.finishedAtMs,
          durationMs: duration === null ? null : duration * 1000,
          failReason: null,
          resources: options.resources ?? null,
        },
      };
      events.emit('run:finished', finished);
    },
    permanentFailure(name) {
      const job = jobOf(name);
      events.emit('report:permanently-failed', {
        job,
        runId: 'p',
        outcome: {
          kind: 'failed',
          exitCode: 1,
          failReason: 'x',
          cancelReason: null,
          pid: 1,
          startedAtMs: T0,
          finishedAtMs: T0,
          durationMs: 0,
          stdout: null,
          stderr: null,
          environment: null,
          spawnError: null,
        },
        summary: {
          outcome: 'failure',
          exitCode: 1,
          startedAtMs: null,
          finishedAtMs: T0,
          durationMs: 0,
          failReason: 'x',
          resources: null,
        },
      });
    },
  };
}

function resources(user: number, system: number, rss: number): RunResources {
  return {
    cpuUserSeconds: user,
    cpuSystemSeconds: system,
    cpuTotalSeconds: user + system,
    maxRssBytes: rss,
    samples: 1,
  };
}

/** A scrape's samples as `name{k="v",…} value` lines for one job, cumulative families only. */
async function jobSamples(metrics: Metrics, job: string): Promise<Map<string, number>> {
  const families: ParsedFamily[] = parseExposition((await metrics.render()).body, 'text');
  const samples = new Map<string, number>();
  for (const family of families) {
    for (const sample of family.samples) {
      if (sample.labels['job_name'] !== job) continue;
      const { job_name: _job, ...rest } = sample.labels;
      const labels = Object.entries(rest)
        .map(([key, value]) => `${key}=${value}`)
        .join(',');
      samples.set(labels ? `${sample.name}{${labels}}` : sample.name, sample.value);
    }
  }
  return samples;
}

/** A rig for jobs a and b with some history: successes, failures, a retry, a spawn failure. */
function rigWithHistory(buckets?: readonly number[]): Rig {
  const rig = createRig(['a', 'b'], buckets);
  rig.run('a', { outcome: 'success', finishedAtMs: T0 + 1000, duration: 0.25 });
  rig.run('a', {
    outcome: 'success',
    finishedAtMs: T0 + 5000,
    duration: 7,
    resources: resources(1.5, 0.5, 4096),
  });
  rig.run('a', { outcome: 'failure', finishedAtMs: T0 + 3000, duration: 2 });
  rig.run('a', { outcome: 'failure', finishedAtMs: T0 + 4000, duration: 0.0625, retry: true });
  rig.run('a', { outcome: 'failure', finishedAtMs: T0 + 4500, spawnFailed: true, duration: 0 });
  rig.run('a', { outcome: 'cancelled', finishedAtMs: T0 + 6000, duration: null });
  rig.permanentFailure('a');
  rig.run('b', { outcome: 'success', finishedAtMs: T0 + 2000, duration: 100 });
  return rig;
}

describe('snapshotCounters()', () => {
  test('holds every cumulative accumulator of every job with series, as plain JSON', () => {
    const rig = rigWithHistory();
    const snapshot = rig.metrics.snapshotCounters();
    assert.deepEqual(JSON.parse(JSON.stringify(snapshot)), snapshot);
    assert.equal(snapshot.version, 1);
    assert.deepEqual(snapshot.durationBucketsSeconds, [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600]);
    assert.deepEqual(
      snapshot.jobs.map((job) => job.name),
      ['a', 'b'],
    );
    assert.deepEqual(snapshot.jobs[0], {
      name: 'a',
      runs: { success: 2, failure: 3, cancelled: 1 },
      retries: 1,
      permanentFailures: 1,
      startFailures: 1,
      duration: { counts: [2, 1, 0, 1, 1, 0, 0, 0, 0, 0], sum: 9.3125, count: 5 },
      lastSuccessMs: T0 + 5000,
      lastFailureMs: T0 + 4500,
      cpuUserSeconds: 1.5,
      cpuSystemSeconds: 0.5,
      peakRssBytes: 4096,
    });
    assert.deepEqual(snapshot.jobs[1], {
      name: 'b',
      runs: { success: 1, failure: 0, cancelled: 0 },
      retries: 0,
      permanentFailures: 0,
      startFailures: 0,
      duration: { counts: [0, 0, 0, 0, 0, 0, 1, 0, 0, 0], sum: 100, count: 1 },
      lastSuccessMs: T0 + 2000,
      lastFailureMs: null,
      cpuUserSeconds: null,
      cpuSystemSeconds: null,
      peakRssBytes: null,
    });
  });

  test('is a copy: later runs do not change a snapshot already taken', () => {
    const rig = createRig(['a']);
    rig.run('a', { outcome: 'success', finishedAtMs: T0, duration: 0.25 });
    const snapshot = rig.metrics.snapshotCounters();
    rig.run('a', { outcome: 'success', finishedAtMs: T0 + 1, duration: 0.25 });
    assert.deepEqual(snapshot.jobs[0]?.duration.counts, [0, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert.equal(snapshot.jobs[0]?.runs.success, 1);
  });
});

describe('seedCounters()', () => {
  test('a fresh Metrics seeded from a snapshot renders the continued counts', async () => {
    const before = rigWithHistory();
    const stored: unknown = JSON.parse(JSON.stringify(before.metrics.snapshotCounters()));
    const expected = await jobSamples(before.metrics, 'a');

    const after = createRig(['a', 'b']);
    assert.deepEqual(after.metrics.seedCounters(stored, new Set(['a', 'b'])), { seededJobs: 2 });
    const seeded = await jobSamples(after.metrics, 'a');
    // Everything cumulative carries over; the live last-run gauges describe this process only.
    for (const [key, value] of expected) {
      if (key.startsWith('yacron2_job_last_run_')) continue;
      assert.equal(seeded.get(key), value, key);
    }
    assert.equal(seeded.get('yacron2_job_last_run_timestamp_seconds'), undefined);

    // New events add on top of the seeded values.
    after.run('a', { outcome: 'success', finishedAtMs: T0 + 10_000, duration: 0.25 });
    after.run('a', {
      outcome: 'success',
      finishedAtMs: T0 + 11_000,
      resources: resources(1, 1, 1024),
    });
    const next = await jobSamples(after.metrics, 'a');
    assert.equal(next.get('yacron2_job_runs_total{status=success}'), 4);
    assert.equal(next.get('yacron2_job_runs_total{status=failure}'), 3);
    assert.equal(next.get('yacron2_job_duration_seconds_count'), 7);
    assert.equal(next.get('yacron2_job_duration_seconds_bucket{le=0.5}'), 4);
    assert.equal(next.get('yacron2_job_last_success_timestamp_seconds'), (T0 + 11_000) / 1000);
    assert.equal(next.get('yacron2_job_cpu_seconds_total{mode=user}'), 2.5);
    assert.equal(next.get('yacron2_job_peak_rss_bytes'), 4096);
    const b = await jobSamples(after.metrics, 'b');
    assert.equal(b.get('yacron2_job_runs_total{status=success}'), 1);
    assert.equal(b.get('yacron2_job_duration_seconds_sum'), 100);
  });

  test('adds into runs that finished before the seed; timestamps take the later instant', async () => {
    const before = createRig(['a']);
    before.run('a', { outcome: 'success', finishedAtMs: T0 + 9000 });
    before.run('a', { outcome: 'failure', finishedAtMs: T0 + 1000 });
    const stored = before.metrics.snapshotCounters();

    const after = createRig(['a']);
    after.run('a', { outcome: 'success', finishedAtMs: T0 + 5000 });
    after.run('a', { outcome: 'failure', finishedAtMs: T0 + 7000 });
    after.metrics.seedCounters(stored, new Set(['a']));
    const s = await jobSamples(after.metrics, 'a');
    assert.equal(s.get('yacron2_job_runs_total{status=success}'), 2);
    assert.equal(s.get('yacron2_job_runs_total{status=failure}'), 2);
    assert.equal(s.get('yacron2_job_last_success_timestamp_seconds'), (T0 + 9000) / 1000);
    assert.equal(s.get('yacron2_job_last_failure_timestamp_seconds'), (T0 + 7000) / 1000);
  });

  test('seeds only jobs still configured', async () => {
    const stored = rigWithHistory().metrics.snapshotCounters();
    const after = createRig(['b', 'c']);
    // 'a' is gone from the config; a caller naming it anyway does not bring its series back.
    assert.deepEqual(after.metrics.seedCounters(stored, new Set(['a', 'b', 'c'])), {
      seededJobs: 1,
    });
    const body = (await after.metrics.render()).body;
    assert.doesNotMatch(body, /job_name="a"/);
    const b = await jobSamples(after.metrics, 'b');
    assert.equal(b.get('yacron2_job_runs_total{status=success}'), 1);
    const c = await jobSamples(after.metrics, 'c');
    assert.equal(c.get('yacron2_job_runs_total{status=success}'), 0);
  });

  test('skips jobs the caller does not list as configured', async () => {
    const stored = rigWithHistory().metrics.snapshotCounters();
    const after = createRig(['a', 'b']);
    assert.deepEqual(after.metrics.seedCounters(stored, new Set(['b'])), { seededJobs: 1 });
    const a = await jobSamples(after.metrics, 'a');
    assert.equal(a.get('yacron2_job_runs_total{status=success}'), 0);
  });

  test('changed bucket bounds: the counters are restored, the histogram is not', async () => {
    const stored = rigWithHistory().metrics.snapshotCounters();
    const after = createRig(['a', 'b'], [1, 10, 100]);
    assert.deepEqual(after.metrics.seedCounters(stored, new Set(['a', 'b'])), { seededJobs: 2 });
    const a = await jobSamples(after.metrics, 'a');
    assert.equal(a.get('yacron2_job_runs_total{status=success}'), 2);
    assert.equal(a.get('yacron2_job_retries_total'), 1);
    assert.equal(a.get('yacron2_job_duration_seconds_count'), 0);
    assert.equal(a.get('yacron2_job_duration_seconds_sum'), 0);
    assert.equal(a.get('yacron2_job_duration_seconds_bucket{le=+Inf}'), 0);
    assert.equal(a.get('yacron2_job_duration_seconds_bucket{le=1.0}'), 0);
  });

  test('only the first call seeds: a second one would double-count', async () => {
    const stored = rigWithHistory().metrics.snapshotCounters();
    const after = createRig(['a', 'b']);
    assert.deepEqual(after.metrics.seedCounters(stored, new Set(['a'])), { seededJobs: 1 });
    assert.deepEqual(after.metrics.seedCounters(stored, new Set(['a', 'b'])), { seededJobs: 0 });
    const a = await jobSamples(after.metrics, 'a');
    assert.equal(a.get('yacron2_job_runs_total{status=success}'), 2);
  });

  test('never seeds yacron2_start_time_seconds', async () => {
    const stored = rigWithHistory().metrics.snapshotCounters();
    const after = createRig(['a']);
    after.metrics.seedCounters({ ...stored, startTimeSeconds: 1 }, new Set(['a']));
    const families = parseExposition((await after.metrics.render()).body, 'text');
    const start = families.find((family) => family.name === 'yacron2_start_time_seconds');
    assert.equal(start?.samples[0]?.value, T0 / 1000);
  });
});

describe('seedCounters() with a hostile snapshot', () => {
  const good = (): CounterSnapshot => rigWithHistory().metrics.snapshotCounters();
  /** The first job entry of a good snapshot with one field replaced. */
  const withEntry = (patch: Record<string, unknown>): unknown => {
    const snapshot = good();
    return { ...snapshot, jobs: [{ ...snapshot.jobs[0], ...patch }] };
  };

  async function seedInto(snapshot: unknown): Promise<{ seeded: number; a: Map<string, number> }> {
    const rig = createRig(['a', 'b']);
    const { seededJobs } = rig.metrics.seedCounters(snapshot, new Set(['a', 'b']));
    return { seeded: seededJobs, a: await jobSamples(rig.metrics, 'a') };
  }

  const wholeFiles: readonly (readonly [string, unknown])[] = [
    ['undefined', undefined],
    ['null', null],
    ['a number', 42],
    ['a string', '{"version":1}'],
    ['an array', [good()]],
    ['an unknown version', { ...good(), version: 2 }],
    ['a string version', { ...good(), version: '1' }],
    ['jobs not an array', { ...good(), jobs: { a: good().jobs[0] } }],
    ['jobs missing', { version: 1, durationBucketsSeconds: [] }],
  ];
  for (const [label, snapshot] of wholeFiles) {
    test(`ignores ${label} without throwing`, async () => {
      const { seeded, a } = await seedInto(snapshot);
      assert.equal(seeded, 0);
      assert.equal(a.get('yacron2_job_runs_total{status=success}'), 0);
    });
  }

  const entries: readonly (readonly [string, Record<string, unknown>])[] = [
    ['a negative count', { retries: -1 }],
    ['a fractional count', { retries: 1.5 }],
    ['a NaN count', { startFailures: NaN }],
    ['an unsafe count', { permanentFailures: 2 ** 60 }],
    ['a string count', { retries: '3' }],
    ['runs not an object', { runs: [1, 2, 3] }],
    ['a missing runs status', { runs: { success: 1, failure: 1 } }],
    ['an Infinity timestamp', { lastSuccessMs: Infinity }],
    ['a timestamp beyond the Date range', { lastFailureMs: 9e15 }],
    ['a negative timestamp', { lastFailureMs: -5 }],
    ['only one CPU mode', { cpuSystemSeconds: null }],
    ['a negative peak RSS', { peakRssBytes: -1 }],
    ['a histogram of the wrong length', { duration: { counts: [1], sum: 1, count: 1 } }],
    [
      'a histogram whose count is not the sum of its buckets',
      { duration: { counts: [2, 1, 0, 1, 1, 0, 0, 0, 0, 0], sum: 9.3125, count: 99 } },
    ],
    [
      'a histogram with a NaN sum',
      { duration: { counts: [2, 1, 0, 1, 1, 0, 0, 0, 0, 0], sum: NaN, count: 5 } },
    ],
    ['a huge histogram array', { duration: { counts: new Array(1e6).fill(0), sum: 0, count: 0 } }],
    ['a name that is not a string', { name: 7 }],
  ];
  for (const [label, patch] of entries) {
    test(`skips an entry with ${label}, seeding nothing of it`, async () => {
      const { seeded, a } = await seedInto(withEntry(patch));
      assert.equal(seeded, 0);
      assert.equal(a.get('yacron2_job_runs_total{status=success}'), 0);
      assert.equal(a.get('yacron2_job_retries_total'), 0);
      assert.equal(a.get('yacron2_job_duration_seconds_count'), 0);
    });
  }

  test('skips bad entries and keeps the good ones; a duplicate job seeds once', async () => {
    const snapshot = good();
    const [a, b] = snapshot.jobs;
    const { seeded, a: samples } = await seedInto({
      ...snapshot,
      jobs: [null, 'a', 7, [], { name: 'a' }, { ...a, retries: -1 }, a, a, b, { ...b, name: '' }],
    });
    assert.equal(seeded, 2);
    assert.equal(samples.get('yacron2_job_runs_total{status=success}'), 2);
    assert.equal(samples.get('yacron2_job_retries_total'), 1);
  });

  test('ignores inherited and prototype-polluting keys', async () => {
    const entry: unknown = JSON.parse(
      '{"name":"a","__proto__":{"retries":5},"runs":{"success":1,"failure":0,"cancelled":0},' +
        '"permanentFailures":0,"startFailures":0}',
    );
    const { seeded } = await seedInto({ ...good(), jobs: [entry] });
    assert.equal(seeded, 0); // `retries` is only "present" through the prototype
    assert.equal(({} as Record<string, unknown>)['retries'], undefined);
  });

  test('treats absent or garbage bucket bounds as changed bounds', async () => {
    for (const bounds of [undefined, 'x', [0.1, 'x'], new Array(1e6).fill(1)]) {
      const { seeded, a } = await seedInto({ ...good(), durationBucketsSeconds: bounds });
      assert.equal(seeded, 2);
      assert.equal(a.get('yacron2_job_runs_total{status=success}'), 2);
      assert.equal(a.get('yacron2_job_duration_seconds_count'), 0);
    }
  });

  test('a huge job list is walked no further than needed', async () => {
    const snapshot = good();
    const jobs = [...snapshot.jobs, ...new Array<null>(1e6).fill(null)];
    const { seeded } = await seedInto({ ...snapshot, jobs });
    assert.equal(seeded, 2);
  });
});
