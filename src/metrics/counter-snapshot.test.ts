// Restart-durable counters: a snapshot of one Metrics seeded into a fresh one continues every
// cumulative family; removed jobs, changed buckets, a second seed and hostile store files.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dumpPythonJson, FakeClock, TypedEmitter } from '../common/index.js';
import type { ResolvedJob } from '../config/index.js';
import {
  type RunFinishedEvent,
  type RunSummaryOutcome,
  type RunResources,
  type SchedulerEvents,
} from '../scheduler/index.js';
import { makeConfig, makeJob } from '../config/testing.js';
import { runOutcome } from '../runner/testing.js';
import { readGoldenExpected } from '../state/testing.js';
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
        outcome: runOutcome({
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
        }),
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

/** A snapshot as the store holds it: the reference's JSON bytes, parsed back. */
function stored(rig: Rig): Record<string, unknown> {
  return JSON.parse(dumpPythonJson(rig.metrics.snapshotCounters())) as Record<string, unknown>;
}

describe('snapshotCounters()', () => {
  test('holds every cumulative accumulator of every job with series, in the reference record body', () => {
    const rig = rigWithHistory();
    const snapshot = rig.metrics.snapshotCounters();
    // Field names, int/float types and key order as the reference writes them (T0 = 1767225600).
    assert.equal(
      dumpPythonJson(snapshot),
      '{"buckets":[0.1,0.5,1.0,5.0,15.0,60.0,300.0,900.0,3600.0],"jobs":{' +
        '"a":{"bucket_counts":[2,3,3,4,5,5,5,5,5],"cpu_count":1,"cpu_system_sum":0.5,' +
        '"cpu_user_sum":1.5,"duration_count":5,"duration_sum":9.3125,' +
        '"last_failure_time":1767225604.5,"last_success_time":1767225605.0,' +
        '"max_rss_observed":4096,"permanent_failures":1,"retries":1,' +
        '"runs":{"cancelled":1,"failure":3,"success":2},"start_failures":1},' +
        '"b":{"bucket_counts":[0,0,0,0,0,0,1,1,1],"cpu_count":0,"cpu_system_sum":0.0,' +
        '"cpu_user_sum":0.0,"duration_count":1,"duration_sum":100.0,' +
        '"last_failure_time":null,"last_success_time":1767225602.0,' +
        '"max_rss_observed":0,"permanent_failures":0,"retries":0,"runs":{"success":1},' +
        '"start_failures":0}}}',
    );
  });

  test('leaves out configured jobs that accumulated nothing yet, as the reference does', () => {
    const rig = createRig(['a', 'idle']);
    rig.run('a', { outcome: 'cancelled', finishedAtMs: T0, duration: null });
    assert.deepEqual(Object.keys(rig.metrics.snapshotCounters().jobs), ['a']);
  });

  test('is a copy: later runs do not change a snapshot already taken', () => {
    const rig = createRig(['a']);
    rig.run('a', { outcome: 'success', finishedAtMs: T0, duration: 0.25 });
    const snapshot = rig.metrics.snapshotCounters();
    rig.run('a', { outcome: 'success', finishedAtMs: T0 + 1, duration: 0.25 });
    assert.deepEqual(snapshot.jobs['a']?.bucket_counts, [0, 1, 1, 1, 1, 1, 1, 1, 1]);
    assert.equal(snapshot.jobs['a']?.runs.success, 1);
  });
});

