import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeClock } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import { recordingLogger } from '../logging/testing.js';
import { FakeProc } from './resources-fixture.test.js';
import { RunSampler, type MonitoredRun } from './run-sampler.js';

const CONSTANTS = { clockTicksPerSecond: 100, pageSizeBytes: 4096 };

function setup(): { clock: FakeClock; proc: FakeProc; sampler: RunSampler } {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const proc = new FakeProc().add({ pid: 1, ppid: 0 }, { pid: 100, ppid: 1 });
  const sampler = new RunSampler({
    clock,
    logger: silentLogger(),
    source: proc,
    constants: CONSTANTS,
  });
  return { clock, proc, sampler };
}

function run(overrides: Partial<MonitoredRun> & { runId: string; pid: number }): MonitoredRun {
  return { jobName: 'job', startedAtMs: 0, intervalMs: 1000, history: 240, ...overrides };
}

describe('RunSampler', () => {
  test('samples a run on its interval grid; CPU % over the time between samples', async () => {
    const { clock, proc, sampler } = setup();
    proc.add({ pid: 200, ppid: 100, rssPages: 256 });
    sampler.start(run({ runId: 'a', pid: 200 }));
    // First sample on the 250 ms grid.
    proc.update(200, { userTicks: 10 });
    await clock.advance(250);
    assert.deepEqual(sampler.live('a')?.current, {
      cpuSeconds: 0.1,
      cpuPercent: 40,
      rssBytes: 1 << 20,
    });
    // Then on the multiples of the interval: 1000 ms (the tree grew: a child using 25 ticks).
    proc
      .update(200, { userTicks: 40 })
      .add({ pid: 201, ppid: 200, session: 200, pgrp: 200, systemTicks: 25, rssPages: 512 });
    await clock.advance(750);
    const current = sampler.live('a')?.current;
    assert.equal(current?.cpuSeconds, 0.65);
    assert.ok(Math.abs((current?.cpuPercent ?? 0) - 73.3333) < 0.001);
    assert.equal(current?.rssBytes, 768 * 4096);
    const usage = sampler.stop('a');
    assert.deepEqual(
      {
        user: usage?.cpuUserSeconds,
        system: usage?.cpuSystemSeconds,
        max: usage?.maxRssBytes,
        samples: usage?.samples,
      },
      { user: 0.4, system: 0.25, max: 768 * 4096, samples: 2 },
    );
    assert.deepEqual(
      usage?.series.map((point) => point[0] - Date.UTC(2026, 0, 1)),
      [250, 1000],
    );
    assert.equal(clock.pendingTimers, 0, 'no timer once nothing is monitored');
  });

  test('runs started at different moments share one pass per tick', async () => {
    const { clock, proc, sampler } = setup();
    proc.add({ pid: 200, ppid: 100 }, { pid: 300, ppid: 100 });
    sampler.start(run({ runId: 'a', pid: 200 }));
    await clock.advance(400);
    sampler.start(run({ runId: 'b', pid: 300 }));
    await clock.advance(2600);
    // Passes at 250 (a), 750 (b's first), then 1000 (a), 2000 and 3000 (both).
    assert.equal(sampler.stats.passes, 5);
    assert.equal(sampler.live('a')?.usage.samples, 4);
    assert.equal(sampler.live('b')?.usage.samples, 3);
  });

  test('a burst of launches is one first pass', async () => {
    const { clock, proc, sampler } = setup();
    for (let i = 0; i < 50; i++) {
      proc.add({ pid: 1000 + i, ppid: 100 });
      sampler.start(run({ runId: `r${i}`, pid: 1000 + i }));
      await clock.advance(2);
    }
    await clock.advance(250);
    assert.equal(sampler.stats.passes, 1);
    assert.equal(sampler.liveOfJob('job').filter((live) => live.current !== null).length, 50);
  });

  test('longer intervals are respected, and a run is not sampled twice within half an interval', async () => {
    const { clock, proc, sampler } = setup();
    proc.add({ pid: 200, ppid: 100 }, { pid: 300, ppid: 100 });
    sampler.start(run({ runId: 'fast', pid: 200, intervalMs: 1000 }));
    sampler.start(run({ runId: 'slow', pid: 300, intervalMs: 5000 }));
    await clock.advance(20_000);
    assert.equal(sampler.live('fast')?.usage.samples, 21);
    // 250 ms, then 5, 10, 15, 20 s.
    assert.equal(sampler.live('slow')?.usage.samples, 5);
    assert.equal(sampler.stats.passes, 21);
  });

  test('a run has no current usage before its first sample; stop of an unknown run is undefined', () => {
    const { sampler } = setup();
    sampler.start(run({ runId: 'a', pid: 200, jobName: 'backup', startedAtMs: 42 }));
    const live = sampler.liveOfJob('backup');
    assert.equal(live.length, 1);
    assert.equal(live[0]?.current, null);
    assert.equal(live[0]?.startedAtMs, 42);
    assert.deepEqual(sampler.liveOfJob('other'), []);
    assert.equal(sampler.stop('nope'), undefined);
    sampler.close();
  });

  test('series are bounded by history', async () => {
    const { clock, proc, sampler } = setup();
    proc.add({ pid: 200, ppid: 100 });
    sampler.start(run({ runId: 'a', pid: 200, history: 10 }));
    await clock.advance(100_000);
    const usage = sampler.stop('a');
    assert.equal(usage?.samples, 101);
    assert.ok((usage?.series.length ?? 0) <= 10);
  });

  test('without /proc: one warning, no samples, nothing thrown', async () => {
    const clock = new FakeClock();
    const proc = new FakeProc();
    proc.listable = false;
    const logger = recordingLogger();
    const sampler = new RunSampler({ clock, logger, source: proc, constants: CONSTANTS });
    sampler.start(run({ runId: 'a', pid: 200 }));
    await clock.advance(10_000);
    assert.equal(sampler.stop('a')?.samples, 0);
    assert.deepEqual(
      logger.at('warn').map((line) => line.message),
      ['Cannot sample the resources of monitored jobs: /proc cannot be listed'],
    );
  });
});
