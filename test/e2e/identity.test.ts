// E2E: a numeric `user:` that /etc/passwd does not know, with no `group:`, runs with the nogroup
// gid 65534 instead of keeping the daemon's gid 0, and the daemon says so at start-up
// (docs/configuration.md "User and group"). Needs root.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startDaemon, useTempDir, writeConfig } from './harness.js';

const isRoot = process.getuid?.() === 0;

test(
  'a numeric user unknown to passwd runs with gid 65534 (nogroup), never the daemon gid 0',
  { timeout: 30_000, skip: isRoot ? false : 'needs root' },
  async (t) => {
    const dir = await useTempDir(t);
    const config = await writeConfig(
      dir,
      `jobs:
  - name: unknown-uid
    command: id -u; id -g; id -G
    schedule: "@reboot"
    user: 54321
    captureStdout: true
`,
    );
    const daemon = startDaemon(t, ['-c', config]);
    await daemon.waitForLog(/^Job unknown-uid exit code 0;/);
    const printed = daemon.lines
      .filter((line) => line.startsWith('[unknown-uid stdout] '))
      .map((line) => line.slice('[unknown-uid stdout] '.length));
    assert.deepEqual(printed, ['54321', '65534', '65534']);
    assert.deepEqual(daemon.logMessages(/nogroup/), [
      'Job unknown-uid: user 54321 is not in /etc/passwd and no group is set; it runs with gid 65534 (nogroup)',
    ]);
    assert.equal(await daemon.stop(), 0);
  },
);
