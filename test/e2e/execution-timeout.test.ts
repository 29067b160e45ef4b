// E2E: executionTimeout cancels a run's whole process tree and records exit code -100.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  FIXTURES,
  killAtTeardown,
  processExists,
  readLines,
  startDaemon,
  useTempDir,
  waitForLines,
  waitUntil,
  writeConfig,
  type TeardownContext,
} from './harness.js';

async function runTreeWithTimeout(
  t: TeardownContext,
  extraArgs: readonly string[],
  killTimeout: number,
) {
  const dir = await useTempDir(t);
  const tree = join(dir, 'tree.txt');
  killAtTeardown(t, () => readLines(tree).flatMap((line) => line.split(' ').map(Number)));
  const config = await writeConfig(
    dir,
    `jobs:
  - name: stuck
    command:
      - sh
      - ${join(FIXTURES, 'process-tree.sh')}
      - ${tree}
${extraArgs.map((arg) => `      - ${arg}\n`).join('')}    schedule: "@reboot"
    executionTimeout: 1
    killTimeout: ${killTimeout}
`,
  );
  const daemon = startDaemon(t, ['-c', config]);
  const [line] = await waitForLines(tree, 1);
  const [shell, grandchild] = line!.split(' ').map(Number) as [number, number];
  return { daemon, shell, grandchild };
}

test(
  'executionTimeout kills the run and its grandchild, and the run ends with exit code -100',
  { timeout: 30_000 },
  async (t) => {
    const { daemon, shell, grandchild } = await runTreeWithTimeout(t, [], 30);
    await daemon.waitForLog(
      /^Job stuck exceeded its executionTimeout of 1\.0 seconds, cancelling it\.\.\.$/,
    );
    const exit = await daemon.waitForLog(/^Job stuck exit code /);
    assert.match(
      exit.msg,
      /^Job stuck exit code -100; has stdout: False, has stderr: False; fail_reason: 'failsWhen=nonzeroReturn and retcode=-100'$/,
    );
    await waitUntil(
      () => !processExists(grandchild) && !processExists(shell),
      `run ${shell} and its grandchild ${grandchild} to be gone`,
    );
    // The script died of the SIGTERM; no SIGKILL escalation was needed.
    assert.equal(daemon.logMessages(/did not gracefully terminate/).length, 0);
    assert.equal(await daemon.stop(), 0);
  },
);

test(
  'executionTimeout escalates to SIGKILL after killTimeout when the tree ignores SIGTERM',
  { timeout: 30_000 },
  async (t) => {
    const { daemon, shell, grandchild } = await runTreeWithTimeout(t, ['ignore-term'], 1);
    await daemon.waitForLog(/^Job stuck exceeded its executionTimeout of 1\.0 seconds/);
    await daemon.waitForLog(
      /^Job stuck did not gracefully terminate after 1\.0 seconds, killing it\.\.\.$/,
    );
    const exit = await daemon.waitForLog(/^Job stuck exit code /);
    assert.match(exit.msg, /^Job stuck exit code -100;/);
    await waitUntil(
      () => !processExists(grandchild) && !processExists(shell),
      `run ${shell} and its SIGTERM-ignoring grandchild ${grandchild} to be gone`,
    );
    assert.equal(await daemon.stop(), 0);
  },
);
