import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { isYacronError, type ErrorCode } from '../common/index.js';
import { makeConfig, makeJob } from '../config/testing.js';
import { createHarness, T0 } from './test-harness.js';

const MINUTE = 60_000;

async function rejectsWith(promise: Promise<unknown>, code: ErrorCode): Promise<void> {
  await assert.rejects(promise, (error: unknown) => isYacronError(error, code));
}

void describe('manual start and cancel', () => {
  void it('refuses unknown and disabled jobs with stable codes', async () => {
    const h = createHarness([makeJob({ name: 'off', enabled: false })]);
    h.scheduler.start();
    await rejectsWith(h.scheduler.startJob('nope'), 'YC_ERR_JOB_UNKNOWN');
    await rejectsWith(h.scheduler.startJob('off'), 'YC_ERR_JOB_DISABLED');
    await rejectsWith(h.scheduler.cancelJob('nope'), 'YC_ERR_JOB_UNKNOWN');
    await rejectsWith(h.scheduler.cancelJob('off'), 'YC_ERR_JOB_NOT_RUNNING');
    assert.throws(
      () => h.scheduler.getRuns('nope'),
      (e: unknown) => isYacronError(e, 'YC_ERR_JOB_UNKNOWN'),
    );
    await h.stop();
  });

  void it('starts a job now, with trigger manual and no slot', async () => {
    const h = createHarness([makeJob({ name: 'm', schedule: '0 0 1 1 *' })]);
    h.scheduler.start();
    const result = await h.scheduler.startJob('m');
    assert.equal(result.kind, 'started');
    const started = h.of('run:started')[0];
    assert.equal(started?.trigger, 'manual');
    assert.equal(started?.scheduledAtMs, null);
    assert.equal(started?.decisionLatenessMs, null);
    assert.deepEqual(result, { kind: 'started', runId: started?.runId, pid: 1000 });
    assert.deepEqual(
      h.logs.map((entry) => entry.message),
      ['Starting job m', 'Job m spawned'],
    );
    await h.stop();
  });

  void it('cancels every running instance and records them as cancelled, without reports', async () => {
    const h = createHarness([makeJob({ name: 'c' })], { cancelDelayMs: 2000 });
    h.scheduler.start();
    await h.clock.advance(2 * MINUTE);
    let cancelled = false;
    const cancelling = h.scheduler.cancelJob('c').then(() => (cancelled = true));
    await h.clock.advance(1000);
    assert.equal(cancelled, false);
    await h.clock.advance(1000);
    await cancelling;
    assert.deepEqual(
      h.runner.runs.map((run) => run.cancels),
      [['cancelled'], ['cancelled']],
    );
    assert.deepEqual(
      h.scheduler.getRuns('c').map((run) => [run.outcome, run.exitCode, run.failReason]),
      [
        ['cancelled', -15, 'cancelled via web UI'],
        ['cancelled', -15, 'cancelled via web UI'],
      ],
    );
    assert.equal(h.events.filter((e) => e.name.startsWith('report:')).length, 0);
    await rejectsWith(h.scheduler.cancelJob('c'), 'YC_ERR_JOB_NOT_RUNNING');
    await h.stop();
  });

  void it('publishes captured output lines as run:output events', async () => {
    const h = createHarness([makeJob({ name: 'o', captureStdout: true })]);
    h.scheduler.start();
    await h.scheduler.startJob('o');
    h.runner.last('o').emitOutput('stdout', 'hello\n');
    assert.deepEqual(
      h.of('run:output').map((e) => [e.jobName, e.stream, e.line]),
      [['o', 'stdout', 'hello\n']],
    );
    await h.stop();
  });

  void it('records a launch failure as exit code 127 on the normal failure path', async () => {
    const h = createHarness([makeJob({ name: 'nope' })]);
    h.runner.script('nope', { spawnFails: true });
    h.scheduler.start();
    const result = await h.scheduler.startJob('nope');
    assert.deepEqual(result.kind === 'started' && result.pid, null);
    await h.clock.advance(0);
    assert.deepEqual(h.logged('Job nope spawned'), []);
    assert.equal(h.scheduler.getRuns('nope')[0]?.exitCode, 127);
    assert.equal(h.of('report:permanently-failed').length, 1);
    await h.stop();
  });
});

