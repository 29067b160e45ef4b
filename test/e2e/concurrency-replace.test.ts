// E2E: concurrencyPolicy Replace cancels the running instance's whole process tree before the new
// instance starts.
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
} from './harness.js';

test(
  "Replace kills the old run's whole process tree, grandchild included, and runs the new one",
  { timeout: 30_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const tree = join(dir, 'tree.txt');
    const pidsInTree = (): number[] =>
      readLines(tree).flatMap((line) => line.split(' ').map(Number));
    killAtTeardown(t, pidsInTree);
    // Every run is `process-tree.sh`: it starts a `sleep 1000` grandchild and records
    // "<own pid> <grandchild pid>", then waits; it never ends on its own.
    const config = await writeConfig(
      dir,
      `jobs:
  - name: tree
    command:
      - sh
      - ${join(FIXTURES, 'process-tree.sh')}
      - ${tree}
    schedule: "*/2 * * * * * *"
    concurrencyPolicy: Replace
    killTimeout: 5
`,
    );
    const daemon = startDaemon(t, ['-c', config, '--shutdown-grace', '0']);
    const [first, second] = await waitForLines(tree, 2, 20_000);
    const [oldShell, oldGrandchild] = first!.split(' ').map(Number) as [number, number];
    const [newShell, newGrandchild] = second!.split(' ').map(Number) as [number, number];

    await daemon.waitForLog(/^Job tree was replaced by a newer instance$/);
    await waitUntil(
      () => !processExists(oldGrandchild) && !processExists(oldShell),
      `old run ${oldShell} and its grandchild ${oldGrandchild} to be gone`,
    );
    // The replacement is the run that is alive now.
    assert.ok(processExists(newShell), 'the new run is running');
    assert.ok(processExists(newGrandchild), "the new run's grandchild is running");
    assert.ok(
      daemon.logMessages(/^Job tree: still running and concurrencyPolicy is Replace$/).length >= 1,
    );
    // The replaced run died of the SIGTERM sent to its group.
    assert.match(daemon.logMessages(/^Job tree exit code/)[0] ?? '', /^Job tree exit code -15;/);

    // Shutdown with no grace cancels the running tree too.
    assert.equal(await daemon.stop(), 0);
    await waitUntil(
      () => !processExists(newGrandchild) && !processExists(newShell),
      `run ${newShell} and its grandchild ${newGrandchild} to be gone after shutdown`,
    );
  },
);
