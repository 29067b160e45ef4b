// E2E: the spawn helper, the default spawn path (docs/performance.md "The spawn path"), for each
// helper program: the native one (the default once built) and the Node one
// (YACRON2_SPAWN_HELPER=node). A job the daemon starts is the helper's child and the daemon
// reports its pid; a SIGTERM with that run in flight drains it through the helper and leaves no
// helper behind; the helper of a SIGKILLed daemon exits by itself while the job runs on in its
// own session.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  getText,
  killAtTeardown,
  post,
  processExists,
  shellQuote,
  startDaemon,
  useTempDir,
  waitUntil,
  webUrlOf,
  writeConfig,
  type DaemonProcess,
  type TeardownContext,
} from './harness.js';

type HelperKind = 'native' | 'node';
const helperReady = (kind: HelperKind): RegExp =>
  new RegExp(`^Jobs are started by the ${kind} spawn helper \\(pid (\\d+)\\)$`);
/** The daemon's environment for a helper kind: the native one is the default. */
const envFor = (kind: HelperKind): NodeJS.ProcessEnv =>
  kind === 'native'
    ? { ...process.env, YACRON2_SPAWN_HELPER: undefined }
    : { ...process.env, YACRON2_SPAWN_HELPER: 'node' };

interface Started {
  readonly daemon: DaemonProcess;
  readonly helperPid: number;
  readonly jobPid: number;
  readonly go: string;
}

/**
 * A daemon whose helper is ready, with `work` started over HTTP through it: the run says its
 * parent's pid, then waits for the file `go`.
 */
async function startedThroughHelper(t: TeardownContext, kind: HelperKind): Promise<Started> {
  const dir = await useTempDir(t);
  const go = join(dir, 'go');
  const config = await writeConfig(
    dir,
    `jobs:
  - name: work
    command: |
      echo "ppid $PPID"
      while [ ! -e ${shellQuote(go)} ]; do sleep 0.05; done
      echo finished
    schedule: "0 0 1 1 *"
    captureStdout: true
web:
  listen:
    - http://127.0.0.1:0
`,
  );
  const daemon = startDaemon(t, ['-c', config], { env: envFor(kind) });
  const ready = await daemon.waitForLog(helperReady(kind));
  const helperPid = Number(helperReady(kind).exec(ready.msg)![1]);
  const url = await webUrlOf(daemon);
  assert.equal(await post(`${url}/jobs/work/start`), 200);
  await daemon.waitForLine(new RegExp(`^\\[work stdout\\] ppid ${helperPid}$`));
  await daemon.waitForLog(/^Job work spawned$/);
  const status = await getText(`${url}/status`);
  const jobPid = Number(/^work: running \(pid: (\d+)\)$/m.exec(status)?.[1]);
  assert.ok(jobPid > 0, status);
  killAtTeardown(t, () => [jobPid]);
  return { daemon, helperPid, jobPid, go };
}

for (const kind of ['native', 'node'] as const) {
  test(`SIGTERM with a run in flight through the ${kind} helper: it drains, then no helper is left`, async (t) => {
    const { daemon, helperPid, jobPid, go } = await startedThroughHelper(t, kind);
    daemon.child.kill('SIGTERM');
    await daemon.waitForLog(/^Shutting down \(after currently running jobs finish\)\.\.\.$/);
    assert.ok(processExists(helperPid), 'the helper stays for the run it started');
    await writeFile(go, '');
    assert.equal(await daemon.exited(), 0);
    assert.ok(daemon.lines.includes('[work stdout] finished'));
    assert.equal(
      daemon.logs().filter((record) => /^Job work exit code 0;/.test(record.msg)).length,
      1,
    );
    assert.equal(processExists(jobPid), false);
    await waitUntil(() => !processExists(helperPid), 'the helper exited with the daemon', {
      timeoutMs: 5_000,
    });
  });

  test(`a SIGKILLed daemon's ${kind} helper exits by itself; the job runs on in its session`, async (t) => {
    const { daemon, helperPid, jobPid, go } = await startedThroughHelper(t, kind);
    daemon.child.kill('SIGKILL');
    await daemon.exited();
    await waitUntil(() => !processExists(helperPid), 'the helper exited after its daemon', {
      timeoutMs: 5_000,
    });
    assert.ok(processExists(jobPid), 'the job outlives its daemon and helper');
    await writeFile(go, '');
    await waitUntil(() => !processExists(jobPid), 'the job finished');
  });
}
