import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  awaitingGates,
  backfillBody,
  dagCard,
  dagRunPath,
  groupText,
  layoutGraph,
  nodeView,
  rollUpInstances,
  runProgress,
  type DagTaskWire,
  type DagWire,
  type RunDocument,
  type TaskEntry,
} from './dags.js';
import { previewSchedule } from './schedule-preview.js';

function task(id: string, dependsOn: string[] = [], extra: Partial<DagTaskWire> = {}): DagTaskWire {
  return {
    id,
    type: 'task',
    dependsOn,
    triggerRule: 'all_success',
    retries: 0,
    mapped: false,
    ...extra,
  };
}

function entry(id: string, state: TaskEntry['state'], extra: Partial<TaskEntry> = {}): TaskEntry {
  return {
    id,
    mapIndex: null,
    state,
    attempt: state === 'pending' ? 0 : 1,
    proc: null,
    pid: null,
    host: null,
    startedAt: null,
    finishedAt: null,
    exitCode: null,
    failReason: null,
    resources: null,
    updatedAt: 1,
    ...extra,
  };
}

function run(tasks: Record<string, TaskEntry>): RunDocument {
  return {
    dag: 'etl',
    runKey: 'manual-0123456789ab',
    runId: 'r1',
    logicalDate: null,
    kind: 'manual',
    state: 'running',
    createdAt: 1,
    updatedAt: 2,
    tasks,
    mapped: {},
  };
}

describe('layoutGraph', () => {
  it('puts each task one column right of its deepest upstream', () => {
    const layout = layoutGraph([
      task('extract'),
      task('sensor'),
      task('load', ['extract']),
      task('gate', ['load', 'sensor']),
      task('publish', ['gate']),
      task('audit', ['extract', 'publish']),
    ]);
    const at = new Map(layout.nodes.map((node) => [node.id, node]));
    assert.deepEqual(
      ['extract', 'sensor', 'load', 'gate', 'publish', 'audit'].map((id) => at.get(id)!.layer),
      [0, 0, 1, 2, 3, 4],
    );
    assert.equal(layout.layers, 5);
    assert.equal(layout.rows, 2);
    assert.equal(layout.edges.length, 6);
    assert.deepEqual(layout.edges[0], { from: 'extract', to: 'load' });
  });

  it('orders a column by the mean row of the upstreams, ties in config order', () => {
    const layout = layoutGraph([
      task('a'),
      task('b'),
      task('from-b', ['b']),
      task('from-a', ['a']),
    ]);
    const at = new Map(layout.nodes.map((node) => [node.id, node]));
    assert.equal(at.get('from-a')!.row, 0);
    assert.equal(at.get('from-b')!.row, 1);
    assert.equal(at.get('a')!.row, 0);
    assert.equal(at.get('b')!.row, 1);
  });

  it('ignores unknown upstreams and survives a cycle', () => {
    const layout = layoutGraph([task('a', ['ghost', 'b']), task('b', ['a'])]);
    assert.equal(layout.edges.length, 2);
    assert.ok(layout.nodes.every((node) => Number.isInteger(node.layer)));
    assert.deepEqual(layoutGraph([]), { nodes: [], edges: [], layers: 0, rows: 0 });
  });
});

describe('state roll-up', () => {
  it('rolls a mapped group up as its downstreams count it', () => {
    assert.equal(rollUpInstances([]), 'success');
    assert.equal(rollUpInstances(['pending', 'pending']), 'pending');
    assert.equal(rollUpInstances(['success', 'pending']), 'running');
    assert.equal(rollUpInstances(['success', 'up_for_retry']), 'running');
    assert.equal(rollUpInstances(['success', 'failed', 'skipped']), 'failed');
    assert.equal(rollUpInstances(['success', 'upstream_failed']), 'failed');
    assert.equal(rollUpInstances(['success', 'skipped']), 'skipped');
    assert.equal(rollUpInstances(['success', 'success']), 'success');
  });

  it('shows a plain task, a waiting gate and a task missing from the run', () => {
    const doc = run({
      a: entry('a', 'success'),
      gate: entry('gate', 'running', { awaitingApproval: true }),
    });
    assert.equal(nodeView(task('a'), doc).state, 'success');
    assert.deepEqual(nodeView(task('a'), doc).taskKeys, ['a']);
    const gate = nodeView(task('gate', [], { type: 'approval' }), doc);
    assert.equal(gate.awaitingApproval, true);
    assert.equal(gate.state, 'running');
    assert.deepEqual(awaitingGates(doc), ['gate']);
    const late = nodeView(task('late'), doc);
    assert.equal(late.state, 'absent');
    assert.deepEqual(late.taskKeys, []);
  });

  it('summarises a mapped task before, during and after its expansion', () => {
    const mapped = task('load', ['a'], { mapped: true });
    const before = nodeView(mapped, run({ load: entry('load', 'pending', { mapped: true }) }));
    assert.equal(before.state, 'pending');
    assert.equal(before.group, null);
    const during = nodeView(
      mapped,
      run({
        load: entry('load', 'expanded', { mapped: true }),
        'load#1': entry('load', 'running', { mapIndex: 1, attempt: 2 }),
        'load#0': entry('load', 'success', { mapIndex: 0 }),
        'loader#0': entry('loader', 'failed', { mapIndex: 0 }),
      }),
    );
    assert.equal(during.state, 'running');
    assert.deepEqual(during.taskKeys, ['load#0', 'load#1']);
    assert.deepEqual(during.group, { total: 2, counts: { running: 1, success: 1 } });
    assert.equal(during.attempt, 2);
    assert.equal(groupText(during.group.counts), '1 running · 1 success');
    const empty = nodeView(mapped, run({ load: entry('load', 'success', { mapped: true }) }));
    assert.equal(empty.state, 'success');
    assert.equal(empty.group, null);
    const expandedEmpty = nodeView(mapped, run({ load: entry('load', 'expanded') }));
    assert.equal(expandedEmpty.state, 'success');
    assert.deepEqual(expandedEmpty.group, { total: 0, counts: {} });
  });

  it('counts progress over task entries, mapped placeholders once as their instances', () => {
    const doc = run({
      a: entry('a', 'success'),
      load: entry('load', 'expanded'),
      'load#0': entry('load', 'failed', { mapIndex: 0 }),
      'load#1': entry('load', 'pending', { mapIndex: 1 }),
      b: entry('b', 'upstream_failed'),
    });
    assert.deepEqual(runProgress(doc), { done: 3, total: 4 });
  });
});

