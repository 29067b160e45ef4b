// The planner, table-driven: readiness under both trigger rules (mapped groups included), every
// task state, the run roll-up, the instance claim cap and the wake instant.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MAX_INSTANCE_LAUNCHES_PER_PASS, planAdvance, upstreamState } from './advance-plan.js';
import type { TaskState } from './run-document.js';
import { makeDag, makeRun, type TaskSpec } from './test-dag-fixture.js';

const NOW = 1_000_000;

function planFor(
  tasks: readonly TaskSpec[],
  states: Parameters<typeof makeRun>[1],
  nowMs = NOW,
): ReturnType<typeof planAdvance> {
  const dag = makeDag('d', tasks);
  return planAdvance(dag, makeRun(dag, states), nowMs);
}

void test('a task waits until every upstream is terminal (no fail-fast)', () => {
  const tasks = [{ id: 'a' }, { id: 'b' }, { id: 'c', dependsOn: ['a', 'b'] }];
  const plan = planFor(tasks, { a: 'failed', b: 'running' });
  assert.deepEqual(plan.actions, []);
  assert.equal(plan.wakeAtMs, null);
});

void test('readiness under each trigger rule for every combination of terminal upstreams', () => {
  const rows: [TaskState, TaskState, 'all_success' | 'all_done', string][] = [
    ['success', 'success', 'all_success', 'launch'],
    ['success', 'failed', 'all_success', 'upstream_failed'],
    ['success', 'upstream_failed', 'all_success', 'upstream_failed'],
    ['skipped', 'failed', 'all_success', 'upstream_failed'],
    ['success', 'skipped', 'all_success', 'skipped'],
    ['skipped', 'skipped', 'all_success', 'skipped'],
    ['success', 'success', 'all_done', 'launch'],
    ['failed', 'upstream_failed', 'all_done', 'launch'],
    ['skipped', 'failed', 'all_done', 'launch'],
  ];
  for (const [a, b, triggerRule, expected] of rows) {
    const tasks = [{ id: 'a' }, { id: 'b' }, { id: 'c', dependsOn: ['a', 'b'], triggerRule }];
    const [action] = planFor(tasks, { a, b }).actions;
    const got = action?.kind === 'settle' ? action.state : action?.kind;
    assert.equal(got, expected, `${a}, ${b} under ${triggerRule}`);
    assert.equal(action && 'taskKey' in action ? action.taskKey : undefined, 'c');
  }
});

void test('roots launch at once; each node type has its own ready action', () => {
  const plan = planFor(
    [
      { id: 't' },
      { id: 's', kind: 'sensor' },
      { id: 'g', kind: 'approval' },
      { id: 'm', dependsOn: ['t'], expand: { fromTask: 't', key: 'k' } },
    ],
    { t: 'success' },
  );
  assert.deepEqual(plan.actions, [
    { kind: 'launch', taskKey: 's' },
    { kind: 'await-approval', taskKey: 'g' },
    { kind: 'expand', taskKey: 'm' },
  ]);
});

void test('states that wait: running, awaiting approval, a retry or a poke not yet due', () => {
  const plan = planFor(
    [{ id: 'r' }, { id: 'g', kind: 'approval' }, { id: 'u' }, { id: 's', kind: 'sensor' }],
    {
      r: 'running',
      g: { state: 'running', awaitingApproval: true },
      u: { state: 'up_for_retry', retryAtMs: NOW + 5000 },
      s: { state: 'running', nextPokeAtMs: NOW + 2000 },
    },
  );
  assert.deepEqual(plan.actions, []);
  assert.equal(plan.wakeAtMs, NOW + 2000);
});

void test('a due retry and a due poke launch', () => {
  const plan = planFor(
    [
      { id: 'u', retries: 1 },
      { id: 's', kind: 'sensor' },
    ],
    {
      u: { state: 'up_for_retry', retryAtMs: NOW },
      s: { state: 'running', nextPokeAtMs: NOW - 1 },
    },
  );
  assert.deepEqual(plan.actions, [
    { kind: 'launch', taskKey: 'u' },
    { kind: 'launch', taskKey: 's' },
  ]);
});

void test('the run rolls up once every entry is terminal: skipped does not fail it', () => {
  const tasks = [{ id: 'a' }, { id: 'b' }];
  const rows: [TaskState, TaskState, string][] = [
    ['success', 'success', 'success'],
    ['success', 'skipped', 'success'],
    ['success', 'failed', 'failed'],
    ['upstream_failed', 'skipped', 'failed'],
  ];
  for (const [a, b, expected] of rows) {
    assert.deepEqual(planFor(tasks, { a, b }).actions, [{ kind: 'finish', state: expected }]);
  }
  const dag = makeDag('d', tasks);
  const done = { ...makeRun(dag, { a: 'success', b: 'success' }), state: 'success' as const };
  assert.deepEqual(planAdvance(dag, done, NOW).actions, []);
});

void test('a mapped upstream counts as one group', () => {
  const tasks = [
    { id: 'src' },
    { id: 'm', dependsOn: ['src'], expand: { fromTask: 'src', key: 'k' } },
    { id: 'after', dependsOn: ['m'] },
  ];
  const rows: [Record<string, TaskState>, string | undefined][] = [
    [{ 'm#0': 'success', 'm#1': 'running' }, undefined],
    [{ 'm#0': 'success', 'm#1': 'success' }, 'launch'],
    [{ 'm#0': 'success', 'm#1': 'failed' }, 'upstream_failed'],
    [{ 'm#0': 'skipped', 'm#1': 'success' }, 'skipped'],
    [{}, 'launch'],
  ];
  for (const [instances, expected] of rows) {
    const plan = planFor(tasks, {
      src: 'success',
      m: 'expanded',
      ...instances,
    });
    const action = plan.actions.find(
      (candidate) => 'taskKey' in candidate && candidate.taskKey === 'after',
    );
    const got = action?.kind === 'settle' ? action.state : action?.kind;
    assert.equal(got, expected, JSON.stringify(instances));
  }
  const dag = makeDag('d', tasks);
  assert.equal(upstreamState(makeRun(dag, { m: 'failed' }), 'm'), 'failed');
  assert.equal(upstreamState(makeRun(dag), 'gone'), undefined);
});

void test(`at most ${MAX_INSTANCE_LAUNCHES_PER_PASS} mapped instances are launched per pass`, () => {
  const instances: Record<string, TaskState> = {};
  for (let index = 0; index < 40; index += 1) instances[`m#${index}`] = 'pending';
  const plan = planFor(
    [{ id: 'src' }, { id: 'm', dependsOn: ['src'], expand: { fromTask: 'src', key: 'k' } }],
    { src: 'success', m: 'expanded', ...instances },
  );
  assert.equal(plan.actions.length, MAX_INSTANCE_LAUNCHES_PER_PASS);
  assert.ok(plan.actions.every((action) => action.kind === 'launch'));
});

void test('an entry whose task left the DAG is skipped; an upstream added later is ignored', () => {
  const old = makeDag('d', [{ id: 'a' }, { id: 'gone' }]);
  const doc = makeRun(old, { a: 'success' });
  const now = makeDag('d', [{ id: 'a' }, { id: 'new' }, { id: 'x', dependsOn: ['new'] }]);
  assert.deepEqual(planAdvance(now, doc, NOW).actions, [
    {
      kind: 'settle',
      taskKey: 'gone',
      state: 'skipped',
      reason: 'the task is no longer in the DAG',
    },
  ]);
});
