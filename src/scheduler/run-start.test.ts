// The one run start (run-start.ts) on its own: a runner that throws gives a spawn-failed outcome;
// the hook is asked with the run's facts and a failing hook only loses the variables; the
// caller's variables win over the hook's; lines and the outcome are scrubbed of the run's secret
// values; the monitor is told of the spawn once and its answer is the finished run's resources.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { FakeClock } from '../common/index.js';
import { recordingLogger } from '../logging/testing.js';
import { makeJob } from '../config/testing.js';
import type { OutputLine, Runner } from '../runner/index.js';
import { FakeRunner } from './fake-runner.js';
import type { RunResources } from './history.js';
import type { RunContext, RunEnvironmentHook, RunMonitor, SpawnedRun } from './ports.js';
import { newRunId, startRun, type RunStartDeps, type RunStartRequest } from './run-start.js';

const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);
const TOKEN = 'a'.repeat(64);
const USAGE: RunResources = {
  cpuUserSeconds: 0.25,
  cpuSystemSeconds: 0.125,
  cpuTotalSeconds: 0.375,
  maxRssBytes: 4096,
  samples: 2,
};

const THROWING_RUNNER: Runner = {
  start() {
    throw new Error('spawn helper gone');
  },
};

function request(overrides: Partial<RunStartRequest> = {}): RunStartRequest {
  return {
    runId: newRunId(),
    job: makeJob({ name: 'j', captureStdout: true }),
    trigger: 'dag',
    attempt: 1,
    scheduledAtMs: null,
    startedAtMs: T0,
    label: 'Job j',
    onOutput: () => undefined,
    onSpawn: () => undefined,
    ...overrides,
  };
}

function deps(overrides: Partial<RunStartDeps>): RunStartDeps {
  return {
    runner: new FakeRunner({ clock: new FakeClock(T0) }),
    logger: recordingLogger(),
    runEnvironment: null,
    runMonitor: null,
    ...overrides,
  };
}

void describe('the run start', () => {
  void it('names a run with 32 lower-case hex characters, a new one each time', () => {
    const id = newRunId();
    assert.match(id, /^[0-9a-f]{32}$/);
    assert.notEqual(newRunId(), id);
  });

  void it('turns a runner that throws into a spawn-failed outcome, logged once', async () => {
    const logger = recordingLogger();
    const spawned: SpawnedRun[] = [];
    const monitor: RunMonitor = { started: (run) => void spawned.push(run), finished: () => null };
    const started = startRun(
      deps({ runner: THROWING_RUNNER, logger, runMonitor: monitor }),
      request({ label: 'DAG d run r: task t' }),
    );
    assert.equal(started.handle.pid, undefined);
    const { outcome, resources } = await started.finished;
    assert.equal(outcome.kind, 'spawn-failed');
    assert.equal(outcome.exitCode, 127);
    assert.equal(outcome.spawnError, 'spawn helper gone');
    assert.equal(outcome.startedAtMs, T0);
    assert.equal(resources, null);
    assert.deepEqual(spawned, []);
    assert.deepEqual(logger.messages('error'), [
      'DAG d run r: task t: the runner failed to launch it',
    ]);
    await started.handle.cancel('cancelled');
  });

  void it("asks the hook with the run's facts; the caller's variables win over the hook's", () => {
    const runner = new FakeRunner({ clock: new FakeClock(T0) });
    const asked: RunContext[] = [];
    const hook: RunEnvironmentHook = (run) => {
      asked.push(run);
      return {
        variables: { YACRON2_STATE_TOKEN: TOKEN, SHARED: 'hook' },
        secretValues: [TOKEN],
        stagedSecretValues: null,
      };
    };
    const wanted = request({ defaultScope: 'dag:d:run', variables: { SHARED: 'caller' } });
    startRun(deps({ runner, runEnvironment: hook }), wanted);
    assert.equal(asked.length, 1);
    assert.deepEqual(
      [asked[0]?.runId, asked[0]?.trigger, asked[0]?.attempt, asked[0]?.defaultScope],
      [wanted.runId, 'dag', 1, 'dag:d:run'],
    );
    assert.deepEqual(runner.runs[0]?.request.extraEnv, {
      YACRON2_STATE_TOKEN: TOKEN,
      SHARED: 'caller',
    });
  });

  void it('starts without the variables when the hook throws, and logs it', () => {
    const runner = new FakeRunner({ clock: new FakeClock(T0) });
    const logger = recordingLogger();
    const hook: RunEnvironmentHook = () => {
      throw new Error('job API closed');
    };
    startRun(deps({ runner, logger, runEnvironment: hook }), request());
    assert.equal(runner.runs.length, 1);
    assert.equal(runner.runs[0]?.request.extraEnv, undefined);
    assert.deepEqual(logger.messages('error'), [
      "Job j: cannot prepare the run's job API environment",
    ]);
  });

  void it("scrubs the run's secret values from its lines and its outcome", async () => {
    const runner = new FakeRunner({ clock: new FakeClock(T0) });
    const lines: OutputLine[] = [];
    const hook: RunEnvironmentHook = () => ({
      variables: {},
      secretValues: [TOKEN],
      stagedSecretValues: null,
    });
    const started = startRun(
      deps({ runner, runEnvironment: hook }),
      request({ onOutput: (line) => void lines.push(line) }),
    );
    runner.runs[0]?.emitOutput('stdout', `token ${TOKEN}\n`);
    runner.runs[0]?.complete({ stdout: `token ${TOKEN}\n` });
    const { outcome } = await started.finished;
    assert.deepEqual(lines, [{ stream: 'stdout', line: 'token [REDACTED]\n' }]);
    assert.equal(outcome.stdout?.text, 'token [REDACTED]\n');
  });

  void it('tells the monitor of the spawn once; its answer is the resources', async () => {
    const runner = new FakeRunner({ clock: new FakeClock(T0) });
    const spawned: SpawnedRun[] = [];
    const pids: number[] = [];
    const monitor: RunMonitor = {
      started: (run) => void spawned.push(run),
      finished: () => USAGE,
    };
    const wanted = request({ onSpawn: (pid) => void pids.push(pid) });
    const started = startRun(deps({ runner, runMonitor: monitor }), wanted);
    assert.deepEqual(
      spawned.map((run) => [run.runId, run.pid, run.startedAtMs]),
      [[wanted.runId, 1000, T0]],
    );
    assert.deepEqual(pids, [1000]);
    runner.runs[0]?.succeed();
    const { outcome, resources } = await started.finished;
    assert.equal(outcome.kind, 'succeeded');
    assert.deepEqual(resources, USAGE);
    assert.equal(spawned.length, 1);
  });

  void it('a failing monitor is logged and the run finishes without resources', async () => {
    const runner = new FakeRunner({ clock: new FakeClock(T0) });
    const logger = recordingLogger();
    const monitor: RunMonitor = {
      started: () => {
        throw new Error('no /proc');
      },
      finished: () => {
        throw new Error('still no /proc');
      },
    };
    const started = startRun(deps({ runner, logger, runMonitor: monitor }), request());
    runner.runs[0]?.succeed();
    const { outcome, resources } = await started.finished;
    assert.equal(outcome.kind, 'succeeded');
    assert.equal(resources, null);
    assert.deepEqual(logger.messages('error'), [
      "Job j: cannot monitor the run's resources",
      "Job j: cannot read the run's resources",
    ]);
  });
});
