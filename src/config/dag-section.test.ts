// The `dags:` section: every DAG and task key with its checks, located at file/field/line.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { expectConfigError, loadTree } from './config-fixture.test.js';
import { loadConfig } from './load-config.js';
import { findCycle } from './dag-cycle.js';

const STATE = 'state:\n  path: ./state\n';

function dagsYaml(body: string, prefix = STATE): string {
  return `${prefix}dags:\n${body}`;
}

async function errorFor(body: string, prefix = STATE): Promise<string> {
  return expectConfigError({ 'jobs.yaml': dagsYaml(body, prefix) });
}

const FULL = `  - name: etl
    schedule: "0 * * * *"
    timezone: Europe/Berlin
    onMissed: run-all
    startingDeadlineSeconds: 7200
    clusterPolicy: EveryNode
    enabled: false
    retainRuns: 5
    tasks:
      - id: extract
        command:
          - python
          - extract.py
        retries: 2
        retryDelaySeconds: 1.5
        captureStdout: true
        environment:
          - key: A
            value: b
      - id: wait.file
        type: sensor
        command: test -f /tmp/x
        pokeIntervalSeconds: 5
        pokeTimeoutSeconds: 60
        pokeJitterSeconds: 1
      - id: gate
        type: approval
        onReject: skip
        dependsOn:
          - extract
      - id: load
        command: echo load
        dependsOn:
          - extract
          - wait.file
          - gate
        triggerRule: all_done
        expand:
          fromTask: extract
          key: files
`;

void test('every DAG and task key resolves to typed, defaulted values', async () => {
  const { config } = await loadTree({
    'jobs.yaml': `${dagsYaml(FULL)}  - name: manual\n    tasks:\n      - id: only\n        command: echo\n`,
  });
  const [etl, manual] = config.dags ?? [];
  assert.ok(etl && manual);
  assert.equal(etl.schedule?.text, '0 * * * *');
  assert.equal(etl.timezone, 'Europe/Berlin');
  assert.equal(etl.onMissed, 'run-all');
  assert.equal(etl.startingDeadlineMs, 7_200_000);
  assert.equal(etl.clusterPolicy, 'EveryNode');
  assert.equal(etl.enabled, false);
  assert.equal(etl.retainRuns, 5);
  const [extract, sensor, gate, load] = etl.tasks;
  assert.ok(extract?.kind === 'task' && sensor?.kind === 'sensor');
  assert.ok(gate?.kind === 'approval' && load?.kind === 'task');
  assert.equal(extract.templateName, 'etl.extract');
  assert.equal(extract.job.name, 'etl.extract');
  assert.deepEqual(extract.job.command, { kind: 'argv', argv: ['python', 'extract.py'] });
  assert.equal(extract.job.captureStdout, true);
  assert.deepEqual(extract.job.environment, [{ key: 'A', value: 'b' }]);
  assert.equal(extract.retries, 2);
  assert.equal(extract.retryDelayMs, 1500);
  assert.equal(extract.triggerRule, 'all_success');
  assert.deepEqual(extract.dependsOn, []);
  assert.equal(extract.expand, null);
  assert.equal(sensor.templateName, 'etl.wait.file');
  assert.deepEqual(sensor.poke, { intervalMs: 5000, timeoutMs: 60_000, jitterMs: 1000 });
  assert.equal(gate.onReject, 'skip');
  assert.deepEqual(load.dependsOn, ['extract', 'wait.file', 'gate']);
  assert.equal(load.triggerRule, 'all_done');
  assert.deepEqual(load.expand, { fromTask: 'extract', key: 'files' });
  // Defaults: manual-only, enabled, retainRuns 50, UTC, Leader; task defaults.
  assert.equal(manual.schedule, null);
  assert.equal(manual.timezone, 'UTC');
  assert.equal(manual.enabled, true);
  assert.equal(manual.retainRuns, 50);
  assert.equal(manual.onMissed, 'skip');
  assert.equal(manual.clusterPolicy, 'Leader');
  const only = manual.tasks[0];
  assert.ok(only?.kind === 'task');
  assert.equal(only.retries, 0);
  assert.equal(only.retryDelayMs, 0);
  assert.equal(only.job.captureStderr, true);
  assert.ok(Object.isFrozen(manual) && Object.isFrozen(manual.tasks));
});

