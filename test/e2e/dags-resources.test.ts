// E2E: a DAG task's attempt starts through the scheduler's run start (docs/architecture.md
// "A run"), so `monitorResources` on a task samples its process like a job's: the run document's
// entry carries the totals in a run record's shape (docs/dags.md "Attempts and the job surfaces"),
// and a task without it keeps `resources: null`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useJobState } from './job-fixture.test.js';
import { daemonWithDags, postJson, waitForRun } from './dag-fixture.test.js';

test(
  'a monitored task records its resources in the run; an unmonitored one null',
  { timeout: 60_000 },
  async (t) => {
    const setup = await useJobState(t);
    const { daemon, base } = await daemonWithDags(
      t,
      setup,
      `  - name: measured
    tasks:
      - id: work
        monitorResources:
          interval: 0.1
        command: sleep 0.6
      - id: plain
        dependsOn:
          - work
        command: "true"
`,
    );
    const trigger = await postJson(`${base}/dags/measured/trigger`);
    assert.equal(trigger.status, 200, trigger.text);
    const { runKey } = JSON.parse(trigger.text) as { runKey: string };
    const run = await waitForRun(
      base,
      'measured',
      runKey,
      (candidate) => candidate.state !== 'running',
    );
    assert.equal(run.state, 'success');
    const work = run.tasks['work'];
    const plain = run.tasks['plain'];
    assert.ok(work?.resources, 'the monitored task has resources');
    assert.ok(work.resources.samples >= 1, `samples ${work.resources.samples}`);
    assert.ok(work.resources.max_rss_bytes > 0, `max_rss_bytes ${work.resources.max_rss_bytes}`);
    assert.ok(work.resources.cpu_total_seconds >= 0);
    assert.equal(work.resources.series, undefined, 'no series in the run document');
    assert.equal(plain?.resources, null);
    await daemon.stop();
  },
);
