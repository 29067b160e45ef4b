// A DAG task's attempt starts through the scheduler's one run start (docs/architecture.md
// "Reserved room"): the job API's hook is asked with trigger `dag`, the attempt's retry count and
// the run's XCom scope; the YACRON2_DAG_* variables go over the hook's; the monitor samples it and
// its answer reaches the statsd stop and the attempt's end (stored in the run record's shape); a
// runner that throws ends the attempt spawn-failed instead of failing the pass.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { FakeClock } from '../common/index.js';
import { recordingLogger } from '../logging/testing.js';
import type { StatsdTarget } from '../config/index.js';
import type { Runner } from '../runner/index.js';
import { type RunContext, type RunEnvironmentHook, type RunResources } from '../scheduler/index.js';
import { FakeRunner } from '../scheduler/testing.js';
import { dagXcomScope } from '../state/index.js';
import { AttemptOutputs } from './attempt-outputs.js';
import { storedResources } from './run-document-wire.js';
import { startAttempt, type LaunchDeps, type LaunchableTask } from './task-launch.js';
import { makeDag, makeRun } from './test-dag-fixture.js';

const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);
const USAGE: RunResources = {
  cpuUserSeconds: 0.5,
  cpuSystemSeconds: 0.25,
  cpuTotalSeconds: 0.75,
  maxRssBytes: 8192,
  samples: 3,
  series: [[T0, 10, 8192]],
};
const TARGET: StatsdTarget = { host: '127.0.0.1', port: 8125, prefix: 'p' };

function attemptOf(): {
  readonly task: LaunchableTask;
  readonly request: Parameters<typeof startAttempt>[1];
} {
  const dag = makeDag('d', [{ id: 'a' }]);
  const task = dag.tasks[0];
  assert.ok(task !== undefined && task.kind === 'task');
  const doc = makeRun(dag, { a: { state: 'running', attempt: 2 } });
  const entry = doc.tasks['a'];
  assert.ok(entry !== undefined);
  return { task, request: { doc, task, taskKey: 'a', entry } };
}

function launchDeps(overrides: Partial<LaunchDeps>): LaunchDeps {
  return {
    clock: new FakeClock(T0),
    runner: new FakeRunner({ clock: new FakeClock(T0) }),
    logger: recordingLogger(),
    runEnvironment: () => null,
    outputs: new AttemptOutputs(),
    ...overrides,
  };
}

void describe('a DAG task attempt', () => {
  void it('asks the job API with trigger dag; its YACRON2_DAG_* variables win', () => {
    const { request } = attemptOf();
    const runner = new FakeRunner({ clock: new FakeClock(T0) });
    const asked: RunContext[] = [];
    const hook: RunEnvironmentHook = (run) => {
      asked.push(run);
      return {
        variables: { YACRON2_RUN_ID: run.runId, YACRON2_DAG_TASK: 'not mine' },
        secretValues: [],
        stagedSecretValues: null,
      };
    };
    const started = startAttempt(launchDeps({ runner, runEnvironment: () => hook }), request);
    assert.deepEqual(
      asked.map((run) => [
        run.runId,
        run.trigger,
        run.attempt,
        run.scheduledAtMs,
        run.defaultScope,
      ]),
      [[started.runId, 'dag', 1, null, dagXcomScope('d', request.doc.runId)]],
    );
    const extraEnv = runner.runs[0]?.request.extraEnv;
    assert.equal(extraEnv?.['YACRON2_RUN_ID'], started.runId);
    assert.equal(extraEnv?.['YACRON2_DAG_TASK'], 'a');
  });

  void it("is monitored: the monitor's answer reaches the statsd stop and the attempt's end", async () => {
    const { request } = attemptOf();
    const job = { ...request.task.job, statsd: TARGET };
    const task: LaunchableTask = { ...request.task, job };
    const runner = new FakeRunner({ clock: new FakeClock(T0) });
    const stops: (RunResources | null)[] = [];
    const started = startAttempt(
      launchDeps({
        runner,
        runMonitor: { started: () => undefined, finished: () => USAGE },
        statsd: { started: () => undefined, stopped: (_id, _ok, usage) => void stops.push(usage) },
      }),
      { ...request, task },
    );
    assert.equal(await started.pid, 1000);
    runner.runs[0]?.succeed();
    const { outcome, resources } = await started.done;
    assert.equal(outcome.kind, 'succeeded');
    assert.deepEqual(resources, USAGE);
    assert.deepEqual(stops, [USAGE]);
    assert.deepEqual(storedResources(resources), {
      cpu_user_seconds: 0.5,
      cpu_system_seconds: 0.25,
      cpu_total_seconds: 0.75,
      max_rss_bytes: 8192,
      samples: 3,
    });
    assert.equal(storedResources(null), null);
  });

  void it('ends spawn-failed when the runner throws, with no pid', async () => {
    const { request } = attemptOf();
    const runner: Runner = {
      start() {
        throw new Error('no spawn helper');
      },
    };
    const logger = recordingLogger();
    const started = startAttempt(launchDeps({ runner, logger }), request);
    assert.equal(await started.pid, null);
    const { outcome } = await started.done;
    assert.equal(outcome.kind, 'spawn-failed');
    assert.deepEqual(logger.messages('error'), [
      `DAG d run ${request.doc.runKey}: task a: the runner failed to launch it`,
    ]);
  });
});
