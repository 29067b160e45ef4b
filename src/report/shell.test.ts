import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '../common/index.js';
import type { ShellReport } from '../config/index.js';
import type { RunUsageSummary } from '../resources/index.js';
import type { RunOutcome } from '../runner/index.js';
import { recordingLogger } from '../logging/testing.js';
import { fixture, makeJob, NODE, runOutcome, type LooseOutcome } from '../runner/testing.js';
import { cutToCodePoints, runShellReport, SHELL_REPORT_OUTPUT_LIMIT } from './shell.js';

function makeOutcome(overrides: Partial<LooseOutcome> = {}): RunOutcome {
  return runOutcome({
    kind: 'failed',
    exitCode: 3,
    failReason: 'failsWhen=nonzeroReturn and retcode=3',
    cancelReason: null,
    pid: 1234,
    startedAtMs: 0,
    finishedAtMs: 10,
    durationMs: 10,
    stdout: { text: 'out\n', discardedLines: 0, truncated: false },
    stderr: { text: 'err\n', discardedLines: 0, truncated: false },
    environment: null,
    spawnError: null,
    ...overrides,
  });
}

async function withTempDir<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'yacron2-shell-report-'));
  try {
    return await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const printEnvTo = (file: string): ShellReport => ({
  command: { kind: 'argv', argv: [NODE, fixture('print-env.js'), '--to', file] },
  shell: '/bin/sh',
});

async function reportedEnv(
  outcome: RunOutcome,
  options: {
    scheduleText?: string;
    baseEnv?: NodeJS.ProcessEnv;
    usage?: RunUsageSummary | null;
  } = {},
): Promise<Record<string, string>> {
  return withTempDir(async (dir) => {
    const file = join(dir, 'env.json');
    await runShellReport(
      {
        logger: recordingLogger(),
        baseEnv: options.baseEnv ?? { PATH: process.env['PATH'] },
        clock: new FakeClock(),
      },
      {
        job: makeJob({
          name: 'nightly',
          command: { kind: 'argv', argv: ['backup', '--all'] },
          hasEnvironment: true,
          environment: [{ key: 'JOB_ONLY', value: 'x' }],
        }),
        outcome,
        report: printEnvTo(file),
        scheduleText: options.scheduleText ?? '0 3 * * *',
        ...(options.usage !== undefined ? { usage: options.usage } : {}),
      },
    );
    return JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
  });
}

void test('the shell reporter gets the daemon env plus the YACRON2_* table, not the job env', async () => {
  const env = await reportedEnv(makeOutcome(), {
    baseEnv: { PATH: process.env['PATH'], DAEMON_VAR: 'd' },
  });
  const yacron = Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('YACRON2_')));
  assert.deepEqual(yacron, {
    YACRON2_FAIL_REASON: 'failsWhen=nonzeroReturn and retcode=3',
    YACRON2_FAILED: '1',
    YACRON2_JOB_NAME: 'nightly',
    YACRON2_JOB_COMMAND: 'backup --all',
    YACRON2_JOB_SCHEDULE: '0 3 * * *',
    YACRON2_RETCODE: '3',
    YACRON2_STDOUT: 'out\n',
    YACRON2_STDOUT_TRUNCATED: '0',
    YACRON2_STDERR: 'err\n',
    YACRON2_STDERR_TRUNCATED: '0',
    YACRON2_CPU_SECONDS: '',
    YACRON2_MAX_RSS_BYTES: '',
  });
  assert.equal(env['DAEMON_VAR'], 'd');
  assert.equal(env['JOB_ONLY'], undefined);
});

void test('a successful run reports FAILED 0, an empty reason, and "" for uncaptured streams', async () => {
  const env = await reportedEnv(
    makeOutcome({ kind: 'succeeded', exitCode: 0, failReason: null, stdout: null }),
    { scheduleText: '@reboot' },
  );
  assert.equal(env['YACRON2_FAILED'], '0');
  assert.equal(env['YACRON2_FAIL_REASON'], '');
  assert.equal(env['YACRON2_RETCODE'], '0');
  assert.equal(env['YACRON2_STDOUT'], '');
  assert.equal(env['YACRON2_STDOUT_TRUNCATED'], '0');
  assert.equal(env['YACRON2_JOB_SCHEDULE'], '@reboot');
});

void test('a monitored run passes its CPU seconds and peak RSS as its run record shows them', async () => {
  const env = await reportedEnv(makeOutcome(), {
    usage: {
      cpuUserSeconds: 0.1,
      cpuSystemSeconds: 0.2,
      cpuTotalSeconds: 0.3,
      maxRssBytes: 62_914_560,
      samples: 4,
    },
  });
  assert.equal(env['YACRON2_CPU_SECONDS'], '0.3');
  assert.equal(env['YACRON2_MAX_RSS_BYTES'], '62914560');
  const whole = await reportedEnv(makeOutcome(), {
    usage: {
      cpuUserSeconds: 1.5,
      cpuSystemSeconds: 0.5,
      cpuTotalSeconds: 2,
      maxRssBytes: 0,
      samples: 0,
    },
  });
  assert.equal(whole['YACRON2_CPU_SECONDS'], '2.0', "Python's str() of a float");
  assert.equal(whole['YACRON2_MAX_RSS_BYTES'], '0');
});

