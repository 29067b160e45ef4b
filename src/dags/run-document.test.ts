// The run document: a stored body read strictly into epoch ms (hostile or foreign bodies are
// refused with the reason) and rendered back, the reference's shape — epoch seconds, ISO logical
// dates — kept byte for byte through a round trip, run keys from logical dates.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mapItemOf, rollUpRunState, countTaskStates } from './run-document.js';
import { readRunDocument, runDocumentBody, RunDocumentError } from './run-document-wire.js';
import { manualRunKey, parseLogicalDate, scheduledRunKey } from './run-keys.js';
import { makeDag, makeRun } from './test-dag-fixture.js';

void test('a run document survives its stored body, JSON and the strict reader unchanged', () => {
  const dag = makeDag('d', [
    { id: 'a' },
    { id: 'm', dependsOn: ['a'], expand: { fromTask: 'a', key: 'k' } },
  ]);
  const doc = makeRun(dag, {
    a: {
      state: 'success',
      pid: 12,
      exitCode: 0,
      approval: { decision: 'approved', by: 'x', atMs: 1000 },
    },
    'm#0': { state: 'up_for_retry', retryAtMs: 5000, pokeCount: 2 },
  });
  const withItems = { ...doc, mapped: { m: { items: [1], expandedAtMs: 3000 } } };
  const stored = JSON.stringify(runDocumentBody(withItems));
  // Stored in the reference's units: epoch seconds.
  for (const field of ['"at":1', '"retryAt":5', '"expandedAt":3', '"createdAt":1000,']) {
    assert.ok(stored.includes(field), field);
  }
  const read = readRunDocument(JSON.parse(stored));
  assert.deepEqual(read, withItems);
  assert.equal(JSON.stringify(runDocumentBody(read)), stored);
  assert.deepEqual(countTaskStates(read), { success: 1, pending: 1, up_for_retry: 1 });
});

void test('a body a Python node wrote (float seconds, an isoformat logical date) is written back as it was', () => {
  const body = {
    dag: 'd',
    runKey: '2026-01-01T12:00:00_00:00',
    runId: 'c'.repeat(32),
    logicalDate: '2026-01-01T12:00:00+00:00',
    kind: 'scheduled',
    state: 'running',
    createdAt: 1767268800.123456,
    updatedAt: 1767268805.987654,
    tasks: {
      a: {
        id: 'a',
        mapIndex: null,
        state: 'running',
        attempt: 1,
        proc: 'feedface0000',
        pid: 4242,
        host: 'py-node',
        startedAt: 1733560000.1234567,
        finishedAt: null,
        exitCode: null,
        failReason: null,
        resources: null,
        updatedAt: 1767268800.000001,
      },
    },
    mapped: {},
  };
  const read = readRunDocument(body);
  assert.equal(read.logicalDateMs, Date.UTC(2026, 0, 1, 12));
  assert.equal(read.tasks['a']?.startedAtMs, 1733560000.1234567 * 1000);
  assert.equal(JSON.stringify(runDocumentBody(read)), JSON.stringify(body));
});

void test('the old shape (an item copy in every instance) reads: items come from mapped, held once', () => {
  const dag = makeDag('d', [
    { id: 'a' },
    { id: 'm', dependsOn: ['a'], expand: { fromTask: 'a', key: 'k' } },
  ]);
  const doc = makeRun(dag, { a: 'success', m: 'expanded', 'm#0': 'pending', 'm#1': 'running' });
  const items = ['x', { deep: [1] }];
  // As the reference and builds before this one write it: `mapItem` beside mapped[id].items.
  const oldShape = JSON.parse(
    JSON.stringify({ ...runDocumentBody(doc), mapped: { m: { items, expandedAt: 3 } } }),
  );
  oldShape.tasks['m#0'].mapItem = 'x';
  oldShape.tasks['m#1'].mapItem = { deep: [1] };
  oldShape.ended = { kind: 'unknown-to-us', at: 1 };
  const read = readRunDocument(oldShape);
  assert.deepEqual(mapItemOf(read, read.tasks['m#0']!), 'x');
  assert.deepEqual(mapItemOf(read, read.tasks['m#1']!), { deep: [1] });
  assert.equal(mapItemOf(read, read.tasks['a']!), undefined);
  assert.equal(read.ended, undefined, 'an ended field this build does not know is left out');
  const written = JSON.stringify(runDocumentBody(read));
  assert.equal(written.match(/deep/g)?.length, 1, 'the item is stored once');
  assert.ok(!written.includes('mapItem'));
});

