// E2E: restart-durable Prometheus counters (docs/durable-state.md, "Restart-durable counters"): a
// graceful shutdown writes a final counter snapshot, and the next start seeds it back, so
// yacron2_job_runs_total carries on instead of resetting to zero.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  getText,
  post,
  startDaemon,
  useTempDir,
  webUrlOf,
  writeConfig,
  type DaemonProcess,
} from './harness.js';

/** The value of yacron2_job_runs_total for this job and status in an exposition text. */
function runsTotal(exposition: string, job: string, status: string): number | undefined {
  for (const line of exposition.split('\n')) {
    if (!line.startsWith('yacron2_job_runs_total{')) continue;
    if (!line.includes(`job_name="${job}"`) || !line.includes(`status="${status}"`)) continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

/** Start `job` by hand and wait until its run finished (its `count`-th exit line). */
async function runByHand(
  daemon: DaemonProcess,
  url: string,
  job: string,
  count: number,
): Promise<void> {
  const exited = new RegExp(`^Job ${job} exit code `);
  const finished = daemon.waitForNewLog(exited, 20_000);
  assert.equal(await post(`${url}/jobs/${job}/start`), 200);
  await finished;
  assert.equal(daemon.logMessages(exited).length, count);
}

test(
  'yacron2_job_runs_total continues across a graceful restart',
  { timeout: 60_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const store = join(dir, 'store');
    // Only ever started by hand: the counts are exactly the runs the test made.
    const config = await writeConfig(
      dir,
      `jobs:
  - name: tally
    command: "true"
    schedule: "0 0 1 1 * 2099"
  - name: sour
    command: exit 1
    schedule: "0 0 1 1 * 2099"
state:
  path: ${store}
web:
  listen:
    - http://127.0.0.1:0
`,
    );
    const first = startDaemon(t, ['-c', config]);
    const firstUrl = await webUrlOf(first);
    for (let run = 1; run <= 3; run++) await runByHand(first, firstUrl, 'tally', run);
    await runByHand(first, firstUrl, 'sour', 1);
    const before = await getText(`${firstUrl}/metrics`);
    assert.equal(runsTotal(before, 'tally', 'success'), 3);
    assert.equal(runsTotal(before, 'sour', 'failure'), 1);
    assert.equal(await first.stop(), 0);

    const second = startDaemon(t, ['-c', config]);
    const secondUrl = await webUrlOf(second);
    await second.waitForLog(/^State store: Prometheus counters continue from the last snapshot$/);
    const seeded = await getText(`${secondUrl}/metrics`);
    assert.equal(runsTotal(seeded, 'tally', 'success'), 3);
    assert.equal(runsTotal(seeded, 'tally', 'failure'), 0);
    assert.equal(runsTotal(seeded, 'sour', 'failure'), 1);
    await runByHand(second, secondUrl, 'tally', 1);
    assert.equal(runsTotal(await getText(`${secondUrl}/metrics`), 'tally', 'success'), 4);
    assert.equal(await second.stop(), 0);

    // And again: the second process's final snapshot carries the sum.
    const third = startDaemon(t, ['-c', config]);
    const thirdUrl = await webUrlOf(third);
    await third.waitForLog(/^State store: Prometheus counters continue from the last snapshot$/);
    const again = await getText(`${thirdUrl}/metrics`);
    assert.equal(runsTotal(again, 'tally', 'success'), 4);
    assert.equal(runsTotal(again, 'sour', 'failure'), 1);
    assert.equal(await third.stop(), 0);
  },
);
