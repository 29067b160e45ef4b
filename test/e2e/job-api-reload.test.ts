// E2E: the job API across a reload that restarts it on the same fixed port (src/daemon.ts
// applyJobApi): the old endpoint still holds the port, so the new one binds after it closes —
// and job commands keep working afterwards instead of the API being lost.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { freePort, readLines, startDaemon, waitForFile } from './harness.js';
import { SKIP_WITHOUT_JOB_API, useJobState } from './job-fixture.test.js';

test(
  'a reload that restarts the job API on its fixed port keeps job commands working',
  { timeout: 60_000 },
  async (t) => {
    const setup = await useJobState(t);
    const port = await freePort();
    const results = join(setup.dir, 'results');
    const jobs = `jobs:
  - name: counter
    schedule: "* * * * * * *"
    command: |
      ${SKIP_WITHOUT_JOB_API}
      if yacron2 state set last "$YACRON2_RUN_ID" 2>/dev/null; then echo ok >> ${setup.file('results')}; else echo fail >> ${setup.file('results')}; fi`;
    const config = await setup.writeJobs(jobs, `listen: http://127.0.0.1:${port}`);
    const daemon = startDaemon(t, ['-c', config, '--reload-interval', '1'], { env: setup.env });
    await daemon.waitForLog(new RegExp(`job API: listening on http://127\\.0\\.0\\.1:${port}`));
    const oks = (text: string, from = 0): number =>
      text
        .split('\n')
        .slice(from)
        .filter((line) => line === 'ok').length;
    await waitForFile(results, (text) => oks(text) >= 2);

    const reopened = daemon.waitForNewLog(/The state section changed: reopening the state store/);
    const relistening = daemon.waitForNewLog(
      new RegExp(`job API: listening on http://127\\.0\\.0\\.1:${port}`),
    );
    await setup.writeJobs(jobs, `listen: http://127.0.0.1:${port}\nmaxValueBytes: 4096`);
    await reopened;
    await relistening;
    const before = readLines(results).length;
    // Runs launched after the restart reach the new endpoint (two more successes).
    await waitForFile(results, (text) => oks(text, before) >= 2);
    assert.equal(
      daemon.logs().filter((record) => /Cannot start the job API/.test(record.msg)).length,
      0,
    );
    assert.equal(await daemon.stop(), 0);
  },
);