void test('captured output is cut to 16384 characters and flagged truncated', async () => {
  const long = 'é'.repeat(SHELL_REPORT_OUTPUT_LIMIT + 10);
  const env = await reportedEnv(
    makeOutcome({
      stdout: { text: long, discardedLines: 0, truncated: false },
      stderr: {
        text: 'head\n   [.... 5 lines discarded ...]\ntail\n',
        discardedLines: 5,
        truncated: true,
      },
    }),
  );
  assert.equal(env['YACRON2_STDOUT'], 'é'.repeat(SHELL_REPORT_OUTPUT_LIMIT));
  assert.equal(env['YACRON2_STDOUT_TRUNCATED'], '1');
  assert.equal(env['YACRON2_STDERR'], 'head\n   [.... 5 lines discarded ...]\ntail\n');
  assert.equal(env['YACRON2_STDERR_TRUNCATED'], '1', 'the capture itself discarded lines');
});

void test('cutToCodePoints() counts characters, never splitting a surrogate pair', () => {
  assert.equal(cutToCodePoints('ab😀cd', 3), 'ab😀');
  assert.equal(cutToCodePoints('😀😀😀', 2), '😀😀');
  assert.equal(cutToCodePoints('short', 10), 'short');
});

void test('a string reporter command runs through its shell', async () => {
  await withTempDir(async (dir) => {
    const file = join(dir, 'out.txt');
    await runShellReport(
      {
        logger: recordingLogger(),
        baseEnv: { PATH: process.env['PATH'], OUT: file },
        clock: new FakeClock(),
      },
      {
        job: makeJob({ name: 'j' }),
        outcome: makeOutcome(),
        report: {
          command: { kind: 'shell', script: 'echo "$YACRON2_JOB_NAME $YACRON2_RETCODE" > "$OUT"' },
          shell: '',
        },
        scheduleText: '* * * * *',
      },
    );
    assert.equal(await readFile(file, 'utf8'), 'j 3\n');
  });
});

void test('a reporter exiting non-zero is logged as an error', async () => {
  const logger = recordingLogger();
  await runShellReport(
    { logger, baseEnv: process.env, clock: new FakeClock() },
    {
      job: makeJob({ name: 'j' }),
      outcome: makeOutcome(),
      report: { command: { kind: 'shell', script: 'exit 7' }, shell: '/bin/sh' },
      scheduleText: '* * * * *',
    },
  );
  assert.deepEqual(logger.messages('error'), [
    'Error executing shell reporter of job j with return code 7',
  ]);
});

void test('a reporter that cannot be launched is logged and does not throw', async () => {
  const logger = recordingLogger();
  await runShellReport(
    { logger, baseEnv: process.env, clock: new FakeClock() },
    {
      job: makeJob({ name: 'j' }),
      outcome: makeOutcome(),
      report: { command: { kind: 'argv', argv: ['/nonexistent/reporter'] }, shell: '/bin/sh' },
      scheduleText: '* * * * *',
    },
  );
  const errors = logger.messages('error');
  assert.equal(errors.length, 1);
  assert.match(errors[0] ?? '', /^Cannot run shell reporter of job j: .*ENOENT/);
});

void test('a reporter with command null does nothing', async () => {
  const logger = recordingLogger();
  await runShellReport(
    { logger, baseEnv: process.env, clock: new FakeClock() },
    {
      job: makeJob(),
      outcome: makeOutcome(),
      report: { command: null, shell: '/bin/sh' },
      scheduleText: '* * * * *',
    },
  );
  assert.deepEqual(logger.lines, []);
});

void test('a timeout terminates a hung reporter and logs it', async () => {
  const clock = new FakeClock();
  const logger = recordingLogger();
  const armed = clock.nextTimer();
  const reporting = runShellReport(
    { logger, baseEnv: process.env, clock, timeoutMs: 5000 },
    {
      job: makeJob({ name: 'j' }),
      outcome: makeOutcome(),
      report: {
        command: { kind: 'argv', argv: [NODE, fixture('forever.js')] },
        shell: '/bin/sh',
      },
      scheduleText: '* * * * *',
    },
  );
  await armed;
  await clock.advance(5000);
  assert.equal(await reporting, 'failed');
  assert.deepEqual(logger.messages('error'), [
    'Shell reporter of job j still running after 5.0 seconds, terminating its process group',
    'Error executing shell reporter of job j with return code -15',
  ]);
});
