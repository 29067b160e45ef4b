// A run whose pid comes after runner.start() returned (the spawn helper's path): the launcher
// announces it — `Job X spawned`, the monitor, run:started, the manual start's result — when
// onSpawn fires, or with pid null when the launch fails; exactly once, and before its finish.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { makeJob } from '../config/testing.js';
import type { ManualStartResult } from './types.js';
import type { SpawnedRun } from './ports.js';
import { createHarness, type Harness } from './test-harness.js';

const SPAWN_DELAY_MS = 40;

/** The order of the run's events and lines that matter here. */
function timeline(h: Harness): string[] {
  return h.events
    .filter((event) => event.name === 'run:started' || event.name === 'run:finished')
    .map((event) =>
      event.name === 'run:started'
        ? `started pid=${String(event.payload.pid)}`
        : `finished ${event.payload.outcome.kind}`,
    );
}

function startAndWatch(
  h: Harness,
  name: string,
): { readonly result: () => ManualStartResult | null } {
  let result: ManualStartResult | null = null;
  void h.scheduler.startJob(name).then((value) => (result = value));
  return { result: () => result };
}

void describe('a run whose pid comes after the launch', () => {
  void it('is announced when onSpawn fires: log line, monitor, run:started and the start result', async () => {
    const monitored: SpawnedRun[] = [];
    const h = createHarness([makeJob({ name: 'm', schedule: '0 0 1 1 *' })], {
      spawnDelayMs: SPAWN_DELAY_MS,
      runMonitor: { started: (run) => void monitored.push(run), finished: () => null },
    });
    h.scheduler.start();
    const start = startAndWatch(h, 'm');
    await h.clock.advance(SPAWN_DELAY_MS - 1);
    assert.equal(h.runner.runs.length, 1, 'launched');
    assert.equal(start.result(), null, 'the result waits for the pid');
    assert.deepEqual(h.of('run:started'), []);
    assert.deepEqual(h.logged('Job m spawned'), []);
    assert.equal(monitored.length, 0);
    const pending = h.scheduler.getJobState('m');
    assert.deepEqual([pending.runningInstances, pending.pids], [1, []]);

    await h.clock.advance(1);
    const started = h.of('run:started');
    assert.equal(started.length, 1);
    assert.equal(started[0]?.pid, 1000);
    assert.deepEqual(start.result(), { kind: 'started', runId: started[0]?.runId, pid: 1000 });
    assert.deepEqual(
      h.logs.map((entry) => entry.message),
      ['Starting job m', 'Job m spawned'],
    );
    assert.deepEqual(
      monitored.map((run) => [run.runId, run.pid]),
      [[started[0]?.runId, 1000]],
    );
    assert.deepEqual(h.scheduler.getJobState('m').pids, [1000]);

    h.runner.last('m').succeed();
    await h.clock.advance(0);
    assert.deepEqual(timeline(h), ['started pid=1000', 'finished succeeded']);
    assert.equal(h.of('run:finished')[0]?.outcome.pid, 1000);
    await h.stop();
  });

  void it('the start instant and launch delay are the launch, not the pid', async () => {
    const h = createHarness([makeJob({ name: 'm', schedule: '0 0 1 1 *' })], {
      spawnDelayMs: SPAWN_DELAY_MS,
    });
    h.scheduler.start();
    const launchedAtMs = h.clock.now();
    startAndWatch(h, 'm');
    await h.clock.advance(SPAWN_DELAY_MS);
    const [started] = h.of('run:started');
    assert.equal(started?.startedAtMs, launchedAtMs);
    assert.equal(started?.launchDelayMs, 0);
    await h.stop();
  });

  void it('a launch that fails is announced once with pid null, before its finish', async () => {
    const monitored: SpawnedRun[] = [];
    const h = createHarness([makeJob({ name: 'nope', schedule: '0 0 1 1 *' })], {
      spawnDelayMs: SPAWN_DELAY_MS,
      runMonitor: { started: (run) => void monitored.push(run), finished: () => null },
    });
    h.runner.script('nope', { spawnFails: true });
    h.scheduler.start();
    const start = startAndWatch(h, 'nope');
    await h.clock.advance(SPAWN_DELAY_MS - 1);
    assert.equal(start.result(), null);
    assert.deepEqual(timeline(h), []);
    await h.clock.advance(1);
    assert.deepEqual(timeline(h), ['started pid=null', 'finished spawn-failed']);
    assert.deepEqual(start.result(), {
      kind: 'started',
      runId: h.of('run:started')[0]?.runId,
      pid: null,
    });
    assert.deepEqual(h.logged('Job nope spawned'), []);
    assert.equal(monitored.length, 0);
    assert.equal(h.scheduler.getRuns('nope')[0]?.exitCode, 127);
    await h.stop();
  });

  void it('a cancel before the pid applies once the pid is known', async () => {
    const h = createHarness([makeJob({ name: 'c', schedule: '0 0 1 1 *' })], {
      spawnDelayMs: SPAWN_DELAY_MS,
    });
    h.scheduler.start();
    startAndWatch(h, 'c');
    await h.clock.advance(1);
    let cancelled = false;
    const cancelling = h.scheduler.cancelJob('c').then(() => (cancelled = true));
    await h.clock.advance(1);
    assert.equal(cancelled, false, 'not before the pid');
    assert.deepEqual(h.runner.last('c').cancels, ['cancelled']);
    await h.clock.advance(SPAWN_DELAY_MS);
    await cancelling;
    assert.deepEqual(timeline(h), ['started pid=1000', 'finished killed']);
    assert.equal(h.scheduler.getRuns('c')[0]?.outcome, 'cancelled');
    await h.stop();
  });

  void it('a shutdown with a launch in flight announces and reaps it', async () => {
    const h = createHarness([makeJob({ name: 's', schedule: '0 0 1 1 *' })], {
      spawnDelayMs: SPAWN_DELAY_MS,
    });
    h.scheduler.start();
    startAndWatch(h, 's');
    await h.clock.advance(1);
    await h.stop(0);
    assert.deepEqual(timeline(h), ['started pid=1000', 'finished killed']);
    assert.equal(h.of('shutdown:finished')[0]?.cancelledRuns, 1);
  });

  void it('a burst is announced run by run as the pids arrive, each once', async () => {
    const jobs = ['a', 'b', 'c'].map((name) => makeJob({ name, schedule: '* * * * *' }));
    const h = createHarness(jobs, { spawnDelayMs: SPAWN_DELAY_MS });
    h.scheduler.start();
    await h.clock.advance(60_000);
    assert.equal(h.runner.runs.length, 3);
    assert.deepEqual(h.of('run:started'), []);
    await h.clock.advance(SPAWN_DELAY_MS);
    assert.deepEqual(
      h.of('run:started').map((event) => [event.job.name, event.pid]),
      [
        ['a', 1000],
        ['b', 1001],
        ['c', 1002],
      ],
    );
    for (const run of h.runner.running()) run.succeed();
    await h.clock.advance(0);
    assert.equal(h.of('run:started').length, 3);
    assert.equal(h.of('run:finished').length, 3);
    await h.stop();
  });
});
