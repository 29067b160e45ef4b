// E2E: SIGTERM stops scheduling, lets running jobs finish within the shutdown grace, kills the
// process groups of those that do not, and the daemon exits 0 either way.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  FIXTURES,
  killAtTeardown,
  processExists,
  readIfExists,
  readLines,
  shellQuote,
  startDaemon,
  useTempDir,
  waitForLines,
  waitUntil,
  writeConfig,
  type DaemonProcess,
  type TeardownContext,
} from './harness.js';

/**
 * `drain`, an @reboot job that runs until the file `go` exists (`extra` adds keys to it), and
 * `ticker`, a job every second whose log lines show the daemon is firing.
 */
function drainingJobs(go: string, extra = ''): string {
  return `jobs:
  - name: drain
    command: |
      echo "started"
      while [ ! -e ${shellQuote(go)} ]; do sleep 0.05; done
      echo "finished"
    schedule: "@reboot"
    captureStdout: true
${extra}  - name: ticker
    command: echo tick
    schedule: "* * * * * * *"
`;
}

/**
 * A daemon running drainingJobs with `--shutdown-grace grace`, sent SIGTERM once `drain` runs and
 * `ticker` has fired, and seen starting its shutdown; `go` lets `drain` finish.
 */
async function shuttingDownWithDrain(
  t: TeardownContext,
  grace: string,
): Promise<{ daemon: DaemonProcess; go: string }> {
  const dir = await useTempDir(t);
  const go = join(dir, 'go');
  const config = await writeConfig(dir, drainingJobs(go));
  const daemon = startDaemon(t, ['-c', config, '--shutdown-grace', grace]);
  await daemon.waitForLine(/^\[drain stdout\] started$/);
  await daemon.waitForLog(/^Job ticker exit code 0;/);
  daemon.child.kill('SIGTERM');
  await daemon.waitForLog(/^Shutting down \(after currently running jobs finish\)\.\.\.$/);
  return { daemon, go };
}

