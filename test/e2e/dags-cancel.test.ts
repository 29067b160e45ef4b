// E2E: cancelling a DAG run in a real daemon (docs/dags.md "Ending a run early"): a task's real
// process, running, gets SIGTERM through POST /dags/{name}/runs/{runKey}/cancel and ends; the run
// is failed with `ended: cancelled`, its pending downstream skipped, and nothing starts after.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { readIfExists, readLines, waitUntil } from './harness.js';
import { useJobState } from './job-fixture.test.js';
import { daemonWithDags, postJson, waitForRun } from './dag-fixture.test.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('a cancelled run stops its running task process', { timeout: 60_000 }, async (t) => {
  const setup = await useJobState(t);
  const log = setup.file('log');
  const { daemon, base } = await daemonWithDags(
    t,
    setup,
    `  - name: long
    tasks:
      - id: work
        command: |
          trap 'echo term >> ${log}; exit 143' TERM
          echo $$ > ${setup.file('pid')}
          while :; do sleep 0.05; done
      - id: after
        dependsOn:
          - work
        command: echo after >> ${log}
`,
  );
  const trigger = await postJson(`${base}/dags/long/trigger`);
  const { runKey } = JSON.parse(trigger.text) as { runKey: string };
  const pid = await waitUntil(() => {
    const text = readIfExists(join(setup.dir, 'pid'))?.trim();
    return text === undefined || text === '' ? undefined : Number(text);
  }, 'the task wrote its pid');
  assert.ok(alive(pid));

  const cancel = await postJson(`${base}/dags/long/runs/${runKey}/cancel`, { by: 'e2e' });
  assert.equal(cancel.status, 200, cancel.text);
  assert.deepEqual(JSON.parse(cancel.text), { ok: true, dag: 'long', runKey, state: 'failed' });
  await waitUntil(() => !alive(pid), `task process ${pid} ended`);
  await daemon.waitForLog(new RegExp(`^DAG long: run ${runKey} finished: failed$`));
  assert.deepEqual(readLines(join(setup.dir, 'log')), ['term']);

  const run = await waitForRun(base, 'long', runKey, (candidate) => candidate.state !== 'running');
  assert.equal(run.ended?.kind, 'cancelled');
  assert.equal(run.ended?.by, 'e2e');
  assert.deepEqual(
    [run.tasks['work']?.state, run.tasks['work']?.failReason],
    ['failed', 'the run was cancelled by e2e'],
  );
  assert.equal(run.tasks['after']?.state, 'skipped');
  const again = await postJson(`${base}/dags/long/runs/${runKey}/cancel`);
  assert.equal(again.status, 409);
  await daemon.stop();
  assert.ok(!readLines(join(setup.dir, 'log')).includes('after'));
});
