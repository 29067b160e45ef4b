// createRunner() against real child processes: exit codes, spawn failures, environment, argv,
// output capture and the failsWhen decision.
import { test } from 'node:test';
import { currentSpawner, describeForEachSpawnPath } from './test-spawn-paths.js';
import * as assert from 'node:assert/strict';
import { systemClock } from '../common/index.js';
import type { ResolvedJob } from '../config/index.js';
import { createRunner } from './create-runner.js';
import { recordingLogger, type LoggedLine } from '../logging/testing.js';
import { fixture, makeJob, NODE, TextSink } from './test-job-fixture.js';
import type { OutputLine, RunOutcome, RunRequest } from './types.js';

interface Harness {
  readonly logs: readonly LoggedLine[];
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  run(job: ResolvedJob, request?: Omit<RunRequest, 'job'>): Promise<RunOutcome>;
}

function harness(baseEnv: NodeJS.ProcessEnv = process.env): Harness {
  const logger = recordingLogger();
  const stdout = new TextSink();
  const stderr = new TextSink();
  const runner = createRunner({
    spawner: currentSpawner(),
    clock: systemClock,
    logger,
    stdout,
    stderr,
    baseEnv,
  });
  return {
    logs: logger.lines,
    stdout,
    stderr,
    run: (job, request = {}) => runner.start({ job, ...request }).done,
  };
}

/**
 * While coverage is collected (`npm run coverage`), Node adds NODE_V8_COVERAGE to the env object
 * a spawn is given, so the child reports its coverage too: leave it out of env comparisons.
 */
function withoutCoverageVar(
  environment: Readonly<Record<string, string>> | null,
): Record<string, string> | null {
  if (environment === null) return null;
  const { NODE_V8_COVERAGE: _coverage, ...rest } = environment;
  return rest;
}

const exitWith = (...args: string[]): ResolvedJob['command'] => ({
  kind: 'argv',
  argv: [NODE, fixture('exit-with.js'), ...args],
});

