// The spawn helper itself, against real processes: runs are its children, a dead helper is
// restarted without losing or repeating a run, a launch it never confirmed is not retried, a
// cancel that comes before the pid still kills the run, and the daemon's switch and fallback.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync, spawn, type SpawnOptions } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { once } from 'node:events';
import type { Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeferred, flushMicrotasks, systemClock } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import { recordingLogger } from '../logging/testing.js';
import { createRunner } from './create-runner.js';
import { isPidGone } from './process-group.js';
import {
  HelperChild,
  MAX_LAUNCHES_PER_MESSAGE,
  nodeHelperProgram,
  SpawnHelper,
} from './spawn-helper.js';
import { within } from '../state/testing.js';
import { SPAWN_HELPER_ENV, startSpawner } from './spawn-path.js';
import { helperProgram, HELPER_KINDS, startTestHelper } from './test-spawn-paths.js';
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

/** Resolves once `pid` is in the stopped state (T), checking once per loop turn, at most 5 s. */
async function untilStopped(pid: number): Promise<void> {
  const deadline = systemClock.monotonic() + 5_000;
  for (;;) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('T')) return;
    if (systemClock.monotonic() > deadline) throw new Error(`process ${pid} did not stop: ${stat}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function withTempDir<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'yacron2-helper-'));
  try {
    return await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

for (const kind of HELPER_KINDS) {
  void test(`a run started through the helper is the helper’s child, in its own session [${kind} helper]`, async () => {
    const helper = await startTestHelper(kind);
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

  void test(`launches made in one synchronous stretch (several messages’ worth) each run once, with their own environment, output and exit code [${kind} helper]`, async () => {
    const helper = await startTestHelper(kind);
    try {
      const runner = runnerOn(helper);
      const count = MAX_LAUNCHES_PER_MESSAGE * 2 + 3;
      const handles = Array.from({ length: count }, (_, index) =>
        runner.start({
          job: makeJob({
            command: { kind: 'shell', script: 'echo "$RUN_INDEX $PPID"; exit $((RUN_INDEX % 7))' },
            environment: [{ key: 'RUN_INDEX', value: String(index) }],
            captureStdout: true,
          }),
        }),
      );
      const outcomes = await Promise.all(handles.map((handle) => handle.done));
      outcomes.forEach((outcome, index) => {
        assert.equal(outcome.stdout?.text, `${index} ${helper.pid}\n`);
        assert.equal(outcome.exitCode, index % 7);
      });
      assert.equal(new Set(outcomes.map((outcome) => outcome.pid)).size, count);
    } finally {
      await helper.close();
    }
  });

  void test(`a killed helper is restarted; its running run keeps its output and is seen to end, nothing runs twice [${kind} helper]`, async () => {
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
        programs: [helperProgram(kind)],
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
              // stderr gets nothing until the helper is gone (the native helper holds it unread).
              script: `echo first >> ${counter}; echo ready; read word < ${fifo}; echo "after $word"; echo "late $word" >&2`,
            },
            captureStdout: true,
            captureStderr: true,
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
        // The native helper handed both pipes over with the launch (stdout's output was announced
        // after them); the Node helper hands them over one at a time, each after the last one's
        // ACK, so killed this early its stderr may not have been handed over yet.
        if (kind === 'native') {
          assert.equal(outcome.stderr?.text, 'late go\n', 'a held pipe, silent until then too');
        }
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

  void test(`a launch the helper never confirmed fails as a spawn failure and is not retried [${kind} helper]`, async () => {
    await withTempDir(async (dir) => {
      const counter = join(dir, 'starts');
      const helperExited = createDeferred<void>();
      const helper = await SpawnHelper.start({
        clock: systemClock,
        logger: silentLogger(),
        env: process.env,
        programs: [helperProgram(kind)],
        onHelperExit: () => helperExited.resolve(),
      });
      assert.ok(helper);
      try {
        // Stopped, the helper cannot read the launch; killed, it never will. The stop is awaited
        // (a signal takes effect when the target is next scheduled), and so is the send: it
        // happens in a microtask after start(), and a send that comes after the kill fails, which
        // rightly starts the run in-process instead (the other case, tested elsewhere).
        process.kill(helper.pid!, 'SIGSTOP');
        await untilStopped(helper.pid!);
        const run = runnerOn(helper).start({
          job: makeJob({ command: { kind: 'shell', script: `echo ran >> ${counter}` } }),
        });
        await flushMicrotasks();
        process.kill(helper.pid!, 'SIGKILL');
        const outcome = await run.done;
        assert.equal(outcome.kind, 'spawn-failed');
        assert.equal(outcome.exitCode, 127);
        assert.match(outcome.spawnError ?? '', /spawn helper died before confirming the launch/);
        await helperExited.promise;
        assert.equal(await helper.ready(), true);
        await assert.rejects(
          readFile(counter, 'utf8'),
          { code: 'ENOENT' },
          'the command never ran',
        );
      } finally {
        await helper.close();
      }
    });
  });

  void test(`a cancel that comes before the helper confirmed the pid still kills the run [${kind} helper]`, async () => {
    const helper = await startTestHelper(kind);
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
}

void test('a helper program that does not start leaves the caller on the in-process path, not restarted', async () => {
  const exits: string[] = [];
  const helper = SpawnHelper.launch({
    clock: systemClock,
    logger: silentLogger(),
    env: process.env,
    programs: [nodeHelperProgram(fixture('exit-with.js'))], // exits 0 at once, never ready
    onHelperExit: () => exits.push('exit'),
  });
  assert.equal(await helper.ready(), false);
  assert.equal(helper.usable, false);
  assert.equal(helper.pid, undefined, 'no helper was forked again');
  assert.deepEqual(exits, ['exit']);
  const outcome = await runnerOn(helper).start({
    job: makeJob({ command: { kind: 'shell', script: 'echo $PPID' }, captureStdout: true }),
  }).done;
  assert.equal(outcome.stdout?.text, `${process.pid}\n`, 'started in-process');
  assert.equal(
    await SpawnHelper.start({
      clock: systemClock,
      logger: silentLogger(),
      env: process.env,
      programs: [nodeHelperProgram(fixture('exit-with.js'))],
    }),
    null,
  );
});

void test('launches before the helper is ready take the in-process path, failures included', async () => {
  const helper = SpawnHelper.launch({
    clock: systemClock,
    logger: silentLogger(),
    env: process.env,
  });
  try {
    assert.equal(helper.usable, false, 'not ready yet');
    const runner = runnerOn(helper);
    const ran = runner.start({
      job: makeJob({ command: { kind: 'shell', script: 'echo $PPID' }, captureStdout: true }),
    });
    assert.notEqual(ran.pid, undefined, 'the pid is known at once in-process');
    const failed = runner.start({
      job: makeJob({ command: { kind: 'argv', argv: ['/nonexistent/program'] } }),
    });
    assert.equal((await ran.done).stdout?.text, `${process.pid}\n`);
    const outcome = await failed.done;
    assert.equal(outcome.kind, 'spawn-failed');
    assert.match(outcome.spawnError ?? '', /ENOENT/);
    assert.equal(await helper.ready(), true);
    assert.equal(helper.usable, true);
  } finally {
    await helper.close();
  }
});

void test(`the native helper is the default; ${SPAWN_HELPER_ENV}=node picks the Node one, =0 starts jobs in-process`, async () => {
  const logger = recordingLogger();
  const off = startSpawner({ clock: systemClock, logger, env: { [SPAWN_HELPER_ENV]: '0' } });
  assert.equal(off.spawner.kind, 'in-process');
  assert.ok(logger.lines.some((line) => /started by the daemon itself/.test(line.message)));
  await off.close();
  for (const [value, kind] of [
    [undefined, 'native'],
    ['node', 'node'],
    ['native', 'native'],
  ] as const) {
    const env = { ...process.env, [SPAWN_HELPER_ENV]: value };
    const on = startSpawner({ clock: systemClock, logger, env });
    try {
      assert.equal(on.spawner.kind, 'helper');
      assert.equal(await (on.spawner as SpawnHelper).ready(), true);
      assert.equal((on.spawner as SpawnHelper).program, kind, `${String(value)} → ${kind}`);
      await flushMicrotasks();
      const said = new RegExp(
        `started by the ${kind} spawn helper \\(pid ${String((on.spawner as SpawnHelper).pid)}\\)`,
      );
      assert.ok(
        logger.lines.some((line) => said.test(line.message)),
        said.source,
      );
    } finally {
      await on.close();
    }
  }
});

void test('a native helper that cannot run (missing, or not a program) gives way to the Node one', async () => {
  await withTempDir(async (dir) => {
    const notAProgram = join(dir, 'yacron2-spawn-helper');
    await writeFile(notAProgram, 'not an executable\n', { mode: 0o600 });
    for (const path of [join(dir, 'missing'), notAProgram]) {
      const helper = await SpawnHelper.start({
        clock: systemClock,
        logger: silentLogger(),
        env: process.env,
        programs: [{ kind: 'native', path }, helperProgram('node')],
      });
      assert.ok(helper, path);
      try {
        assert.equal(helper.program, 'node');
        const outcome = await runnerOn(helper).start({
          job: makeJob({ command: { kind: 'shell', script: 'echo $PPID' }, captureStdout: true }),
        }).done;
        assert.equal(outcome.stdout?.text, `${String(helper.pid)}\n`, 'started by the Node helper');
      } finally {
        await helper.close();
      }
    }
  });
});

void test('a helper that never gets ready leaves one warning line', async () => {
  const logger = recordingLogger();
  const spawner = startSpawner({
    clock: systemClock,
    logger,
    env: { ...process.env, [SPAWN_HELPER_ENV]: '1' },
    programs: [nodeHelperProgram(fixture('exit-with.js'))],
  });
  assert.equal(await (spawner.spawner as SpawnHelper).ready(), false);
  await flushMicrotasks();
  assert.deepEqual(
    logger.lines.filter((line) => line.level === 'warn').map((line) => line.message),
    ['The spawn helper could not start: jobs are started by the daemon itself'],
  );
  await spawner.close();
});

void test('a run whose helper died after one pipe closed and before the other was handed over still closes', async () => {
  // A process that has ended: the orphan check finds it gone at once.
  const gone = spawn('true');
  await once(gone, 'exit');
  const child = new HelperChild(
    true,
    true,
    { clock: systemClock, logger: silentLogger(), env: {} },
    { forget: () => {}, giveUp: () => {} },
  );
  const closed = once(child, 'close');
  child.spawned(gone.pid!);
  const stdout = new PassThrough();
  child.pipe('stdout', stdout as unknown as Socket);
  stdout.destroy(); // its 'close' comes before the helper's death
  await once(stdout, 'close');
  child.readHeld();
  child.helperDied(); // stderr was never handed over: lost with the helper
  assert.deepEqual(await within(closed, 5_000, 'the run closed'), [null, null]);
});

/** A launch sent to the helper itself (never the in-process fallback: the helper is ready). */
function launchOn(
  helper: SpawnHelper,
  file: string,
  args: readonly string[],
  options: SpawnOptions,
): HelperChild {
  const child = helper.spawn(file, args, options);
  assert.ok(child instanceof HelperChild, 'launched through the helper');
  return child;
}

for (const kind of HELPER_KINDS) {
  void test(`a run the daemon gives up (closeOutput) is forgotten by the helper, which holds none of its pipes after [${kind} helper]`, async () => {
    const helper = await startTestHelper(kind);
    let background: number | undefined;
    try {
      await withTempDir(async (dir) => {
        const pidFile = join(dir, 'background.pid');
        const options = { env: process.env, detached: true } as const;
        const child = launchOn(helper, '/bin/sh', ['-c', `sleep 60 & echo $! > "${pidFile}"`], {
          ...options,
          stdio: ['inherit', 'pipe', 'pipe'],
        });
        const closed = once(child, 'close');
        await within(once(child, 'exit'), 5_000, 'the command exited');
        background = Number(await readFile(pidFile, 'utf8'));
        // A launch answered after every earlier message was handled (the channel keeps the order).
        const roundTrip = async (): Promise<void> => {
          const next = launchOn(helper, '/bin/true', [], { ...options, stdio: 'inherit' });
          await within(once(next, 'exit'), 5_000, 'the next launch exited');
        };
        await roundTrip();
        const fds = (): number => readdirSync(`/proc/${helper.pid}/fd`).length;
        const holding = fds();
        child.closeOutput();
        await within(closed, 5_000, 'the given-up run closed');
        await roundTrip();
        // The native helper watched both held pipes: their copies are closed now. The Node helper
        // held none (its pipes went to the daemon whole): it took the message and serves on.
        assert.equal(fds(), kind === 'native' ? holding - 2 : holding);
      });
    } finally {
      if (background !== undefined && !isPidGone(background)) process.kill(background, 'SIGKILL');
      await helper.close();
    }
  });
}

for (const kind of HELPER_KINDS) {
  void test(`the helper refuses a uid or gid outside 0..4294967294 sent to it, and nothing runs [${kind} helper]`, async () => {
    const helper = await startTestHelper(kind);
    try {
      for (const ids of [{ uid: 4_294_967_296 }, { gid: 4_294_967_295 }]) {
        const child = launchOn(helper, '/bin/sh', ['-c', 'echo ran'], {
          env: process.env,
          detached: true,
          stdio: ['inherit', 'pipe', 'inherit'],
          ...ids,
        });
        const [error] = (await within(once(child, 'error'), 5_000, 'the refusal')) as [
          NodeJS.ErrnoException,
        ];
        const [key, value] = Object.entries(ids)[0]!;
        assert.equal(
          error.message,
          `spawn /bin/sh EINVAL: ${key} ${value} is outside 0..4294967294: refused`,
        );
        assert.equal(error.code, 'EINVAL');
        assert.equal(child.pid, undefined, 'nothing was started');
      }
    } finally {
      await helper.close();
    }
  });
}