void describe('reload (applyConfig)', () => {
  void it('keeps the next fire of unchanged timing, reseeds changed and new jobs', async () => {
    const h = createHarness([
      makeJob({ name: 'same', schedule: '*/5 * * * *' }),
      makeJob({ name: 'equiv', schedule: '0 * * * *' }),
      makeJob({ name: 'moved', schedule: '0 12 * * *' }),
      makeJob({ name: 'zone', schedule: '0 12 * * *' }),
      makeJob({ name: 'dropped', schedule: '* * * * *' }),
      makeJob({ name: 'off', schedule: '* * * * *' }),
    ]);
    h.scheduler.start();
    await h.clock.advance(2 * MINUTE + 30_000); // 00:02:30
    const before = (name: string) => h.scheduler.getNextFireAtMs(name);
    assert.equal(before('same'), T0 + 5 * MINUTE);
    h.scheduler.applyConfig(
      makeConfig([
        makeJob({ name: 'new', schedule: '* * * * *' }),
        makeJob({ name: 'same', schedule: '*/5 * * * *', command: { kind: 'argv', argv: ['x'] } }),
        makeJob({ name: 'equiv', schedule: '0 */1 * * *' }),
        makeJob({ name: 'moved', schedule: '0 13 * * *' }),
        makeJob({ name: 'zone', schedule: '0 12 * * *', timezone: 'Asia/Tokyo' }),
        makeJob({ name: 'off', schedule: '* * * * *', enabled: false }),
        makeJob({ name: 'boot', schedule: '@reboot' }),
      ]),
    );
    assert.equal(h.scheduler.getNextFireAtMs('same'), T0 + 5 * MINUTE);
    assert.equal(h.scheduler.getNextFireAtMs('equiv'), T0 + 60 * MINUTE);
    assert.equal(h.scheduler.getNextFireAtMs('moved'), T0 + 13 * 60 * MINUTE);
    assert.equal(h.scheduler.getNextFireAtMs('zone'), T0 + 3 * 60 * MINUTE); // 12:00 JST = 03:00Z
    assert.equal(h.scheduler.getNextFireAtMs('new'), T0 + 3 * MINUTE);
    assert.equal(h.scheduler.getNextFireAtMs('dropped'), null);
    assert.equal(h.scheduler.getNextFireAtMs('off'), null);
    const applied = h.of('config:applied')[0];
    assert.deepEqual(applied?.added, ['new', 'boot']);
    assert.deepEqual(applied?.removed, ['dropped']);
    assert.deepEqual(applied?.changed, ['same', 'equiv', 'moved', 'zone', 'off']);
    await h.clock.advance(10 * MINUTE);
    assert.equal(h.runner.runsOf('boot').length, 0, 'a @reboot job added by reload never runs');
    assert.equal(h.runner.runsOf('dropped').length, 2);
    assert.equal(h.runner.runsOf('off').length, 2);
    assert.deepEqual(
      h.scheduler.getJobStates().map((state) => state.job.name),
      ['new', 'same', 'equiv', 'moved', 'zone', 'off', 'boot'],
    );
    await h.stop();
  });

  void it('hands kept slots to the reloaded jobs, in the new config order (duplicates too)', async () => {
    const h = createHarness([
      makeJob({ name: 'a', schedule: '*/5 * * * *' }),
      makeJob({ name: 'b', schedule: '*/5 * * * *' }),
      makeJob({ name: 'c', schedule: '*/5 * * * *' }),
    ]);
    h.runner.setDefault({ durationMs: 0 });
    h.scheduler.start();
    await h.clock.advance(MINUTE);
    const c2 = makeJob({
      name: 'c',
      schedule: '*/5 * * * *',
      command: { kind: 'argv', argv: ['2'] },
    });
    h.scheduler.applyConfig(
      makeConfig([
        makeJob({ name: 'c', schedule: '*/5 * * * *' }),
        makeJob({ name: 'b', schedule: '*/5 * * * *' }),
        makeJob({ name: 'a', schedule: '*/5 * * * *' }),
        c2, // a later duplicate wins, at its own position
      ]),
    );
    for (const name of ['a', 'b', 'c']) {
      assert.equal(h.scheduler.getNextFireAtMs(name), T0 + 5 * MINUTE);
    }
    await h.clock.advance(4 * MINUTE);
    assert.deepEqual(
      h.runner.runs.map((run) => run.job.name),
      ['b', 'a', 'c'],
    );
    assert.equal(h.runner.runsOf('c')[0]?.job, c2);
    assert.equal(h.scheduler.getNextFireAtMs('c'), T0 + 10 * MINUTE);
    await h.stop();
  });

  void it('lets running instances finish and report under their old config', async () => {
    const old = makeJob({ name: 'j', schedule: '* * * * *' });
    const h = createHarness([old]);
    h.scheduler.start();
    await h.clock.advance(MINUTE);
    const renewed = makeJob({ name: 'j', schedule: '*/10 * * * *' });
    h.scheduler.applyConfig(makeConfig([renewed]));
    assert.deepEqual(h.runner.runs[0]?.cancels, []);
    h.runner.last('j').fail();
    await h.clock.advance(0);
    assert.equal(h.of('report:failed')[0]?.job, old);
    assert.equal(h.of('run:finished')[0]?.job, old);
    await h.stop();
  });
});