void test('hostile bodies are refused with the reason, never guessed', () => {
  const dag = makeDag('d', [{ id: 'a' }]);
  const good = JSON.parse(JSON.stringify(runDocumentBody(makeRun(dag)))) as Record<string, unknown>;
  const task = (change: Record<string, unknown>) => ({
    ...good,
    tasks: { a: { ...(good['tasks'] as { a: object }).a, ...change } },
  });
  const cases: [unknown, RegExp][] = [
    [null, /not an object/],
    [[1], /not an object/],
    [{ ...good, runKey: 5 }, /runKey/],
    [{ ...good, createdAt: 'x' }, /createdAt/],
    [{ ...good, logicalDate: 5 }, /logicalDate/],
    [{ ...good, logicalDate: 'tomorrow' }, /logicalDate "tomorrow" is not an instant/],
    [{ ...good, tasks: [] }, /tasks is not an object/],
    [{ ...good, state: 'paused' }, /state is "paused"/],
    [{ ...good, kind: undefined }, /kind is missing/],
    [{ ...good, mapped: { m: { items: 'no' } } }, /mapped 'm' has no items/],
    [{ ...good, tasks: { a: 7 } }, /task 'a' is not an object/],
    [task({ id: 1 }), /task 'a' has no id/],
    [task({ state: 'weird' }), /the state of task 'a'/],
    [task({ attempt: -1 }), /bad attempt/],
    [task({ mapIndex: 'x' }), /bad mapIndex/],
    [task({ pid: 'x' }), /bad pid/],
    [task({ proc: 5 }), /bad proc/],
    [task({ retryAt: 'soon' }), /bad retryAt/],
    [task({ approval: { decision: 'maybe' } }), /the approval of 'a'/],
  ];
  for (const [body, reason] of cases) {
    assert.throws(
      () => readRunDocument(body),
      (error: unknown) => error instanceof RunDocumentError && reason.test(error.message),
      JSON.stringify(body)?.slice(0, 80),
    );
  }
});

void test('the roll-up counts an expanded placeholder through its instances', () => {
  const dag = makeDag('d', [{ id: 'a' }]);
  const base = makeRun(dag, { a: 'expanded', 'a#0': 'success' }).tasks;
  assert.equal(rollUpRunState(base), 'success');
  assert.equal(
    rollUpRunState({ ...base, 'a#1': { ...base['a#0']!, state: 'pending' } }),
    'running',
  );
});

void test('run keys: the UTC logical instant, isoformat, every other char an underscore', () => {
  assert.equal(scheduledRunKey(Date.UTC(2026, 6, 4, 2)), '2026-07-04T02:00:00_00:00');
  assert.equal(
    scheduledRunKey(Date.UTC(2026, 6, 4, 2, 0, 0, 250)),
    '2026-07-04T02:00:00.250000_00:00',
  );
  assert.equal(
    manualRunKey(Uint8Array.from([0, 1, 0xab, 0xcd, 0xef, 0x10])),
    'manual-0001abcdef10',
  );
  // 14:00Z and 09:00-05:00 are one run; a naive instant is UTC; a bare date is its midnight.
  const utc = parseLogicalDate('2026-07-04T14:00:00Z');
  assert.equal(parseLogicalDate('2026-07-04T09:00:00-05:00'), utc);
  assert.equal(parseLogicalDate('2026-07-04T14:00:00'), utc);
  assert.equal(parseLogicalDate('2026-07-04T14:00'), utc);
  assert.equal(parseLogicalDate('2026-07-04'), Date.UTC(2026, 6, 4));
  assert.ok(Number.isNaN(parseLogicalDate('tomorrow')));
});
