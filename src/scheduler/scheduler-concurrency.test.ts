import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { makeConfig, makeJob } from '../config/testing.js';
import { createHarness } from './test-harness.js';

const MINUTE = 60_000;

void describe('concurrency policy', () => {
  void it('Allow starts another instance while one runs', async () => {
    const h = createHarness([makeJob({ name: 'a', concurrencyPolicy: 'Allow' })]);
    h.scheduler.start();
    await h.clock.advance(2 * MINUTE);
    assert.equal(h.runner.running('a').length, 2);
    assert.equal(h.logged('Job a: still running and concurrencyPolicy is Allow').length, 1);
    const state = h.scheduler.getJobState('a');
    assert.deepEqual([state.runningInstances, state.pids], [2, [1000, 1001]]);
    await h.stop();
  });

  void it('Forbid skips the fire and leaves the running instance alone', async () => {
    const h = createHarness([makeJob({ name: 'f', concurrencyPolicy: 'Forbid' })]);
    h.scheduler.start();
    await h.clock.advance(2 * MINUTE);
    assert.equal(h.runner.runs.length, 1);
    assert.deepEqual(h.runner.runs[0]?.cancels, []);
    assert.deepEqual(
      h.of('fire:skipped').map((e) => [e.jobName, e.reason, e.trigger, e.decisionLatenessMs]),
      [['f', 'forbid', 'schedule', 0]],
    );
    assert.equal(h.logged('Job f: still running and concurrencyPolicy is Forbid').length, 1);
    h.runner.last('f').succeed();
    await h.clock.advance(MINUTE);
    assert.equal(h.runner.runs.length, 2);
    await h.stop();
  });

  void it('Replace cancels every running instance one after another, then starts', async () => {
    const h = createHarness([makeJob({ name: 'r', concurrencyPolicy: 'Allow' })], {
      cancelDelayMs: 5_000,
    });
    h.scheduler.start();
    await h.clock.advance(2 * MINUTE); // two Allow instances
    assert.equal(h.runner.running('r').length, 2);
    h.scheduler.applyConfig(makeConfig([makeJob({ name: 'r', concurrencyPolicy: 'Replace' })]));
    await h.clock.advance(MINUTE); // 00:03: Replace
    const [first, second] = h.runner.runsOf('r');
    assert.deepEqual(first?.cancels, ['replaced']);
    assert.deepEqual(second?.cancels, [], 'the second is cancelled only after the first is gone');
    assert.equal(h.runner.runs.length, 2);
    await h.clock.advance(5_000);
    assert.deepEqual(second?.cancels, ['replaced']);
    assert.equal(h.runner.runs.length, 2, 'the new instance waits for the last cancel');
    await h.clock.advance(5_000);
    assert.equal(h.runner.runs.length, 3);
    const started = h.of('run:started').at(-1);
    assert.equal(started?.scheduledAtMs, h.of('run:started')[0]!.scheduledAtMs! + 2 * MINUTE);
    assert.equal(started?.launchDelayMs, 10_000);
    // Replaced runs are neither recorded nor reported nor retried.
    assert.deepEqual(
      h.of('run:finished').map((e) => [e.disposition, e.recorded]),
      [
        ['replaced', false],
        ['replaced', false],
      ],
    );
    assert.equal(h.logged('Job r was replaced by a newer instance').length, 2);
    assert.equal(h.scheduler.getRuns('r').length, 0);
    assert.equal(h.of('report:failed').length + h.of('report:permanently-failed').length, 0);
    await h.stop();
  });

  void it('applies the policy to manual starts (Forbid → skipped result)', async () => {
    const h = createHarness([makeJob({ name: 'f', concurrencyPolicy: 'Forbid' })]);
    h.scheduler.start();
    const first = await h.scheduler.startJob('f');
    assert.equal(first.kind, 'started');
    assert.deepEqual(await h.scheduler.startJob('f'), { kind: 'skipped', reason: 'forbid' });
    assert.equal(h.runner.runs.length, 1);
    await h.stop();
  });
});