void test('top-level defaults are not applied to DAG tasks', async () => {
  const { config } = await loadTree({
    'jobs.yaml': `defaults:\n  captureStdout: true\n  killTimeout: 3\n${dagsYaml('  - name: d\n    tasks:\n      - id: t\n        command: echo\n')}`,
  });
  const task = config.dags?.[0]?.tasks[0];
  assert.ok(task?.kind === 'task');
  assert.equal(task.job.captureStdout, false);
  assert.equal(task.job.killTimeoutMs, 30_000);
});

void test('DAGs need a state section with the job API enabled', async () => {
  assert.equal(
    await errorFor('  - name: d\n    tasks:\n      - id: t\n        command: echo\n', ''),
    "Cannot load jobs.yaml at dags[0] (line 2): DAGs need a 'state' section with the job API enabled (state.jobApi.enabled)",
  );
  assert.match(
    await errorFor(
      '  - name: d\n    tasks:\n      - id: t\n        command: echo\n',
      'state:\n  path: ./s\n  jobApi:\n    enabled: false\n',
    ),
    /DAGs need a 'state' section with the job API enabled/,
  );
});

void test('@reboot and bad schedules are refused at the schedule key', async () => {
  assert.equal(
    await errorFor(
      '  - name: d\n    schedule: "@reboot"\n    tasks:\n      - id: t\n        command: x\n',
    ),
    'Cannot load jobs.yaml at dags[0].schedule (line 5): DAG d: DAG schedules must be cron expressions; @reboot is not supported for dags',
  );
  assert.match(
    await errorFor(
      '  - name: d\n    schedule: "61 * * * *"\n    tasks:\n      - id: t\n        command: x\n',
    ),
    /at dags\[0\]\.schedule \(line 5\): DAG d: /,
  );
  assert.match(
    await errorFor(
      '  - name: d\n    schedule: "@daily"\n    timezone: Mars/Base\n    tasks:\n      - id: t\n        command: x\n',
    ),
    /at dags\[0\]\.timezone \(line 6\)/,
  );
});

void test('a cycle is named with its ids', async () => {
  const body = `  - name: d
    tasks:
      - id: a
        command: x
        dependsOn:
          - c
      - id: b
        command: x
        dependsOn:
          - a
      - id: c
        command: x
        dependsOn:
          - b
`;
  assert.equal(
    await errorFor(body),
    'Cannot load jobs.yaml at dags[0].tasks[0].dependsOn (line 8): DAG d: dependsOn forms a cycle: a -> c -> b -> a',
  );
  assert.deepEqual(findCycle([{ id: 'x', dependsOn: [] }]), null);
});

void test('task ids, edges and expand are checked where written', async () => {
  const cases: [string, RegExp][] = [
    [
      '      - id: ""\n        command: x\n',
      /tasks\[0\]\.id \(line 6\): DAG d: a task id must not be empty/,
    ],
    ['      - id: a#1\n        command: x\n', /task id 'a#1' must not contain '#' or '\/'/],
    ['      - id: a/b\n        command: x\n', /task id 'a\/b' must not contain/],
    [
      '      - id: a\n        command: x\n      - id: a\n        command: y\n',
      /tasks\[1\]\.id \(line 8\): DAG d: duplicate task id 'a'/,
    ],
    [
      '      - id: a\n        command: x\n        dependsOn:\n          - a\n',
      /dependsOn\[0\] \(line 9\): DAG d: task 'a' depends on itself/,
    ],
    [
      '      - id: a\n        command: x\n        dependsOn:\n          - zz\n',
      /task 'a' depends on unknown task 'zz'/,
    ],
    ['      - id: a\n', /tasks\[0\] \(line 6\): DAG d: task 'a' needs a command/],
    [
      '      - id: a\n        command: x\n      - id: s\n        type: sensor\n        command: x\n        dependsOn:\n          - a\n        expand:\n          fromTask: a\n          key: k\n',
      /expand is only allowed on tasks of type 'task', not 'sensor'/,
    ],
    [
      '      - id: a\n        command: x\n      - id: b\n        command: x\n        expand:\n          fromTask: a\n          key: k\n',
      /expand.fromTask 'a' must be one of its dependsOn/,
    ],
    [
      '      - id: a\n        command: x\n      - id: b\n        command: x\n        dependsOn:\n          - a\n        expand:\n          fromTask: a\n          key: k\n      - id: c\n        command: x\n        dependsOn:\n          - b\n        expand:\n          fromTask: b\n          key: k\n',
      /expand.fromTask 'b' is itself mapped/,
    ],
    [
      '      - id: a\n        command: x\n        retries: -1\n',
      /retries \(line 8\): DAG d: task 'a': retries must be >= 0/,
    ],
    [
      '      - id: a\n        command: x\n        retryDelaySeconds: -1\n',
      /retryDelaySeconds must be a finite number >= 0/,
    ],
    [
      '      - id: a\n        type: sensor\n        command: x\n        pokeIntervalSeconds: 0\n',
      /pokeIntervalSeconds must be a finite number > 0/,
    ],
    [
      '      - id: a\n        type: sensor\n        command: x\n        pokeJitterSeconds: -1\n',
      /pokeJitterSeconds must be a finite number >= 0/,
    ],
    [
      '      - id: a\n        command: x\n        type: job\n',
      /expected one of task, sensor, approval/,
    ],
    [
      '      - id: a\n        command: x\n        triggerRule: one_success\n',
      /expected one of all_success, all_done/,
    ],
    [
      '      - id: a\n        command: x\n        concurrencyPolicy: Forbid\n',
      /unknown key 'concurrencyPolicy'/,
    ],
    ['      - id: a\n        command: x\n        killTimeout: -1\n', /Job d\.a: killTimeout/],
  ];
  for (const [tasks, expected] of cases) {
    assert.match(await errorFor(`  - name: d\n    tasks:\n${tasks}`), expected, tasks);
  }
});

