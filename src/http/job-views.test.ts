// The API's job shapes rendered from a real scheduler's state: status entries in config order,
// the job object with last_run, history and stats, and the manual-cancel run records.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { makeJob } from '../config/testing.js';
import { createHarness } from '../scheduler/testing.js';
import { renderJobView, renderStatusEntry } from './job-views.js';
import { renderJobRuns } from './run-records.js';

const MINUTE = 60_000;

void describe('job views rendered from a live scheduler', () => {
  void it('renders the status entries in config order', async () => {
    const h = createHarness([
      makeJob({ name: 'run', schedule: '@reboot' }),
      makeJob({ name: 'off', enabled: false }),
      makeJob({ name: 'boot', schedule: '@reboot', enabled: true }),
      makeJob({ name: 'cron', schedule: '*/5 * * * *' }),
    ]);
    h.runner.script('boot', { durationMs: 0 });
    h.scheduler.start();
    await h.clock.advance(90_000);
    const nowMs = h.clock.now();
    assert.deepEqual(
      h.scheduler.getJobStates().map((state) => renderStatusEntry(state, nowMs)),
      [
        { job: 'run', status: 'running', pid: [1000] },
        { job: 'off', status: 'disabled' },
        { job: 'boot', status: 'scheduled', scheduled_in: '@reboot' },
        { job: 'cron', status: 'scheduled', scheduled_in: 210 },
      ],
    );
    await h.stop();
  });

  void it('renders the job object with last_run, history and stats', async () => {
    const h = createHarness([
      makeJob({
        name: 'v',
        schedule: '*/5 * * * *',
        command: { kind: 'argv', argv: ['echo', 'hi'] },
        captureStdout: true,
      }),
    ]);
    h.runner.script('v', { durationMs: 1500 }, { durationMs: 500, exitCode: 2 });
    h.scheduler.start();
    await h.clock.advance(11 * MINUTE);
    const view = renderJobView(h.scheduler.getJobState('v'), h.clock.now());
    assert.deepEqual(view, {
      name: 'v',
      enabled: true,
      schedule: '*/5 * * * *',
      command: 'echo hi',
      captureStdout: true,
      captureStderr: true,
      utc: true,
      timezone: 'UTC',
      running: false,
      pids: [],
      scheduled_in: 240,
      last_run: {
        outcome: 'failure',
        exit_code: 2,
        started_at: '2026-01-01T00:10:00+00:00',
        finished_at: '2026-01-01T00:10:00.500000+00:00',
        duration: 0.5,
        fail_reason: 'failsWhen=nonzeroReturn and retcode=2',
        resources: null,
      },
      history: [
        { outcome: 'success', duration: 1.5 },
        { outcome: 'failure', duration: 0.5 },
      ],
    });
    const { stats } = renderJobRuns('v', h.scheduler.getRuns('v'));
    assert.equal(stats.total, 2);
    assert.equal(stats.success_rate, 0.5);
    assert.equal(stats.avg_duration, 1);
    assert.equal(stats.last_duration, 0.5);
    assert.deepEqual(
      h.scheduler.getJobStates().map((state) => renderJobView(state, h.clock.now())),
      [view],
    );
    await h.stop();
  });
});

void describe('run records rendered from a live scheduler', () => {
  void it('a manual cancel is recorded as cancelled via web UI, outside the success rate', async () => {
    const h = createHarness([makeJob({ name: 'c', schedule: '@reboot' })]);
    h.runner.setDefault('manual');
    h.scheduler.start();
    await h.clock.advance(0);
    await h.scheduler.cancelJob('c');
    const runs = renderJobRuns('c', h.scheduler.getRuns('c'));
    assert.deepEqual(
      runs.runs.map((run) => [run.outcome, run.exit_code, run.fail_reason]),
      [['cancelled', -15, 'cancelled via web UI']],
    );
    assert.equal(runs.stats.cancelled, 1);
    assert.equal(runs.stats.success_rate, null);
    await h.stop();
  });
});