describe('dagCard', () => {
  const wire: DagWire = {
    name: 'etl',
    enabled: true,
    scheduled: true,
    retainRuns: 50,
    tasks: [task('a'), task('b', ['a'])],
    schedule: '30 1 * * *',
    latestRun: { runKey: 'k', state: 'success', kind: 'manual', createdAt: 1, updatedAt: 2 },
    runCounts: { success: 3, failed: 1 },
    totalRuns: 4,
  };
  const now = Date.UTC(2026, 5, 1, 12, 0, 0);

  it('reads the schedule in English, the next fire (UTC) and the run tally', () => {
    const card = dagCard(wire, now);
    assert.equal(card.english, 'at 01:30, every day');
    assert.equal(card.nextFireMs, Date.UTC(2026, 5, 2, 1, 30, 0));
    assert.equal(card.tally, '1 failed · 3 success');
    assert.equal(card.taskCount, 2);
    assert.equal(card.latest?.runKey, 'k');
  });

  it('reads the schedule in the zone the daemon reports (null: the daemon local time)', () => {
    assert.equal(dagCard(wire, now).timezone, 'UTC'); // an older daemon sends no zone
    const berlin = dagCard({ ...wire, timezone: 'Europe/Berlin' }, now);
    assert.equal(berlin.timezone, 'Europe/Berlin');
    // 01:30 in Berlin (summer, UTC+2) is 23:30 UTC the day before.
    assert.equal(berlin.nextFireMs, Date.UTC(2026, 5, 1, 23, 30, 0));
    const local = dagCard({ ...wire, timezone: null }, now);
    assert.equal(local.timezone, 'local');
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const expected = previewSchedule('30 1 * * *', zone, now, 1);
    assert.equal(expected.kind, 'ok');
    assert.equal(local.nextFireMs, expected.kind === 'ok' ? expected.fires[0]?.atMs : undefined);
  });

  it('has no next fire when manual-only or disabled, and no tally without runs', () => {
    const manual = dagCard(
      { name: 'm', enabled: true, scheduled: false, retainRuns: 5, tasks: [] },
      now,
    );
    assert.equal(manual.nextFireMs, null);
    assert.equal(manual.english, null);
    assert.equal(manual.tally, '');
    assert.equal(manual.latest, null);
    assert.equal(dagCard({ ...wire, enabled: false }, now).nextFireMs, null);
  });
});

describe('paths and backfill', () => {
  it('encodes names and run keys as one segment each', () => {
    assert.equal(
      dagRunPath('a/b', '2026-07-04T02:00:00_00:00', 'xcom'),
      '/dags/a%2Fb/runs/2026-07-04T02%3A00%3A00_00%3A00/xcom',
    );
  });

  it('turns a date range into whole UTC days, refusing an empty or reversed one', () => {
    assert.deepEqual(backfillBody('2026-06-01', '2026-06-03'), {
      ok: true,
      body: { from: '2026-06-01T00:00:00+00:00', to: '2026-06-03T23:59:59+00:00' },
    });
    assert.equal(backfillBody('', '2026-06-03').ok, false);
    assert.deepEqual(backfillBody('2026-06-04', '2026-06-03'), {
      ok: false,
      error: 'The end date is before the start date',
    });
  });
});
