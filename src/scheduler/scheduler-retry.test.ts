import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { makeConfig, makeJob } from '../config/testing.js';
import { createHarness, T0 } from './test-harness.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const ladder = { initialDelayMs: 1000, backoffMultiplier: 2, maximumDelayMs: 30_000 };

void describe('retry ladder', () => {
  void it('retries with delays 1, 2, 4, 8, 16, 30, 30 s then fails permanently', async () => {
    const h = createHarness([
      makeJob({ name: 'flaky', schedule: '0 * * * *', retry: { ...ladder, maximumRetries: 7 } }),
    ]);
    h.runner.setDefault({ exitCode: 1 });
    h.scheduler.start();
    await h.clock.advance(HOUR + 5 * MINUTE);
    assert.deepEqual(
      h.of('retry:scheduled').map((e) => [e.attempt, e.delayMs]),
      [
        [1, 1000],
        [2, 2000],
        [3, 4000],
        [4, 8000],
        [5, 16_000],
        [6, 30_000],
        [7, 30_000],
      ],
    );
    assert.deepEqual(
      h.of('run:started').map((e) => [e.trigger, e.attempt]),
      [
        ['schedule', 0],
        ['retry', 1],
        ['retry', 2],
        ['retry', 3],
        ['retry', 4],
        ['retry', 5],
        ['retry', 6],
        ['retry', 7],
      ],
    );
    // Each retry starts exactly its delay after the failure it follows.
    const starts = h.of('run:started').map((e) => (e.startedAtMs - T0 - HOUR) / 1000);
    assert.deepEqual(starts, [0, 1, 3, 7, 15, 31, 61, 91]);
    assert.equal(h.of('report:failed').length, 8);
    assert.equal(h.of('report:permanently-failed').length, 1);
    assert.equal(h.of('report:permanently-failed')[0]?.runId, h.of('run:started')[7]?.runId);
    assert.deepEqual(h.logged('scheduled to be retried').slice(0, 2), [
      'Cron job flaky scheduled to be retried (#1) in 1.0 seconds',
      'Cron job flaky scheduled to be retried (#2) in 2.0 seconds',
    ]);
    assert.equal(h.scheduler.getJobState('flaky').retry, null, 'an exhausted ladder is gone');
    await h.stop();
  });

  void it('uses an initialDelay above the cap once as-is', async () => {
    const h = createHarness([
      makeJob({
        name: 'j',
        schedule: '0 * * * *',
        retry: { maximumRetries: 3, initialDelayMs: 50_000, maximumDelayMs: 20_000 },
      }),
    ]);
    h.runner.setDefault({ exitCode: 1 });
    h.scheduler.start();
    await h.clock.advance(HOUR + 5 * MINUTE);
    assert.deepEqual(
      h.of('retry:scheduled').map((e) => e.delayMs),
      [50_000, 20_000, 20_000],
    );
    await h.stop();
  });

  void it('without retries a failure goes straight to onPermanentFailure', async () => {
    const h = createHarness([makeJob({ name: 'once' })]);
    h.runner.setDefault({ exitCode: 3 });
    h.scheduler.start();
    await h.clock.advance(MINUTE);
    assert.deepEqual(
      h.events
        .filter((e) => e.name.startsWith('report:') || e.name === 'run:finished')
        .map((e) => e.name),
      ['run:finished', 'report:failed', 'report:permanently-failed'],
    );
    const summary = h.of('report:failed')[0]?.summary;
    assert.equal(summary?.failReason, 'failsWhen=nonzeroReturn and retcode=3');
    assert.equal(
      h.logged('Job once exit code 3; has stdout: False, has stderr: False; fail_reason:')[0],
      "Job once exit code 3; has stdout: False, has stderr: False; fail_reason: 'failsWhen=nonzeroReturn and retcode=3'",
    );
    await h.stop();
  });

  void it('retries forever with maximumRetries -1 and shows the ladder in the job view', async () => {
    const h = createHarness([
      makeJob({ name: 'keepalive', schedule: '@reboot', retry: { ...ladder, maximumRetries: -1 } }),
    ]);
    h.runner.setDefault({ exitCode: 1 });
    h.scheduler.start();
    await h.clock.advance(10 * MINUTE);
    assert.ok(h.of('retry:scheduled').length > 20);
    assert.equal(h.of('report:permanently-failed').length, 0);
    const { retry } = h.scheduler.getJobState('keepalive');
    assert.equal(retry?.maxAttempts, null);
    assert.equal(retry?.delayMs, 30_000);
    // Due within the next delay, in the 00:1x minutes.
    const dueMs = (retry?.nextRetryAtMs ?? 0) - T0;
    assert.ok(dueMs >= 10 * MINUTE && dueMs < 20 * MINUTE, String(dueMs));
    await h.stop();
  });

  void it('a success removes the ladder and reports onSuccess', async () => {
    const h = createHarness([
      makeJob({ name: 's', schedule: '0 * * * *', retry: { ...ladder, maximumRetries: 5 } }),
    ]);
    h.runner.script('s', { exitCode: 1 }, { exitCode: 1 }, { exitCode: 0 });
    h.runner.setDefault({ exitCode: 1 });
    h.scheduler.start();
    await h.clock.advance(HOUR + 10_000);
    assert.equal(h.of('retry:scheduled').length, 2);
    assert.equal(h.of('report:succeeded').length, 1);
    assert.equal(h.scheduler.getJobState('s').retry, null);
    // The next scheduled failure starts a fresh ladder at attempt 1 with the initial delay.
    await h.clock.advance(HOUR);
    assert.deepEqual(
      h
        .of('retry:scheduled')
        .slice(2, 3)
        .map((e) => [e.attempt, e.delayMs]),
      [[1, 1000]],
    );
    await h.stop();
  });

  void it('a scheduled fire resets the ladder even when Forbid then skips it', async () => {
    const h = createHarness([
      makeJob({
        name: 'q',
        schedule: '* * * * *',
        concurrencyPolicy: 'Forbid',
        retry: { maximumRetries: 5, initialDelayMs: 90_000 },
      }),
    ]);
    h.scheduler.start();
    await h.clock.advance(MINUTE); // 00:01 run A, holding ladder L1
    await h.clock.advance(MINUTE); // 00:02: Forbid skips, but L1 is cancelled and L2 created
    assert.equal(h.of('fire:skipped')[0]?.reason, 'forbid');
    h.runner.last('q').fail();
    await h.clock.advance(0);
    // A held the cancelled L1: straight to onPermanentFailure, no retry.
    assert.equal(h.of('retry:scheduled').length, 0);
    assert.equal(h.of('report:failed').length, 1);
    assert.equal(h.of('report:permanently-failed').length, 1);
    await h.stop();
  });

  void it('a manual start attaches the current ladder without creating one', async () => {
    const h = createHarness([
      makeJob({
        name: 'm',
        schedule: '0 * * * *',
        retry: {
          maximumRetries: 3,
          initialDelayMs: 600_000,
          maximumDelayMs: 600_000,
          backoffMultiplier: 1,
        },
      }),
    ]);
    h.scheduler.start();
    await h.scheduler.startJob('m'); // no ladder exists: a failure is permanent at once
    h.runner.last('m').fail();
    await h.clock.advance(0);
    assert.equal(h.of('report:permanently-failed').length, 1);
    assert.equal(h.of('retry:scheduled').length, 0);
    await h.clock.advance(HOUR); // 01:00 scheduled run creates ladder L
    h.runner.last('m').fail(); // retry #1 due 01:10
    await h.clock.advance(MINUTE);
    await h.scheduler.startJob('m');
    assert.equal(h.of('run:started').at(-1)?.attempt, 1, 'the manual run reuses L');
    h.runner.last('m').fail(); // steps L: retry #2 due 01:11 replaces the pending #1
    await h.clock.advance(0);
    assert.deepEqual(
      h.of('retry:scheduled').map((e) => [e.attempt, (e.retryAtMs - T0 - HOUR) / MINUTE]),
      [
        [1, 10],
        [2, 11],
      ],
    );
    await h.clock.advance(9 * MINUTE + 30_000);
    assert.equal(h.runner.runs.length, 3, 'the aborted retry #1 never runs');
    await h.clock.advance(30_000);
    assert.deepEqual(
      h.of('run:started').map((e) => [e.trigger, e.attempt]),
      [
        ['manual', 0],
        ['schedule', 0],
        ['manual', 1],
        ['retry', 2],
      ],
    );
    await h.stop();
  });

  void it('a manual cancel cancels the ladder without reports', async () => {
    const h = createHarness([
      makeJob({ name: 'c', schedule: '0 * * * *', retry: { ...ladder, maximumRetries: 5 } }),
    ]);
    h.scheduler.start();
    await h.clock.advance(HOUR);
    h.runner.last('c').fail();
    await h.clock.advance(1000); // retry #1 running
    await h.scheduler.cancelJob('c');
    await h.clock.advance(10 * MINUTE);
    assert.equal(h.runner.runs.length, 2);
    assert.equal(h.of('report:failed').length, 1, 'only the first, real failure');
    assert.equal(h.of('report:permanently-failed').length, 0);
    assert.deepEqual(
      h.scheduler.getRuns('c').map((run) => [run.outcome, run.failReason]),
      [
        ['failure', 'failsWhen=nonzeroReturn and retcode=1'],
        ['cancelled', 'cancelled via web UI'],
      ],
    );
    await h.stop();
  });

  void it('a retry uses the current config by name and its concurrency policy', async () => {
    const h = createHarness([
      makeJob({
        name: 'x',
        schedule: '0 * * * *',
        retry: { ...ladder, maximumRetries: 2, initialDelayMs: 5000 },
      }),
    ]);
    h.scheduler.start();
    await h.clock.advance(HOUR);
    h.runner.last('x').fail();
    await h.clock.advance(0);
    const reloaded = makeJob({
      name: 'x',
      schedule: '0 * * * *',
      command: { kind: 'argv', argv: ['new-command'] },
      retry: { maximumRetries: 0 },
    });
    h.scheduler.applyConfig(makeConfig([reloaded]));
    await h.clock.advance(5000);
    assert.equal(h.runner.last('x').job, reloaded);
    // The ladder's own policy (fixed at creation) still governs: retry #2 is allowed.
    h.runner.last('x').fail();
    await h.clock.advance(0);
    assert.deepEqual(
      h.of('retry:scheduled').map((e) => e.attempt),
      [1, 2],
    );
    await h.stop();
  });

  void it('a retry skipped by Forbid is lost without a report', async () => {
    const h = createHarness([
      makeJob({
        name: 'f',
        schedule: '0 * * * *',
        concurrencyPolicy: 'Forbid',
        retry: { ...ladder, maximumRetries: 3 },
      }),
    ]);
    h.scheduler.start();
    await h.clock.advance(HOUR);
    h.runner.last('f').fail();
    await h.clock.advance(0);
    await h.scheduler.startJob('f'); // a manual instance occupies the slot
    await h.clock.advance(1000);
    assert.deepEqual(
      h.of('fire:skipped').map((e) => [e.trigger, e.reason]),
      [['retry', 'forbid']],
    );
    assert.equal(h.of('report:permanently-failed').length, 0);
    await h.stop();
  });

  void it('a retry for a job gone from the config is discarded with a warning', async () => {
    const h = createHarness([
      makeJob({ name: 'gone', schedule: '0 * * * *', retry: { ...ladder, maximumRetries: 3 } }),
      makeJob({ name: 'stays' }),
    ]);
    h.scheduler.start();
    await h.clock.advance(HOUR);
    h.runner.last('gone').fail();
    await h.clock.advance(0);
    h.scheduler.applyConfig(makeConfig([makeJob({ name: 'stays' })]));
    await h.clock.advance(1000);
    assert.deepEqual(h.of('retry:discarded'), [{ jobName: 'gone', reason: 'job-removed' }]);
    assert.equal(h.logged('Cron job gone is no longer configured; discarding its retry').length, 1);
    assert.equal(h.runner.runsOf('gone').length, 1);
    await h.stop();
  });

  void it('shutdown cancels pending retries', async () => {
    const h = createHarness([
      makeJob({
        name: 'p',
        schedule: '0 * * * *',
        retry: { ...ladder, maximumRetries: 3, initialDelayMs: 5000 },
      }),
    ]);
    h.scheduler.start();
    await h.clock.advance(HOUR);
    h.runner.last('p').fail();
    await h.clock.advance(0);
    await h.stop();
    await h.clock.advance(MINUTE);
    assert.equal(h.runner.runs.length, 1);
    assert.equal(h.clock.pendingTimers, 0);
  });
});