void test('DAG keys are range-checked and a DAG needs tasks', async () => {
  const cases: [string, RegExp][] = [
    ['    retainRuns: 0\n', /retainRuns \(line 5\): DAG d: retainRuns must be >= 1/],
    ['    startingDeadlineSeconds: 0\n', /startingDeadlineSeconds must be > 0/],
    ['    catchupJitterSeconds: -1\n', /catchupJitterSeconds must be >= 0/],
    ['    onMissed: always\n', /expected one of skip, run-once, run-all/],
    ['    name2: x\n', /unknown key 'name2'/],
  ];
  for (const [key, expected] of cases) {
    assert.match(
      await errorFor(`  - name: d\n${key}    tasks:\n      - id: t\n        command: x\n`),
      expected,
      key,
    );
  }
  assert.match(
    await errorFor('  - name: d\n'),
    /dags\[0\] \(line 4\): missing required key 'tasks'/,
  );
  assert.match(await errorFor('  name: d\n'), /at dags \(line 3\): expected a list of DAGs/);
  assert.match(
    await errorFor('  - name: ""\n    tasks:\n      - id: t\n        command: x\n'),
    /a DAG name must not be empty/,
  );
});

void test('DAG names are unique and template names clash with neither jobs nor other DAGs', async () => {
  const dag = (name: string, id: string): string =>
    `  - name: ${name}\n    tasks:\n      - id: ${id}\n        command: x\n`;
  assert.match(
    await expectConfigError({
      'jobs.yaml': `include:\n  - more.yaml\n${dagsYaml(dag('d', 't'))}`,
      'more.yaml': `dags:\n${dag('d', 'u')}`,
    }),
    /at dags\[0\]\.name \(line 6\): duplicate DAG name 'd' \(first defined in more.yaml at dags\[0\]\.name \(line 2\)\)/,
  );
  assert.match(
    await errorFor(
      dag('d', 't'),
      `${STATE}jobs:\n  - name: d.t\n    command: x\n    schedule: "* * * * *"\n`,
    ),
    /at dags\[0\]\.tasks\[0\] \(line 10\): DAG d: task template name 'd\.t' clashes with the job or DAG task defined in jobs.yaml at jobs\[0\]\.name \(line 4\)/,
  );
  // Task ids may contain '.': a.b + c and a + b.c make the same template name.
  assert.match(
    await errorFor(`${dag('a.b', 'c')}${dag('a', 'b.c')}`),
    /task template name 'a\.b\.c' clashes/,
  );
});

void test('the worked example in examples/dags loads', async () => {
  const config = await loadConfig(
    path.resolve(import.meta.dirname, '../../examples/dags/yacron2.yaml'),
  );
  assert.deepEqual(
    config.dags?.[0]?.tasks.map((task) => [task.id, task.kind]),
    [
      ['list-files', 'task'],
      ['load', 'task'],
      ['warehouse-ready', 'sensor'],
      ['publish-gate', 'approval'],
      ['publish', 'task'],
      ['cleanup', 'task'],
    ],
  );
});