test(
  'SIGTERM lets a running job finish and report success, fires nothing new, and the daemon exits 0',
  { timeout: 30_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const go = join(dir, 'go');
    const config = await writeConfig(
      dir,
      drainingJobs(
        go,
        `    onSuccess:
      report:
        shell:
          command: echo "$YACRON2_JOB_NAME $YACRON2_FAILED" > ${shellQuote(join(dir, 'success.txt'))}
`,
      ),
    );
    const daemon = startDaemon(t, ['-c', config]);
    await daemon.waitForLine(/^\[drain stdout\] started$/);
    await daemon.waitForLog(/^Job ticker exit code 0;/);

    daemon.child.kill('SIGTERM');
    await daemon.waitForLog(/^Shutting down \(after currently running jobs finish\)\.\.\.$/);
    assert.equal(daemon.running, true);
    await writeFile(go, '');
    await daemon.waitForLine(/^\[drain stdout\] finished$/);
    assert.equal(await daemon.exited(), 0);

    const exit = daemon.logMessages(/^Job drain exit code/);
    assert.deepEqual(exit, [
      'Job drain exit code 0; has stdout: True, has stderr: False; fail_reason: None',
    ]);
    const shuttingDown = daemon.indexOfLine(/"msg":"Shutting down/);
    assert.equal(
      daemon.lines.slice(shuttingDown).filter((line) => line.includes('"msg":"Starting job'))
        .length,
      0,
      'a job was started after the shutdown began',
    );
    assert.equal(daemon.logMessages(/Shutdown grace .* expired/).length, 0);
    // A success during shutdown is still reported, before the daemon exits.
    assert.equal(readIfExists(join(dir, 'success.txt')), 'drain 0\n');
  },
);

test(
  'with --shutdown-grace 1 a job that runs on is killed with its process group, and the daemon exits 0',
  { timeout: 30_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const tree = join(dir, 'tree.txt');
    killAtTeardown(t, () => readLines(tree).flatMap((line) => line.split(' ').map(Number)));
    const config = await writeConfig(
      dir,
      `jobs:
  - name: endless
    command:
      - sh
      - ${join(FIXTURES, 'process-tree.sh')}
      - ${tree}
    schedule: "* * * * * * *"
    concurrencyPolicy: Forbid
    onFailure:
      report:
        shell:
          command: touch ${shellQuote(join(dir, 'reported'))}
`,
    );
    const daemon = startDaemon(t, ['-c', config, '--shutdown-grace', '1']);
    // A cron fire (not @reboot): it comes from a timer, after the daemon's signal handlers exist.
    const [line] = await waitForLines(tree, 1);
    const [shell, grandchild] = line!.split(' ').map(Number) as [number, number];

    assert.equal(await daemon.stop('SIGTERM'), 0);
    assert.deepEqual(daemon.logMessages(/^Shutdown grace/), [
      'Shutdown grace of 1.0 seconds expired; cancelling 1 running job(s)',
    ]);
    await waitUntil(
      () => !processExists(grandchild) && !processExists(shell),
      `run ${shell} and its grandchild ${grandchild} to be gone`,
    );
    // Cancelled by the shutdown: recorded as a failure, but not reported.
    assert.match(
      daemon.logMessages(/^Job endless exit code/)[0] ?? '',
      /^Job endless exit code -15;/,
    );
    assert.equal(readIfExists(join(dir, 'reported')), null, 'onFailure fired during shutdown');
  },
);

test(
  'SIGTERM arriving just after start-up, while an @reboot job already runs, still shuts down gracefully',
  {
    timeout: 30_000,
  },
  async (t) => {
    const dir = await useTempDir(t);
    const tree = join(dir, 'tree.txt');
    killAtTeardown(t, () => readLines(tree).flatMap((line) => line.split(' ').map(Number)));
    const config = await writeConfig(
      dir,
      `jobs:
  - name: early
    command:
      - sh
      - ${join(FIXTURES, 'process-tree.sh')}
      - ${tree}
    schedule: "@reboot"
`,
    );
    const daemon = startDaemon(t, ['-c', config, '--shutdown-grace', '1']);
    const [line] = await waitForLines(tree, 1);
    const [shell, grandchild] = line!.split(' ').map(Number) as [number, number];
    // Signalled as soon as the @reboot job runs: from the outside, the daemon is up. (The other
    // tests signal only after a timer-driven log line, which the handlers always precede.)
    daemon.child.kill('SIGTERM');
    assert.equal(await daemon.exited(), 0, `daemon exit; output:\n${daemon.lines.join('\n')}`);
    await waitUntil(
      () => !processExists(grandchild) && !processExists(shell),
      `run ${shell} and its grandchild ${grandchild} to be gone`,
    );
  },
);

test(
  'a --shutdown-grace beyond Node timer range (2200000 s) waits for the job instead of expiring at once',
  { timeout: 30_000 },
  async (t) => {
    const { daemon, go } = await shuttingDownWithDrain(t, '2200000');
    // Node clamps a timer over 2^31 - 1 ms to 1 ms: the grace "expired" at once and the job
    // was killed before it could see the go file.
    await writeFile(go, '');
    assert.equal(await daemon.exited(), 0);
    assert.deepEqual(daemon.logMessages(/Shutdown grace .* expired/), []);
    assert.deepEqual(daemon.logMessages(/^Job drain exit code/), [
      'Job drain exit code 0; has stdout: True, has stderr: False; fail_reason: None',
    ]);
  },
);

test(
  'a second SIGTERM during the shutdown exits at once, kills the running job and says what it abandoned',
  { timeout: 30_000 },
  async (t) => {
    const { daemon } = await shuttingDownWithDrain(t, '600');
    daemon.child.kill('SIGTERM');
    assert.equal(await daemon.exited(), 128 + 15);
    const [line] = daemon.logMessages(/^Received SIGTERM again/);
    const match =
      /^Received SIGTERM again: exiting now, abandoning job drain \(pid (\d+), killed\), the pending reports$/.exec(
        line ?? '',
      );
    assert.ok(match, line);
    const pid = Number(match[1]);
    await waitUntil(() => !processExists(pid), `the abandoned job ${pid} to be gone`);
    assert.equal(daemon.logMessages(/^Job drain exit code/).length, 0);
  },
);

test(
  'a reporter that hangs is abandoned when the shutdown grace is over: the daemon exits and kills it',
  { timeout: 30_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const pidFile = join(dir, 'reporter.pid');
    killAtTeardown(t, () => readLines(pidFile).map(Number));
    const config = await writeConfig(
      dir,
      `jobs:
  - name: failing
    command: exit 3
    schedule: "@reboot"
    onFailure:
      report:
        shell:
          command: echo $$ > ${shellQuote(pidFile)}; exec sleep 600
`,
    );
    const daemon = startDaemon(t, ['-c', config, '--shutdown-grace', '1']);
    const [reporter] = (await waitForLines(pidFile, 1)).map(Number) as [number];
    // Bounded: what is left of the 1 s grace, at least SHUTDOWN_TEARDOWN_FLOOR_MS (5 s); the
    // shell reporter's own timeout is 300 s.
    assert.equal(await daemon.stop('SIGTERM', 15_000), 0);
    assert.deepEqual(daemon.logMessages(/^Shutdown: gave up/), [
      'Shutdown: gave up waiting for the pending reports at the end of the shutdown grace',
    ]);
    await waitUntil(() => !processExists(reporter), `the reporter ${reporter} to be gone`);
  },
);