void describe('retry ladder and reloads', () => {
  void it('discards a pending retry of a job disabled by a reload', async () => {
    const h = createHarness([
      makeJob({ name: 'd', schedule: '0 * * * *', retry: { ...ladder, maximumRetries: 3 } }),
    ]);
    h.scheduler.start();
    await h.clock.advance(HOUR);
    h.runner.last('d').fail();
    await h.clock.advance(0);
    h.scheduler.applyConfig(
      makeConfig([makeJob({ name: 'd', schedule: '0 * * * *', enabled: false })]),
    );
    await h.clock.advance(1000);
    assert.deepEqual(h.of('retry:discarded'), [{ jobName: 'd', reason: 'job-disabled' }]);
    assert.equal(h.runner.runs.length, 1);
    await h.stop();
  });

  void it('keeps the ladder across a reload that leaves the job in place', async () => {
    const h = createHarness([
      makeJob({ name: 'k', schedule: '0 * * * *', retry: { ...ladder, maximumRetries: 3 } }),
    ]);
    h.scheduler.start();
    await h.clock.advance(HOUR);
    h.runner.last('k').fail();
    await h.clock.advance(0);
    h.scheduler.applyConfig(makeConfig([makeJob({ name: 'k', schedule: '30 * * * *' })]));
    assert.equal(h.scheduler.getJobState('k').retry?.attempt, 1);
    await h.clock.advance(1000);
    assert.equal(h.of('run:started').at(-1)?.trigger, 'retry');
    await h.stop();
  });
});

void describe('retry ladder of a removed job', () => {
  void it('is forgotten with the job: the name added again starts without a ladder', async () => {
    const job = makeJob({
      name: 'gone',
      schedule: '* * * * *',
      concurrencyPolicy: 'Forbid',
      retry: { ...ladder, maximumRetries: 3 },
    });
    const h = createHarness([job]);
    h.runner.setDefault('manual');
    h.scheduler.start();
    await h.scheduler.startJob('gone'); // running, holding no ladder
    await h.clock.advance(MINUTE); // the fire is skipped by Forbid, yet creates a fresh ladder
    assert.equal(h.of('fire:skipped')[0]?.reason, 'forbid');
    h.scheduler.applyConfig(makeConfig([]));
    h.runner.last('gone').fail();
    await h.clock.advance(0);
    h.scheduler.applyConfig(makeConfig([job]));
    await h.scheduler.startJob('gone');
    h.runner.last('gone').fail();
    await h.clock.advance(0);
    assert.equal(h.of('retry:scheduled').length, 0, 'the old ladder did not come back');
    assert.equal(h.of('report:permanently-failed').length, 2);
    await h.stop();
  });
});
