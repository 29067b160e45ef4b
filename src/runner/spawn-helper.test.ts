// The spawn helper itself, against real processes: runs are its children, a dead helper is
// restarted without losing or repeating a run, a launch it never confirmed is not retried, a
// cancel that comes before the pid still kills the run, and the daemon's switch and fallback.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeferred, silentLogger, systemClock } from '../common/index.js';
import { recordingLogger } from '../common/testing.js';
import { createRunner } from './create-runner.js';
import { isPidGone } from './process-group.js';
import { SpawnHelper } from './spawn-helper.js';
import { SPAWN_HELPER_ENV, startSpawner } from './spawn-path.js';
import { startTestHelper } from './test-spawn-paths.js';
import { fixture, makeJob, TextSink } from './test-job-fixture.js';
import type { OutputLine, Runner } from './types.js';

function runnerOn(spawner: SpawnHelper): Runner {
  return createRunner({
    clock: systemClock,
    logger: silentLogger(),
    stdout: new TextSink(),
    stderr: new TextSink(),
    baseEnv: process.env,
    spawner,
  });
}

/** Resolves with the first captured line matching `pattern`, through onOutput. */
function lineWaiter(pattern: RegExp): {
  onOutput: (line: OutputLine) => void;
  seen: Promise<string>;
} {
  const seen = createDeferred<string>();
  return {
    onOutput: ({ line }) => {
      if (pattern.test(line)) seen.resolve(line);
    },
    seen: seen.promise,
  };
}

async function withTempDir<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'yacron2-helper-'));
  try {
    return await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

void test('a run started through the helper is the helper’s child, in its own session', async () => {
  const helper = await startTestHelper();
  try {
    const outcome = await runnerOn(helper).start({
      job: makeJob({
        command: { kind: 'shell', script: 'cut -d" " -f4,5,6 /proc/$$/stat' },
        captureStdout: true,
      }),
    }).done;
    const [ppid, pgrp, session] = (outcome.stdout?.text ?? '').trim().split(' ').map(Number);
    assert.equal(ppid, helper.pid);
    assert.equal(pgrp, outcome.pid);
    assert.equal(session, outcome.pid);
  } finally {
    await helper.close();
  }
});

void test('a killed helper is restarted; its running run keeps its output and is seen to end, nothing runs twice', async () => {
  await withTempDir(async (dir) => {
    const counter = join(dir, 'starts');
    const fifo = join(dir, 'go');
    execFileSync('mkfifo', [fifo]);
    const helperExited = createDeferred<void>();
    const logger = recordingLogger();
    const helper = await SpawnHelper.start({
      clock: systemClock,
      logger,
      env: process.env,
      onHelperExit: () => helperExited.resolve(),
    });
    assert.ok(helper);
    try {
      const runner = runnerOn(helper);
      const ready = lineWaiter(/^ready/);
      const first = runner.start({
        job: makeJob({
          name: 'first',
          command: {
            kind: 'shell',
            script: `echo first >> ${counter}; echo ready; read word < ${fifo}; echo "after $word"`,
          },
          captureStdout: true,
        }),
        onOutput: ready.onOutput,
      });
      await ready.seen;
      const firstHelperPid = helper.pid!;
      process.kill(firstHelperPid, 'SIGKILL');
      await helperExited.promise;
      assert.equal(await helper.ready(), true, 'a new helper started');
      assert.notEqual(helper.pid, firstHelperPid);
      assert.equal(isPidGone(first.pid!), false, 'the run outlived its helper');

      await writeFile(fifo, 'go\n');
      const outcome = await first.done;
      assert.equal(outcome.stdout?.text, 'ready\nafter go\n', 'its output is still captured');
      assert.equal(outcome.exitCode, -1, 'its exit status went to its new parent: unknown');
      assert.equal(outcome.kind, 'failed');

      const second = await runner.start({
        job: makeJob({
          name: 'second',
          command: {
            kind: 'shell',
            script: `echo second >> ${counter}; cut -d" " -f4 /proc/$$/stat`,
          },
          captureStdout: true,
        }),
      }).done;
      assert.equal(second.kind, 'succeeded');
      assert.equal(
        second.stdout?.text,
        `${helper.pid}\n`,
        'the next run goes through the new helper',
      );
      assert.equal(await readFile(counter, 'utf8'), 'first\nsecond\n', 'each run started once');
      assert.ok(
        logger.lines.some((line) =>
          /spawn helper exited \(SIGKILL\) with 1 run/.test(line.message),
        ),
      );
    } finally {
      await helper.close();
    }
  });
});

void test('a launch the helper never confirmed fails as a spawn failure and is not retried', async () => {
  await withTempDir(async (dir) => {
    const counter = join(dir, 'starts');
    const helperExited = createDeferred<void>();
    const helper = await SpawnHelper.start({
      clock: systemClock,
      logger: silentLogger(),
      env: process.env,
      onHelperExit: () => helperExited.resolve(),
    });
    assert.ok(helper);
    try {
      // Stopped, the helper cannot read the launch; killed, it never will.
      process.kill(helper.pid!, 'SIGSTOP');
      const run = runnerOn(helper).start({
        job: makeJob({ command: { kind: 'shell', script: `echo ran >> ${counter}` } }),
      });
      process.kill(helper.pid!, 'SIGKILL');
      const outcome = await run.done;
      assert.equal(outcome.kind, 'spawn-failed');
      assert.equal(outcome.exitCode, 127);
      assert.match(outcome.spawnError ?? '', /spawn helper died before confirming the launch/);
      await helperExited.promise;
      assert.equal(await helper.ready(), true);
      await assert.rejects(readFile(counter, 'utf8'), { code: 'ENOENT' }, 'the command never ran');
    } finally {
      await helper.close();
    }
  });
});

void test('a cancel that comes before the helper confirmed the pid still kills the run', async () => {
  const helper = await startTestHelper();
  try {
    const handle = runnerOn(helper).start({
      job: makeJob({ command: { kind: 'shell', script: 'exec sleep 600' }, killTimeoutMs: 1000 }),
    });
    assert.equal(handle.pid, undefined, 'the pid comes with the helper’s reply');
    await handle.cancel('cancelled');
    const outcome = await handle.done;
    assert.equal(outcome.kind, 'killed');
    assert.equal(outcome.exitCode, -15);
    assert.equal(outcome.cancelReason, 'cancelled');
  } finally {
    await helper.close();
  }
});

void test('a helper program that does not start leaves the caller on the in-process path', async () => {
  const helper = await SpawnHelper.start({
    clock: systemClock,
    logger: silentLogger(),
    env: process.env,
    script: fixture('exit-with.js'), // exits 0 at once, never ready
  });
  assert.equal(helper, null);
});

void test(`${SPAWN_HELPER_ENV}=1 turns the helper on; the default is in-process`, async () => {
  const logger = recordingLogger();
  const off = await startSpawner({ clock: systemClock, logger, env: {} });
  assert.equal(off.spawner.kind, 'in-process');
  await off.close();
  const on = await startSpawner({
    clock: systemClock,
    logger,
    env: { ...process.env, [SPAWN_HELPER_ENV]: '1' },
  });
  try {
    assert.equal(on.spawner.kind, 'helper');
    assert.ok(logger.lines.some((line) => /started by the spawn helper/.test(line.message)));
  } finally {
    await on.close();
  }
});
