// The RunMonitor seam: the launcher hands every spawned run to the monitor and puts what the
// monitor answers at the reap into the run's summary (history, run:finished, reports); a
// throwing monitor never fails the run.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { makeJob } from '../config/testing.js';
import type { RunResources } from './history.js';
import type { RunMonitor, SpawnedRun } from './ports.js';
import { createHarness } from './test-harness.js';

const USAGE: RunResources = {
  cpuUserSeconds: 1.5,
  cpuSystemSeconds: 0.5,
  cpuTotalSeconds: 2,
  maxRssBytes: 64 * 1024 * 1024,
  samples: 3,
  series: [[1_000, 80, 64 * 1024 * 1024]],
};

void describe('the run monitor', () => {
  void it('is told of each spawn and its answer at the reap becomes the summary resources', async () => {
    const started: SpawnedRun[] = [];
    const finished: string[] = [];
    const monitor: RunMonitor = {
      started: (run) => void started.push(run),
      finished: (runId) => {
        finished.push(runId);
        return USAGE;
      },
    };
    const h = createHarness([makeJob({ name: 'm', schedule: '0 0 1 1 *' })], {
      runMonitor: monitor,
    });
    h.scheduler.start();
    const result = await h.scheduler.startJob('m');
    assert.equal(result.kind, 'started');
    const runId = result.kind === 'started' ? result.runId : '';
    assert.equal(started.length, 1);
    assert.equal(started[0]?.runId, runId);
    assert.equal(started[0]?.pid, 1000);
    assert.equal(started[0]?.job.name, 'm');
    assert.equal(finished.length, 0);
    h.runner.runs[0]?.succeed();
    await h.clock.advance(0);
    assert.deepEqual(finished, [runId]);
    assert.deepEqual(h.scheduler.getRuns('m')[0]?.resources, USAGE);
    assert.deepEqual(h.of('run:finished')[0]?.summary.resources, USAGE);
    assert.deepEqual(h.of('report:succeeded')[0]?.summary.resources, USAGE);
    await h.stop();
  });

  void it('a throwing monitor is logged and the run is recorded without resources', async () => {
    const h = createHarness([makeJob({ name: 'm', schedule: '0 0 1 1 *' })], {
      runMonitor: {
        started: () => {
          throw new Error('no /proc');
        },
        finished: () => {
          throw new Error('still no /proc');
        },
      },
    });
    h.scheduler.start();
    assert.equal((await h.scheduler.startJob('m')).kind, 'started');
    h.runner.runs[0]?.succeed();
    await h.clock.advance(0);
    const [run] = h.scheduler.getRuns('m');
    assert.equal(run?.outcome, 'success');
    assert.equal(run?.resources, null);
    assert.equal(h.logged("cannot monitor the run's resources").length, 1);
    assert.equal(h.logged("cannot read the run's resources").length, 1);
    await h.stop();
  });
});
