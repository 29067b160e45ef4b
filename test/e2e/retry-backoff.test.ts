// E2E: a failing job is retried with exponential backoff, reports every failed attempt through
// onFailure, and reports the exhausted ladder through onPermanentFailure.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  readLines,
  shellQuote,
  startDaemon,
  useTempDir,
  waitForFile,
  waitForLines,
  writeConfig,
} from './harness.js';

test(
  'a failing job retries after 1 s then 2 s, then fires onPermanentFailure with the run described',
  { timeout: 30_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const attempts = join(dir, 'attempts.txt');
    const failures = join(dir, 'failures.txt');
    const permanent = join(dir, 'permanent.txt');
    // @reboot: exactly one scheduled launch, so no later fire resets the ladder.
    const config = await writeConfig(
      dir,
      `jobs:
  - name: flaky
    command: |
      date +%s.%N >> ${shellQuote(attempts)}
      echo "attempt failed" >&2
      exit 3
    schedule: "@reboot"
    onFailure:
      retry:
        maximumRetries: 2
        initialDelay: 1
        maximumDelay: 30
        backoffMultiplier: 2
      report:
        shell:
          command: echo "$YACRON2_JOB_NAME $YACRON2_RETCODE $YACRON2_FAILED" >> ${shellQuote(failures)}
    onPermanentFailure:
      report:
        shell:
          command: |
            printf '%s\\n' "$YACRON2_FAIL_REASON" "$YACRON2_JOB_NAME" "$YACRON2_RETCODE" "$YACRON2_STDERR" > ${shellQuote(`${permanent}.tmp`)}
            mv ${shellQuote(`${permanent}.tmp`)} ${shellQuote(permanent)}
`,
    );
    const daemon = startDaemon(t, ['-c', config]);

    const report = await waitForFile(permanent, () => true, 20_000);
    assert.equal(report, 'failsWhen=nonzeroReturn and retcode=3\nflaky\n3\nattempt failed\n\n');
    // onFailure fired once per failed attempt (the last one runs concurrently with the permanent
    // report, so wait for it).
    const failed = await waitForLines(failures, 3);
    assert.deepEqual(failed, ['flaky 3 1', 'flaky 3 1', 'flaky 3 1']);
    assert.equal(await daemon.stop(), 0);

    const times = readLines(attempts).map(Number);
    assert.equal(times.length, 3, `1 run + maximumRetries 2 attempts, got ${times.length}`);
    const firstGap = times[1]! - times[0]!;
    const secondGap = times[2]! - times[1]!;
    // initialDelay 1, then ×2: gaps of about 1 s and 2 s (plus reaping/spawn latency).
    assert.ok(firstGap >= 0.9 && firstGap < 3, `first gap ${firstGap} s, expected ~1 s`);
    assert.ok(secondGap >= 1.9 && secondGap < 4.5, `second gap ${secondGap} s, expected ~2 s`);
    assert.ok(secondGap > firstGap, `gaps must grow: ${firstGap} s then ${secondGap} s`);

    assert.deepEqual(daemon.logMessages(/^Cron job flaky scheduled to be retried/), [
      'Cron job flaky scheduled to be retried (#1) in 1.0 seconds',
      'Cron job flaky scheduled to be retried (#2) in 2.0 seconds',
    ]);
    assert.equal(daemon.logMessages(/^Job flaky exit code 3;/).length, 3);
  },
);