describeForEachSpawnPath('the runner', () => {
  test('a run that exits 0 without output succeeds', async () => {
    const h = harness();
    const outcome = await h.run(makeJob());
    assert.equal(outcome.kind, 'succeeded');
    assert.equal(outcome.exitCode, 0);
    assert.equal(outcome.failReason, null);
    assert.equal(outcome.cancelReason, null);
    assert.equal(outcome.spawnError, null);
    assert.equal(typeof outcome.pid, 'number');
    assert.equal(outcome.stdout, null, 'stdout is not captured by default');
    assert.deepEqual(outcome.stderr, { text: '', discardedLines: 0, truncated: false });
    assert.ok(outcome.finishedAtMs >= outcome.startedAtMs);
    assert.ok(outcome.durationMs >= 0);
  });

  test('a non-zero exit status fails with the nonzeroReturn reason', async () => {
    const outcome = await harness().run(makeJob({ command: exitWith('3') }));
    assert.equal(outcome.kind, 'failed');
    assert.equal(outcome.exitCode, 3);
    assert.equal(outcome.failReason, 'failsWhen=nonzeroReturn and retcode=3');
  });

  test('a death by signal N is exit code -N', async () => {
    const h = harness();
    const term = await h.run(makeJob({ command: exitWith('0', '--signal', 'SIGTERM') }));
    assert.equal(term.exitCode, -15);
    assert.equal(term.failReason, 'failsWhen=nonzeroReturn and retcode=-15');
    const kill = await h.run(makeJob({ command: exitWith('0', '--signal', 'SIGKILL') }));
    assert.equal(kill.exitCode, -9);
    assert.equal(kill.kind, 'failed');
  });

  test('a missing executable is a spawn failure with exit code 127, logged', async () => {
    const h = harness();
    const outcome = await h.run(
      makeJob({ name: 'ghost', command: { kind: 'argv', argv: ['/nonexistent/program', 'x'] } }),
    );
    assert.equal(outcome.kind, 'spawn-failed');
    assert.equal(outcome.exitCode, 127);
    assert.equal(outcome.pid, null);
    assert.match(outcome.spawnError ?? '', /ENOENT/);
    assert.equal(outcome.failReason, 'failsWhen=nonzeroReturn and retcode=127');
    assert.deepEqual(outcome.stderr, { text: '', discardedLines: 0, truncated: false });
    const logged = h.logs.find((line) => line.level === 'error');
    assert.match(logged?.message ?? '', /^Cannot start job ghost: .*ENOENT/);
  });

  test('a non-executable file is a spawn failure (EACCES)', async () => {
    const outcome = await harness().run(
      makeJob({ command: { kind: 'argv', argv: [fixture('many-lines.js')] } }),
    );
    assert.equal(outcome.kind, 'spawn-failed');
    assert.match(outcome.spawnError ?? '', /EACCES/);
  });

  test('an argv that spawn() rejects synchronously is a spawn failure, not a throw', async () => {
    const h = harness();
    const handle = createRunner({
      spawner: currentSpawner(),
      clock: systemClock,
      logger: recordingLogger(),
      stdout: h.stdout,
      stderr: h.stderr,
      baseEnv: process.env,
    }).start({ job: makeJob({ command: { kind: 'argv', argv: ['echo', 'nul\0byte'] } }) });
    assert.equal(handle.pid, undefined);
    const outcome = await handle.done;
    assert.equal(outcome.kind, 'spawn-failed');
    assert.equal(outcome.exitCode, 127);
    await handle.cancel('cancelled'); // a cancel of a run that never started resolves at once
  });

  test('a missing shell is a spawn failure', async () => {
    const outcome = await harness().run(
      makeJob({ command: { kind: 'shell', script: 'true' }, shell: '/nonexistent/sh' }),
    );
    assert.equal(outcome.kind, 'spawn-failed');
    assert.equal(outcome.exitCode, 127);
  });

  test('a list command is exec`d verbatim: no shell, no expansion', async () => {
    const outcome = await harness().run(
      makeJob({
        command: { kind: 'argv', argv: ['/bin/echo', '$HOME', '*'] },
        captureStdout: true,
      }),
    );
    assert.equal(outcome.stdout?.text, '$HOME *\n');
  });

  test('a string command runs as [shell, -c, script]; an empty shell means /bin/sh', async () => {
    const h = harness();
    const script = { kind: 'shell', script: 'echo "$0" $((1 + 2))' } as const;
    const bash = await h.run(makeJob({ command: script, shell: '/bin/bash', captureStdout: true }));
    assert.equal(bash.stdout?.text, '/bin/bash 3\n');
    const dflt = await h.run(makeJob({ command: script, shell: '', captureStdout: true }));
    assert.equal(dflt.stdout?.text, '/bin/sh 3\n');
  });

  test('each run leads its own process group', async () => {
    const outcome = await harness().run(
      makeJob({
        command: { kind: 'shell', script: 'cut -d" " -f5 /proc/$$/stat' },
        captureStdout: true,
      }),
    );
    assert.equal(outcome.stdout?.text, `${outcome.pid}\n`);
  });

  test('without job variables the child inherits the daemon env as-is and environment is null', async () => {
    const h = harness({ PATH: process.env['PATH'], ONLY_IN_DAEMON: 'yes' });
    const outcome = await h.run(
      makeJob({
        command: { kind: 'argv', argv: [NODE, fixture('print-env.js'), 'ONLY_IN_DAEMON'] },
        captureStdout: true,
      }),
    );
    assert.equal(outcome.environment, null);
    assert.deepEqual(JSON.parse(outcome.stdout?.text ?? ''), { ONLY_IN_DAEMON: 'yes' });
  });

  test('the child env is daemon env < job environment < injected variables', async () => {
    const h = harness({ PATH: process.env['PATH'], A: 'daemon', B: 'daemon', C: 'daemon' });
    const outcome = await h.run(
      makeJob({
        command: { kind: 'argv', argv: [NODE, fixture('print-env.js'), 'A', 'B', 'C', 'D'] },
        hasEnvironment: true,
        environment: [
          { key: 'A', value: 'job' },
          { key: 'B', value: 'job' },
          { key: 'D', value: 'job' },
        ],
        captureStdout: true,
      }),
      { extraEnv: { B: 'injected' } },
    );
    const expected = { A: 'job', B: 'injected', C: 'daemon', D: 'job' };
    assert.deepEqual(JSON.parse(outcome.stdout?.text ?? ''), expected);
    assert.deepEqual(withoutCoverageVar(outcome.environment), {
      PATH: process.env['PATH'],
      ...expected,
    });
  });

  test('injected variables alone also build an environment', async () => {
    const outcome = await harness({ PATH: process.env['PATH'] }).run(
      makeJob({
        command: { kind: 'argv', argv: [NODE, fixture('print-env.js'), 'YACRON2_RUN_ID'] },
      }),
      { extraEnv: { YACRON2_RUN_ID: 'r1' } },
    );
    assert.deepEqual(withoutCoverageVar(outcome.environment), {
      PATH: process.env['PATH'],
      YACRON2_RUN_ID: 'r1',
    });
  });

  test('captured lines are echoed with the prefix to the same daemon stream and published', async () => {
    const h = harness();
    const lines: OutputLine[] = [];
    const outcome = await h.run(
      makeJob({
        name: 'echo',
        command: exitWith('0', '--stdout', 'out 1\nout 2\n', '--stderr', 'err 1\npartial'),
        captureStdout: true,
        failsWhen: {
          producesStdout: false,
          producesStderr: false,
          nonzeroReturn: true,
          always: false,
        },
      }),
      { onOutput: (line) => lines.push(line) },
    );
    assert.equal(outcome.kind, 'succeeded');
    assert.equal(h.stdout.text, '[echo stdout] out 1\n[echo stdout] out 2\n');
    assert.equal(h.stderr.text, '[echo stderr] err 1\n[echo stderr] partial');
    assert.deepEqual(
      lines.filter((l) => l.stream === 'stdout').map((l) => l.line),
      ['out 1\n', 'out 2\n'],
    );
    assert.deepEqual(
      lines.filter((l) => l.stream === 'stderr').map((l) => l.line),
      ['err 1\n', 'partial'],
    );
    assert.equal(outcome.stdout?.text, 'out 1\nout 2\n');
    assert.equal(outcome.stderr?.text, 'err 1\npartial');
  });

  test('scrubLine applies to every line before the echo, the listener and the retained text', async () => {
    const h = harness();
    const lines: string[] = [];
    const outcome = await h.run(
      makeJob({
        name: 'leak',
        command: exitWith('0', '--stdout', 'tok=SECRET\nclean\n', '--stderr', 'SECRET'),
        captureStdout: true,
        captureStderr: true,
        failsWhen: {
          producesStdout: false,
          producesStderr: false,
          nonzeroReturn: true,
          always: false,
        },
      }),
      {
        onOutput: (line) => lines.push(line.line),
        scrubLine: (line) => line.replaceAll('SECRET', '[REDACTED]'),
      },
    );
    assert.equal(h.stdout.text, '[leak stdout] tok=[REDACTED]\n[leak stdout] clean\n');
    assert.equal(h.stderr.text, '[leak stderr] [REDACTED]');
    assert.deepEqual(lines.sort(), ['[REDACTED]', 'clean\n', 'tok=[REDACTED]\n']);
    assert.equal(outcome.stdout?.text, 'tok=[REDACTED]\nclean\n');
    assert.equal(outcome.stderr?.text, '[REDACTED]');
  });

  test('an empty streamPrefix passes lines through untouched; braces can be escaped', async () => {
    const h = harness();
    await h.run(makeJob({ command: exitWith('0', '--stderr', 'a\nb\n'), streamPrefix: '' }));
    assert.equal(h.stderr.text, 'a\nb\n');
    const braces = harness();
    await braces.run(
      makeJob({
        name: 'j',
        command: exitWith('0', '--stderr', 'x\n'),
        streamPrefix: '{{{job_name}}} ',
      }),
    );
    assert.equal(braces.stderr.text, '{j} x\n');
  });

  test('capture retains the head and tail of a long output with the discard marker', async () => {
    const h = harness();
    const seen: string[] = [];
    const outcome = await h.run(
      makeJob({
        command: { kind: 'argv', argv: [NODE, fixture('many-lines.js'), '10', 'stdout'] },
        captureStdout: true,
        saveLimit: 4,
      }),
      { onOutput: (line) => seen.push(line.line) },
    );
    assert.deepEqual(outcome.stdout, {
      text: 'line 1\nline 2\n   [.... 6 lines discarded ...]\nline 9\nline 10\n',
      discardedLines: 6,
      truncated: true,
    });
    assert.equal(seen.length, 10, 'every line is still published');
    assert.equal(h.stdout.text.split('\n').length - 1, 10, 'every line is still echoed');
  });

  test('saveLimit 0 retains nothing but the discarded lines still count as output', async () => {
    const outcome = await harness().run(
      makeJob({
        command: { kind: 'argv', argv: [NODE, fixture('many-lines.js'), '3', 'stderr'] },
        saveLimit: 0,
      }),
    );
    assert.deepEqual(outcome.stderr, { text: '', discardedLines: 3, truncated: true });
    assert.equal(outcome.kind, 'failed');
    assert.equal(outcome.failReason, 'failsWhen=producesStderr and stderr is not empty');
  });

  test('a line longer than maxLineLength is skipped with a warning', async () => {
    const h = harness();
    const bytes = Buffer.from(`ok\n${'x'.repeat(5000)}\nend`).toString('hex');
    const outcome = await h.run(
      makeJob({
        name: 'long',
        command: { kind: 'argv', argv: [NODE, fixture('write-bytes.js'), bytes] },
        captureStdout: true,
        maxLineLength: 1000,
      }),
    );
    assert.deepEqual(outcome.stdout, { text: 'ok\nend', discardedLines: 0, truncated: true });
    assert.equal(h.stdout.text, '[long stdout] ok\n[long stdout] end');
    const warnings = h.logs.filter((line) => line.level === 'warn').map((line) => line.message);
    assert.deepEqual(warnings, ['job long: ignored a very long line']);
  });

  test('invalid UTF-8 is decoded with replacement characters', async () => {
    const outcome = await harness().run(
      makeJob({
        command: {
          kind: 'argv',
          argv: [NODE, fixture('write-bytes.js'), '61fffe62' + '0a' + 'e282'],
        },
        captureStdout: true,
      }),
    );
    assert.equal(outcome.stdout?.text, 'a\uFFFD\uFFFDb\n\uFFFD');
  });

  test('failsWhen: producesStdout fails on captured stdout, never on an uncaptured one', async () => {
    const h = harness();
    const failsWhen = {
      producesStdout: true,
      producesStderr: false,
      nonzeroReturn: true,
      always: false,
    };
    const captured = await h.run(
      makeJob({ command: exitWith('0', '--stdout', '\n'), captureStdout: true, failsWhen }),
    );
    assert.equal(captured.kind, 'failed');
    assert.equal(captured.failReason, 'failsWhen=producesStdout and stdout is not empty');
    const uncaptured = await h.run(makeJob({ command: exitWith('0'), failsWhen }));
    assert.equal(uncaptured.kind, 'succeeded');
  });

  test('failsWhen: always fails a clean run; nonzeroReturn off accepts a non-zero exit', async () => {
    const h = harness();
    const always = await h.run(
      makeJob({
        failsWhen: {
          producesStdout: false,
          producesStderr: true,
          nonzeroReturn: true,
          always: true,
        },
      }),
    );
    assert.equal(always.failReason, 'failsWhen=always');
    const lenient = await h.run(
      makeJob({
        command: exitWith('4', '--stderr', 'warn\n'),
        failsWhen: {
          producesStdout: false,
          producesStderr: false,
          nonzeroReturn: false,
          always: false,
        },
      }),
    );
    assert.equal(lenient.kind, 'succeeded');
    assert.equal(lenient.exitCode, 4);
    assert.equal(lenient.stderr?.text, 'warn\n');
  });

  test('completion waits until a background grandchild closes the captured pipe', async () => {
    const outcome = await harness().run(
      makeJob({
        command: { kind: 'shell', script: 'echo early; (sleep 0.3; echo late) &' },
        captureStdout: true,
      }),
    );
    assert.equal(outcome.stdout?.text, 'early\nlate\n');
  });

  test('onSpawn receives the pid after start() returned and before any output', async () => {
    const logger = recordingLogger();
    const runner = createRunner({
      spawner: currentSpawner(),
      clock: systemClock,
      logger,
      stdout: new TextSink(),
      stderr: new TextSink(),
      baseEnv: process.env,
    });
    const events: string[] = [];
    const handle = runner.start({
      job: makeJob({ command: exitWith('0', '--stderr', 'x\n') }),
      onSpawn: (pid) => events.push(`spawn ${pid === handle.pid}`),
      onOutput: () => events.push('output'),
    });
    await handle.done;
    assert.deepEqual(events, ['spawn true', 'output']);
  });
});
