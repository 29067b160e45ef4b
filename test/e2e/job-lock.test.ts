// E2E: `yacron2 lock` from real jobs of a real daemon (docs/job-state.md): a semaphore of two
// permits never has three holders at once (a witness file records entries and exits), and the
// permit of a job killed with SIGKILL is free again as soon as the daemon sees the run end, not
// when its lease's TTL (set to 300 s here) runs out.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { readIfExists, startDaemon, waitForFile, waitForLines } from './harness.js';
import { onceJob, SKIP_WITHOUT_JOB_API, useJobState } from './job-fixture.test.js';

test(
  'lock run --permits 2: at most two of five holders at once, each released',
  { timeout: 90_000 },
  async (t) => {
    const setup = await useJobState(t);
    const witness = setup.file('witness');
    const holders = [1, 2, 3, 4, 5];
    const jobs = holders
      .map((holder) =>
        onceJob(
          setup,
          `holder-${holder}`,
          `yacron2 lock run pool --global --permits 2 --wait --timeout 60 -- \\
  sh -c 'echo "in ${holder}" >> ${witness}; sleep 2; echo "out ${holder}" >> ${witness}'
echo "rc ${holder} $?" >> ${setup.file('codes')}`,
        ),
      )
      .join('');
    const config = await setup.writeJobs(`jobs:\n${jobs}`);
    const daemon = startDaemon(t, ['-c', config], { env: setup.env });
    const codes = await waitForLines(join(setup.dir, 'codes'), holders.length, 60_000);
    assert.deepEqual(
      codes.map((line) => line.split(' ')[2]),
      holders.map(() => '0'),
    );

    const events = (readIfExists(join(setup.dir, 'witness')) ?? '').trimEnd().split('\n');
    assert.equal(events.length, holders.length * 2, events.join(' | '));
    let inside = 0;
    let most = 0;
    for (const event of events) {
      inside += event.startsWith('in ') ? 1 : -1;
      most = Math.max(most, inside);
      assert.ok(inside <= 2, `three holders overlapped: ${events.join(' | ')}`);
    }
    assert.equal(most, 2, `two permits were never both used: ${events.join(' | ')}`);
    assert.equal(await daemon.stop(), 0);
  },
);

test(
  'the permit of a job killed with SIGKILL is free again at once',
  { timeout: 60_000 },
  async (t) => {
    const setup = await useJobState(t);
    const config = await setup.writeJobs(
      `jobs:
${onceJob(
  setup,
  'holder',
  `echo $$ > ${setup.file('holder.pid')}
yacron2 lock run solo --global -- sh -c 'echo held > ${setup.file('held')}; sleep 600'`,
)}  - name: contender
    schedule: "* * * * * * *"
    command: |
      ${SKIP_WITHOUT_JOB_API}
      [ -e ${setup.file('held')} ] || exit 0
      yacron2 lock acquire solo --global > /dev/null 2>&1
      echo "rc=$?" >> ${setup.file('contender')}
`,
      'lockTtlSeconds: 300',
    );
    const daemon = startDaemon(t, ['-c', config], { env: setup.env });
    await waitForFile(join(setup.dir, 'held'));
    // Contended first: the contender is refused while the holder lives.
    await waitForFile(join(setup.dir, 'contender'), (text) => text.includes('rc=3\n'), 20_000);
    const pid = Number((await waitForFile(join(setup.dir, 'holder.pid'))).trim());
    // The run leads its own process group: shell, the lock client and the command all die at once,
    // so nobody but the daemon can give the permit back; the lease's TTL is 300 s.
    process.kill(-pid, 'SIGKILL');
    await waitForFile(join(setup.dir, 'contender'), (text) => text.includes('rc=0\n'), 20_000);
    assert.equal(await daemon.stop(), 0);
  },
);