describe('seedCounters()', () => {
  test('a fresh Metrics seeded from a snapshot renders the continued counts', async () => {
    const before = rigWithHistory();
    const snapshot = stored(before);
    const expected = await jobSamples(before.metrics, 'a');

    const after = createRig(['a', 'b']);
    assert.deepEqual(after.metrics.seedCounters(snapshot, new Set(['a', 'b'])), {
      seededJobs: 2,
    });
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
    const snapshot = stored(before);

    const after = createRig(['a']);
    after.run('a', { outcome: 'success', finishedAtMs: T0 + 5000 });
    after.run('a', { outcome: 'failure', finishedAtMs: T0 + 7000 });
    after.metrics.seedCounters(snapshot, new Set(['a']));
    const s = await jobSamples(after.metrics, 'a');
    assert.equal(s.get('yacron2_job_runs_total{status=success}'), 2);
    assert.equal(s.get('yacron2_job_runs_total{status=failure}'), 2);
    assert.equal(s.get('yacron2_job_last_success_timestamp_seconds'), (T0 + 9000) / 1000);
    assert.equal(s.get('yacron2_job_last_failure_timestamp_seconds'), (T0 + 7000) / 1000);
  });

  test('seeds only jobs still configured', async () => {
    const snapshot = stored(rigWithHistory());
    const after = createRig(['b', 'c']);
    // 'a' is gone from the config; a caller naming it anyway does not bring its series back.
    assert.deepEqual(after.metrics.seedCounters(snapshot, new Set(['a', 'b', 'c'])), {
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
    const snapshot = stored(rigWithHistory());
    const after = createRig(['a', 'b']);
    assert.deepEqual(after.metrics.seedCounters(snapshot, new Set(['b'])), { seededJobs: 1 });
    const a = await jobSamples(after.metrics, 'a');
    assert.equal(a.get('yacron2_job_runs_total{status=success}'), 0);
  });

  test('changed bucket bounds: the counters are restored, the histogram is not', async () => {
    const snapshot = stored(rigWithHistory());
    const after = createRig(['a', 'b'], [1, 10, 100]);
    assert.deepEqual(after.metrics.seedCounters(snapshot, new Set(['a', 'b'])), { seededJobs: 2 });
    const a = await jobSamples(after.metrics, 'a');
    assert.equal(a.get('yacron2_job_runs_total{status=success}'), 2);
    assert.equal(a.get('yacron2_job_retries_total'), 1);
    assert.equal(a.get('yacron2_job_duration_seconds_count'), 0);
    assert.equal(a.get('yacron2_job_duration_seconds_sum'), 0);
    assert.equal(a.get('yacron2_job_duration_seconds_bucket{le=+Inf}'), 0);
    assert.equal(a.get('yacron2_job_duration_seconds_bucket{le=1.0}'), 0);
  });

  test('only the first call seeds: a second one would double-count', async () => {
    const snapshot = stored(rigWithHistory());
    const after = createRig(['a', 'b']);
    assert.deepEqual(after.metrics.seedCounters(snapshot, new Set(['a'])), { seededJobs: 1 });
    assert.deepEqual(after.metrics.seedCounters(snapshot, new Set(['a', 'b'])), { seededJobs: 0 });
    const a = await jobSamples(after.metrics, 'a');
    assert.equal(a.get('yacron2_job_runs_total{status=success}'), 2);
  });

  test('never seeds yacron2_start_time_seconds', async () => {
    const snapshot = stored(rigWithHistory());
    const after = createRig(['a']);
    after.metrics.seedCounters({ ...snapshot, startTimeSeconds: 1 }, new Set(['a']));
    const families = parseExposition((await after.metrics.render()).body, 'text');
    const start = families.find((family) => family.name === 'yacron2_start_time_seconds');
    assert.equal(start?.samples[0]?.value, T0 / 1000);
  });
});

describe('seedCounters() with a snapshot the Python reference wrote', () => {
  test("continues every family of the golden store's newest counters record", async () => {
    const golden = await readGoldenExpected();
    const record = golden.records['counters/vm']!.records[0]!.data;
    const names = ['Report.Daily', 'archiver', 'boot-once', 'flaky', 'ticker', 'writer', 'probe'];
    const rig = createRig(names);
    assert.deepEqual(rig.metrics.seedCounters(record, new Set(names)), { seededJobs: 6 });
    const ticker = await jobSamples(rig.metrics, 'ticker');
    assert.equal(ticker.get('yacron2_job_runs_total{status=success}'), 3);
    assert.equal(ticker.get('yacron2_job_runs_total{status=failure}'), 0);
    assert.equal(ticker.get('yacron2_job_duration_seconds_count'), 3);
    assert.equal(ticker.get('yacron2_job_duration_seconds_sum'), 0.490803);
    assert.equal(ticker.get('yacron2_job_duration_seconds_bucket{le=0.1}'), 2);
    assert.equal(ticker.get('yacron2_job_duration_seconds_bucket{le=0.5}'), 3);
    assert.equal(ticker.get('yacron2_job_duration_seconds_bucket{le=+Inf}'), 3);
    assert.equal(ticker.get('yacron2_job_last_success_timestamp_seconds'), 1796135456.005024);
    assert.equal(ticker.get('yacron2_job_cpu_seconds_total{mode=user}'), undefined);
    assert.equal(ticker.get('yacron2_job_peak_rss_bytes'), undefined);
    const flaky = await jobSamples(rig.metrics, 'flaky');
    assert.equal(flaky.get('yacron2_job_runs_total{status=failure}'), 1);
    assert.equal(flaky.get('yacron2_job_last_failure_timestamp_seconds'), 1796135451.60663);
    assert.equal(flaky.get('yacron2_job_last_success_timestamp_seconds'), undefined);
    const probe = await jobSamples(rig.metrics, 'probe');
    assert.equal(probe.get('yacron2_job_runs_total{status=success}'), 0);
    // What we write back is the reference's record body for the same accumulators.
    const ours = JSON.parse(dumpPythonJson(rig.metrics.snapshotCounters())) as {
      jobs: Record<string, unknown>;
    };
    const theirs = record['jobs'] as Record<string, unknown>;
    for (const name of Object.keys(theirs)) assert.deepEqual(ours.jobs[name], theirs[name], name);
  });
});

describe('seedCounters() with a hostile snapshot', () => {
  const good = (): Record<string, unknown> => stored(rigWithHistory());
  /** Job a's entry of a good snapshot with fields replaced (b dropped). */
  const withEntry = (patch: Record<string, unknown>): unknown => {
    const snapshot = good();
    const jobs = snapshot['jobs'] as Record<string, Record<string, unknown>>;
    return { ...snapshot, jobs: { a: { ...jobs['a'], ...patch } } };
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
    ['a string', '{"jobs":{}}'],
    ['an array', [good()]],
    ['jobs an array', { ...good(), jobs: [{ name: 'a' }] }],
    ['jobs missing', { buckets: [] }],
  ];
  for (const [label, snapshot] of wholeFiles) {
    test(`ignores ${label} without throwing`, async () => {
      const { seeded, a } = await seedInto(snapshot);
      assert.equal(seeded, 0);
      assert.equal(a.get('yacron2_job_runs_total{status=success}'), 0);
    });
  }

  // Each field is checked alone: a bad one is skipped, the others of the entry still seed.
  const fields: readonly (readonly [string, Record<string, unknown>, string, number])[] = [
    ['a negative count', { retries: -1 }, 'yacron2_job_retries_total', 0],
    ['a fractional count', { retries: 1.5 }, 'yacron2_job_retries_total', 0],
    ['a string count', { retries: '3' }, 'yacron2_job_retries_total', 0],
    ['an unsafe count', { permanent_failures: 2 ** 60 }, 'yacron2_job_permanent_failures_total', 0],
    ['a bool count', { start_failures: true }, 'yacron2_job_start_failures_total', 0],
    ['runs not an object', { runs: [1, 2, 3] }, 'yacron2_job_runs_total{status=failure}', 0],
    [
      'one bad runs status',
      { runs: { success: 'x', failure: 3 } },
      'yacron2_job_runs_total{status=failure}',
      3,
    ],
    ['a string timestamp', { last_success_time: '5' }, 'yacron2_job_retries_total', 1],
    ['a negative timestamp', { last_failure_time: -5 }, 'yacron2_job_retries_total', 1],
    ['a negative peak RSS', { max_rss_observed: -1 }, 'yacron2_job_retries_total', 1],
    ['a fractional peak RSS', { max_rss_observed: 1.5 }, 'yacron2_job_retries_total', 1],
  ];
  for (const [label, patch, family, value] of fields) {
    test(`skips ${label} and seeds the rest of the entry`, async () => {
      const { seeded, a } = await seedInto(withEntry(patch));
      assert.equal(seeded, 1);
      assert.equal(a.get(family), value);
      assert.equal(a.get('yacron2_job_duration_seconds_count'), 5, 'the histogram still seeds');
    });
  }

  test('timestamps and peak RSS that do not type-check are not seeded', async () => {
    const { a } = await seedInto(
      withEntry({ last_success_time: 'x', last_failure_time: 9e15, max_rss_observed: -1 }),
    );
    assert.equal(a.get('yacron2_job_last_success_timestamp_seconds'), undefined);
    assert.equal(a.get('yacron2_job_last_failure_timestamp_seconds'), undefined);
    assert.equal(a.get('yacron2_job_peak_rss_bytes'), undefined);
    assert.equal(a.get('yacron2_job_runs_total{status=success}'), 2);
  });

  const histograms: readonly (readonly [string, Record<string, unknown>])[] = [
    ['bucket counts of the wrong length', { bucket_counts: [1] }],
    ['decreasing cumulative counts', { bucket_counts: [2, 1, 1, 4, 5, 5, 5, 5, 5] }],
    ['a bucket above the count', { bucket_counts: [2, 3, 3, 4, 5, 5, 5, 5, 6] }],
    ['a NaN sum', { duration_sum: NaN }],
    ['a string count', { duration_count: '5' }],
    ['a huge bucket array', { bucket_counts: new Array<number>(1e6).fill(0) }],
  ];
  for (const [label, patch] of histograms) {
    test(`restores no histogram with ${label}, but the counters`, async () => {
      const { seeded, a } = await seedInto(withEntry(patch));
      assert.equal(seeded, 1);
      assert.equal(a.get('yacron2_job_duration_seconds_count'), 0);
      assert.equal(a.get('yacron2_job_duration_seconds_sum'), 0);
      assert.equal(a.get('yacron2_job_runs_total{status=success}'), 2);
    });
  }

  test('skips entries that are not objects and keeps the good ones', () => {
    const snapshot = good();
    const jobs = snapshot['jobs'] as Record<string, unknown>;
    const rig = createRig(['a', 'b', 'c', 'd']);
    const { seededJobs } = rig.metrics.seedCounters(
      { ...snapshot, jobs: { ...jobs, c: [1], d: 'x' } },
      new Set(['a', 'b', 'c', 'd']),
    );
    assert.equal(seededJobs, 2);
  });

  test('ignores inherited and prototype-polluting keys', async () => {
    const entry: unknown = JSON.parse('{"__proto__":{"retries":5},"runs":{"success":1}}');
    const { seeded, a } = await seedInto({ ...good(), jobs: { a: entry } });
    assert.equal(seeded, 1);
    assert.equal(a.get('yacron2_job_retries_total'), 0, '`retries` only through the prototype');
    assert.equal(a.get('yacron2_job_runs_total{status=success}'), 1);
    assert.equal(({} as Record<string, unknown>)['retries'], undefined);
    const polluted: unknown = JSON.parse('{"buckets":[],"jobs":{"__proto__":{"runs":{}}}}');
    assert.equal((await seedInto(polluted)).seeded, 0);
  });

  test('treats absent or garbage bucket bounds as changed bounds', async () => {
    for (const bounds of [undefined, 'x', [0.1, 'x'], new Array(1e6).fill(1)]) {
      const { seeded, a } = await seedInto({ ...good(), buckets: bounds });
      assert.equal(seeded, 2);
      assert.equal(a.get('yacron2_job_runs_total{status=success}'), 2);
      assert.equal(a.get('yacron2_job_duration_seconds_count'), 0);
    }
  });

  test('a huge job object is never walked: only the configured names are looked up', async () => {
    const snapshot = good();
    const jobs: Record<string, unknown> = { ...(snapshot['jobs'] as Record<string, unknown>) };
    for (let index = 0; index < 100_000; index++) jobs[`extra-${index}`] = { retries: 1 };
    const { seeded } = await seedInto({ ...snapshot, jobs });
    assert.equal(seeded, 2);
  });
});