void describe('shutdown', () => {
  void it('lets running jobs finish within the grace period; failures then are not reported', async () => {
    const h = createHarness([
      makeJob({ name: 'ok', schedule: '@reboot' }),
      makeJob({ name: 'bad', schedule: '@reboot', retry: { maximumRetries: 3 } }),
    ]);
    h.scheduler.start();
    let done = false;
    const stopping = h.scheduler.shutdown(60_000).then(() => (done = true));
    assert.equal(h.logged('Shutting down (after currently running jobs finish)...').length, 1);
    await h.clock.advance(10_000);
    h.runner.last('ok').succeed();
    h.runner.last('bad').fail();
    await h.clock.advance(0);
    await stopping;
    assert.equal(done, true);
    assert.deepEqual(
      h.of('run:finished').map((e) => [e.job.name, e.disposition, e.summary.outcome]),
      [
        ['ok', 'success', 'success'],
        ['bad', 'shutdown-failure', 'failure'],
      ],
    );
    assert.deepEqual(
      h.events
        .filter((e) => e.name.startsWith('report:') || e.name.startsWith('retry:'))
        .map((e) => e.name),
      ['report:succeeded'],
    );
    assert.deepEqual(h.of('shutdown:finished'), [{ cancelledRuns: 0 }]);
  });

  void it('cancels what still runs when the grace period ends, then resolves', async () => {
    const h = createHarness([makeJob({ name: 'slow', schedule: '@reboot' })], {
      cancelDelayMs: 3000,
    });
    h.scheduler.start();
    let done = false;
    const stopping = h.scheduler.shutdown(20_000).then(() => (done = true));
    await h.clock.advance(19_999);
    assert.deepEqual(h.runner.last('slow').cancels, []);
    await h.clock.advance(1);
    assert.deepEqual(h.runner.last('slow').cancels, ['shutdown']);
    assert.equal(done, false);
    await h.clock.advance(3000);
    await stopping;
    assert.equal(h.scheduler.getRuns('slow')[0]?.outcome, 'failure');
    assert.equal(h.of('report:failed').length, 0);
    assert.deepEqual(h.of('shutdown:finished'), [{ cancelledRuns: 1 }]);
  });

  void it('is idempotent, stops firing and refuses manual starts', async () => {
    const h = createHarness([makeJob({ name: 'm' })]);
    h.scheduler.start();
    const first = h.scheduler.shutdown(0);
    assert.equal(h.scheduler.shutdown(5000), first);
    await first;
    await h.clock.advance(10 * MINUTE);
    assert.equal(h.runner.runs.length, 0);
    await rejectsWith(h.scheduler.startJob('m'), 'YC_ERR_SHUTTING_DOWN');
    await h.scheduler[Symbol.asyncDispose]();
    assert.equal(h.of('shutdown:started').length, 1);
  });

  void it('drops launches still queued in a burst', async () => {
    const jobs = Array.from({ length: 20 }, (_, i) =>
      makeJob({ name: `b${i}`, schedule: '@reboot' }),
    );
    const h = createHarness(jobs, { launchSliceSize: 4 });
    h.scheduler.start(); // first slice of 4 launched synchronously
    await h.scheduler.shutdown(0);
    assert.equal(h.runner.runs.length, 4);
    assert.equal(h.of('fire:skipped').filter((e) => e.reason === 'shutting-down').length, 16);
  });
});
