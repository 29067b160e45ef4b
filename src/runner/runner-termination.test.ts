// executionTimeout and cancel against real processes: the timers run on a FakeClock (so the test
// decides when they fire) except where a real clock is the point; every kill targets the whole
// process group.
import { test } from 'node:test';
import { currentSpawner, describeForEachSpawnPath } from './test-spawn-paths.js';
import * as assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeferred, FakeClock, systemClock, type Clock } from '../common/index.js';
import type { ResolvedJob } from '../config/index.js';
import type { MakeJobOverrides } from '../config/testing.js';
import { createRunner } from './create-runner.js';
import { recordingLogger, type LoggedLine } from '../logging/testing.js';
import { fixture, isProcessAlive, makeJob, NODE, TextSink } from './test-job-fixture.js';
import { OUTPUT_DRAIN_MS } from './child-run.js';
import type { RunHandle } from './types.js';

interface Started {
  readonly handle: RunHandle;
  readonly logs: readonly LoggedLine[];
  /** Resolves with the first captured stdout line that matches. */
  line(pattern: RegExp): Promise<string>;
}

function start(clock: Clock, job: ResolvedJob): Started {
  const logger = recordingLogger();
  const runner = createRunner({
    spawner: currentSpawner(),
    clock,
    logger,
    stdout: new TextSink(),
    stderr: new TextSink(),
    baseEnv: process.env,
  });
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  const seen: string[] = [];
  const handle = runner.start({
    job,
    onOutput: ({ line }) => {
      seen.push(line);
      for (const waiter of [...waiters]) {
        if (waiter.pattern.test(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    },
  });
  return {
    handle,
    logs: logger.lines,
    line(pattern) {
      const already = seen.find((line) => pattern.test(line));
      if (already !== undefined) return Promise.resolve(already);
      const deferred = createDeferred<string>();
      waiters.push({ pattern, resolve: (line) => deferred.resolve(line) });
      return deferred.promise;
    },
  };
}

const node = (script: string): ResolvedJob['command'] => ({
  kind: 'argv',
  argv: [NODE, fixture(script)],
});

const LEVEL = { info: 'info', warn: 'warn' } as const;

function messages(logs: readonly LoggedLine[], level: LoggedLine['level']): string[] {
  return logs.filter((line) => line.level === level).map((line) => line.message);
}

describeForEachSpawnPath('timeouts and cancels', () => {
  test('executionTimeout terminates the run with SIGTERM and exit code -100', async () => {
    const clock = new FakeClock();
    const run = start(
      clock,
      makeJob({
        name: 'slow',
        command: node('forever.js'),
        captureStdout: true,
        executionTimeoutMs: 5000,
        killTimeoutMs: 1000,
      }),
    );
    await run.line(/^\d+\n$/);
    await clock.advance(4999);
    assert.equal(isProcessAlive(run.handle.pid!), true, 'not before the deadline');
    await clock.advance(1);
    const outcome = await run.handle.done;
    assert.equal(outcome.kind, 'timed-out');
    assert.equal(outcome.exitCode, -100);
    assert.equal(outcome.failReason, 'failsWhen=nonzeroReturn and retcode=-100');
    assert.equal(outcome.cancelReason, null);
    assert.deepEqual(messages(run.logs, LEVEL.info), [
      'Job slow exceeded its executionTimeout of 5.0 seconds, cancelling it...',
    ]);
    assert.deepEqual(messages(run.logs, LEVEL.warn), []);
    assert.equal(clock.pendingTimers, 0, 'the kill grace timer is cancelled once the child exits');
  });

  test('executionTimeout escalates to SIGKILL after killTimeout and keeps exit code -100', async () => {
    const clock = new FakeClock();
    const run = start(
      clock,
      makeJob({
        name: 'stubborn',
        command: node('ignore-term.js'),
        captureStdout: true,
        executionTimeoutMs: 2000,
        killTimeoutMs: 1500,
      }),
    );
    await run.line(/^ready/);
    await clock.advance(2000);
    await run.line(/got SIGTERM/);
    await clock.advance(1500);
    const outcome = await run.handle.done;
    assert.equal(outcome.kind, 'timed-out');
    assert.equal(outcome.exitCode, -100);
    assert.deepEqual(messages(run.logs, LEVEL.warn), [
      'Job stubborn did not gracefully terminate after 1.5 seconds, killing it...',
    ]);
  });

  test('a run that exits before its executionTimeout leaves no timer behind', async () => {
    const clock = new FakeClock();
    const run = start(clock, makeJob({ executionTimeoutMs: 60_000 }));
    const outcome = await run.handle.done;
    assert.equal(outcome.kind, 'succeeded');
    assert.equal(clock.pendingTimers, 0);
  });

  test('cancel() of a child that ignores SIGTERM escalates to SIGKILL after killTimeout', async () => {
    const clock = new FakeClock();
    const run = start(
      clock,
      makeJob({
        name: 'stubborn',
        command: node('ignore-term.js'),
        captureStdout: true,
        killTimeoutMs: 1000,
      }),
    );
    await run.line(/^ready/);
    let cancelled = false;
    const cancelling = run.handle.cancel('cancelled').then(() => (cancelled = true));
    await run.line(/got SIGTERM/);
    await clock.advance(999);
    assert.equal(cancelled, false, 'still within the grace period');
    await clock.advance(1);
    await cancelling;
    const outcome = await run.handle.done;
    assert.equal(outcome.kind, 'killed');
    assert.equal(outcome.exitCode, -9);
    assert.equal(outcome.cancelReason, 'cancelled');
    assert.deepEqual(messages(run.logs, LEVEL.warn), [
      'Job stubborn did not gracefully terminate after 1.0 seconds, killing it...',
    ]);
  });

  test('cancel() is idempotent and the first reason sticks', async () => {
    const clock = new FakeClock();
    const run = start(clock, makeJob({ command: node('forever.js'), captureStdout: true }));
    await run.line(/^\d+\n$/);
    const first = run.handle.cancel('replaced');
    const second = run.handle.cancel('shutdown');
    await Promise.all([first, second]);
    const outcome = await run.handle.done;
    assert.equal(outcome.kind, 'killed');
    assert.equal(outcome.exitCode, -15);
    assert.equal(outcome.cancelReason, 'replaced');
    assert.equal(outcome.failReason, 'failsWhen=nonzeroReturn and retcode=-15');
    await run.handle.cancel('cancelled'); // after completion: resolves, changes nothing
    assert.deepEqual(messages(run.logs, LEVEL.warn), []);
  });

  test('cancel() with killTimeout 0 kills at once', async () => {
    const clock = new FakeClock();
    const run = start(
      clock,
      makeJob({ command: node('ignore-term.js'), captureStdout: true, killTimeoutMs: 0 }),
    );
    await run.line(/^ready/);
    const cancelling = run.handle.cancel('shutdown');
    await clock.advance(0);
    await cancelling;
    assert.equal((await run.handle.done).exitCode, -9);
  });

  async function withPidFile<T>(body: (pidFile: string) => Promise<T>): Promise<T> {
    const dir = await mkdtemp(join(tmpdir(), 'yacron2-runner-'));
    try {
      return await body(join(dir, 'grandchild.pid'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  test('executionTimeout kills the whole process tree, grandchildren included', async () => {
    await withPidFile(async (pidFile) => {
      const clock = new FakeClock();
      const run = start(
        clock,
        makeJob({
          command: { kind: 'argv', argv: [fixture('spawn-grandchild.sh'), pidFile] },
          captureStdout: true,
          executionTimeoutMs: 1000,
          killTimeoutMs: 1000,
        }),
      );
      await run.line(/^ready/);
      const grandchild = Number(await readFile(pidFile, 'utf8'));
      assert.equal(isProcessAlive(grandchild), true);
      await clock.advance(1000);
      // The grandchild holds the captured stdout, so completion itself proves it is gone.
      const outcome = await run.handle.done;
      assert.equal(outcome.exitCode, -100);
      assert.equal(isProcessAlive(grandchild), false);
    });
  });

  test('cancel() kills the whole process tree on the real clock', async () => {
    await withPidFile(async (pidFile) => {
      const run = start(
        systemClock,
        makeJob({
          command: { kind: 'argv', argv: [fixture('spawn-grandchild.sh'), pidFile] },
          captureStdout: true,
          killTimeoutMs: 200,
        }),
      );
      await run.line(/^ready/);
      const grandchild = Number(await readFile(pidFile, 'utf8'));
      await run.handle.cancel('cancelled');
      const outcome = await run.handle.done;
      assert.equal(outcome.kind, 'killed');
      assert.equal(outcome.exitCode, -15);
      assert.equal(isProcessAlive(grandchild), false);
    });
  });

  test('cancel() also kills a grandchild that outlives the direct child and holds the pipe', async () => {
    await withPidFile(async (pidFile) => {
      const run = start(
        systemClock,
        makeJob({
          command: {
            kind: 'shell',
            script: `sleep 300 & echo $! > "${pidFile}.tmp" && mv "${pidFile}.tmp" "${pidFile}"; echo ready`,
          },
          captureStdout: true,
          killTimeoutMs: 200,
        }),
      );
      await run.line(/^ready/);
      const grandchild = Number(await readFile(pidFile, 'utf8'));
      await run.handle.cancel('cancelled');
      const outcome = await run.handle.done;
      assert.equal(isProcessAlive(grandchild), false);
      assert.equal(outcome.stdout?.text, 'ready\n');
    });
  });

  test('an executionTimeout beyond Node timer range (25 days) does not fire at spawn on the real clock', async () => {
    // 2,200,000 s: Node clamps such a setTimeout to 1 ms, which killed runs as they started.
    const run = start(systemClock, makeJob({ executionTimeoutMs: 2_200_000_000 }));
    const outcome = await run.handle.done;
    assert.equal(outcome.kind, 'succeeded');
    assert.equal(outcome.exitCode, 0);
    assert.deepEqual(messages(run.logs, LEVEL.info), []);
  });

  /** `sleep 300 &` that keeps the captured stdout open after the shell itself exits. */
  function backgroundSleeper(pidFile: string, escape: boolean): ResolvedJob['command'] {
    if (!escape) {
      return {
        kind: 'shell',
        script: `sleep 300 & echo $! > "${pidFile}.tmp" && mv "${pidFile}.tmp" "${pidFile}"; echo started`,
      };
    }
    // The sleeper leaves the process group (setsid) and only then writes its pid and wakes the
    // shell through a fifo, so the shell exits only after the escape is complete: SIGKILL to the
    // group can never catch the child before it left.
    return {
      kind: 'shell',
      script:
        `mkfifo "${pidFile}.left" && { setsid sh -c 'echo $$ > "$0.tmp" && mv "$0.tmp" "$0"; ` +
        `echo > "$0.left"; exec sleep 300' "${pidFile}" & } && read -r _ < "${pidFile}.left"; echo started`,
    };
  }

  /**
   * Starts a job whose shell leaves a `sleep 300` holding its stdout, and waits until the shell has
   * exited (the drain timer is then armed); returns the run and the sleep's pid.
   */
  async function startWithBackgroundChild(
    clock: FakeClock,
    pidFile: string,
    overrides: MakeJobOverrides = {},
    escape = false,
  ): Promise<{ run: Started; childPid: number }> {
    const run = start(
      clock,
      makeJob({
        name: 'bg',
        command: backgroundSleeper(pidFile, escape),
        captureStdout: true,
        ...overrides,
      }),
    );
    // An executionTimeout is armed inside start(): the next timer is the drain's.
    assert.equal(await clock.nextTimer(), OUTPUT_DRAIN_MS, 'the shell exited');
    // The shell's line is read before the tests move the fake clock past the drain bounds: real
    // I/O does not wait for fake time. (The native helper may report the exit before it reports
    // that the pipe has output; advancing at once closed the pipes with the line unread — the
    // once-in-four loss seen on Node 26.)
    await run.line(/^started/);
    return { run, childPid: Number(await readFile(pidFile, 'utf8')) };
  }

  test(
    'executionTimeout stays armed after the command exits while a background child holds its output',
    { timeout: 20_000 },
    async () => {
      await withPidFile(async (pidFile) => {
        const clock = new FakeClock();
        const { run, childPid } = await startWithBackgroundChild(clock, pidFile, {
          executionTimeoutMs: 2000,
        });
        await clock.advance(2000);
        const outcome = await run.handle.done;
        assert.equal(outcome.kind, 'timed-out');
        assert.equal(outcome.exitCode, -100);
        assert.equal(outcome.stdout?.text, 'started\n');
        assert.equal(isProcessAlive(childPid), false);
        assert.deepEqual(messages(run.logs, LEVEL.info), [
          'Job bg exceeded its executionTimeout of 2.0 seconds, cancelling it...',
        ]);
        assert.equal(clock.pendingTimers, 0);
      });
    },
  );

  test(
    'without a timeout, a background child holding the output open is killed after the drain bound',
    { timeout: 20_000 },
    async () => {
      await withPidFile(async (pidFile) => {
        const clock = new FakeClock();
        const { run, childPid } = await startWithBackgroundChild(clock, pidFile);
        await clock.advance(OUTPUT_DRAIN_MS - 1);
        assert.equal(isProcessAlive(childPid), true, 'not before the bound');
        await clock.advance(1);
        const outcome = await run.handle.done;
        assert.equal(outcome.kind, 'succeeded');
        assert.equal(outcome.exitCode, 0);
        assert.equal(outcome.stdout?.text, 'started\n');
        assert.equal(isProcessAlive(childPid), false);
        assert.deepEqual(messages(run.logs, LEVEL.warn), [
          'Job bg: its command exited but a background process still holds its output open after 5.0 seconds; killing its process group',
        ]);
        assert.equal(clock.pendingTimers, 0);
      });
    },
  );

  test(
    'a process that left the group and holds the output open cannot keep the run open for ever',
    { timeout: 20_000 },
    async () => {
      await withPidFile(async (pidFile) => {
        const clock = new FakeClock();
        const { run, childPid } = await startWithBackgroundChild(clock, pidFile, {}, true);
        try {
          const pipesClosing = clock.nextTimer();
          await clock.advance(OUTPUT_DRAIN_MS);
          await pipesClosing;
          assert.equal(isProcessAlive(childPid), true, 'SIGKILL to the group cannot reach it');
          await clock.advance(OUTPUT_DRAIN_MS);
          const outcome = await run.handle.done;
          assert.equal(outcome.exitCode, 0);
          assert.equal(outcome.stdout?.text, 'started\n');
          assert.equal(messages(run.logs, LEVEL.warn).length, 2);
        } finally {
          process.kill(childPid, 'SIGKILL');
        }
      });
    },
  );
});