void describe('onlyIfLastSucceeded', () => {
  void it('skips after a failed run and runs again after a success', async () => {
    const h = createHarness([makeJob({ name: 'o', onlyIfLastSucceeded: true })]);
    h.scheduler.start();
    await h.clock.advance(MINUTE);
    h.runner.last('o').fail(2);
    await h.clock.advance(MINUTE);
    assert.equal(h.runner.runs.length, 1);
    assert.deepEqual(
      h.of('fire:skipped').map((e) => e.reason),
      ['only-if-last-succeeded'],
    );
    assert.equal(h.logged('Job o skipped: onlyIfLastSucceeded and the last run failed').length, 1);
    // A manual start ignores the gate; its success re-opens it.
    await h.scheduler.startJob('o');
    h.runner.last('o').succeed();
    await h.clock.advance(MINUTE);
    assert.equal(h.runner.runs.length, 3);
    await h.stop();
  });

  void it('ignores cancelled runs and skips while an instance still runs', async () => {
    const h = createHarness([makeJob({ name: 'o', onlyIfLastSucceeded: true })]);
    h.scheduler.start();
    await h.clock.advance(MINUTE);
    h.runner.last('o').succeed();
    await h.clock.advance(MINUTE);
    await h.scheduler.cancelJob('o'); // recorded as cancelled, which the gate ignores
    await h.clock.advance(MINUTE);
    assert.equal(h.runner.runs.length, 3);
    await h.clock.advance(MINUTE); // 00:04: the 00:03 instance still runs
    assert.equal(h.runner.runs.length, 3);
    assert.equal(h.logged('onlyIfLastSucceeded and an instance is still running').length, 1);
    await h.stop();
  });

  void it('leaves the retry ladder untouched when it skips', async () => {
    const h = createHarness([
      makeJob({
        name: 'o',
        onlyIfLastSucceeded: true,
        retry: { maximumRetries: 3, initialDelayMs: 90_000 },
      }),
    ]);
    h.scheduler.start();
    await h.clock.advance(MINUTE);
    h.runner.last('o').fail();
    await h.clock.advance(0);
    assert.equal(h.scheduler.getJobState('o').retry?.attempt, 1);
    await h.clock.advance(MINUTE); // 00:02 fire skipped by the gate; the ladder keeps counting
    assert.equal(h.of('fire:skipped')[0]?.reason, 'only-if-last-succeeded');
    await h.clock.advance(30_000); // retry due at 00:02:30
    const retry = h.of('run:started').at(-1);
    assert.equal(retry?.trigger, 'retry');
    assert.equal(retry?.attempt, 1);
    await h.stop();
  });
});

void describe('cluster gate seam', () => {
  void it('consults the gate for scheduled, @reboot and retry launches, never manual ones', async () => {
    const asked: string[] = [];
    const h = createHarness(
      [
        makeJob({ name: 'boot', schedule: '@reboot' }),
        makeJob({ name: 'cron', schedule: '* * * * *', retry: { maximumRetries: 1 } }),
      ],
      {
        gate: ({ job, trigger }) => {
          asked.push(`${job.name}:${trigger}`);
          return job.name === 'boot'
            ? { kind: 'skip', reason: 'cluster', detail: 'not the leader' }
            : { kind: 'run' };
        },
      },
    );
    h.runner.setDefault({ exitCode: 1 });
    h.scheduler.start();
    await h.clock.advance(MINUTE + 1000);
    await h.scheduler.startJob('boot');
    assert.deepEqual(asked, ['boot:reboot', 'cron:schedule', 'cron:retry']);
    assert.deepEqual(
      h.of('fire:skipped').map((e) => [e.jobName, e.reason]),
      [['boot', 'cluster']],
    );
    assert.equal(h.logged('Job boot skipped on this node: not the leader').length, 1);
    assert.equal(h.runner.runsOf('boot').length, 1, 'the manual start bypasses the gate');
    await h.stop();
  });
});
