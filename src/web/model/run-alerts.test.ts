import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeJobWire, makeRun } from './job-fixture.test.js';
import {
  FinishedRunWatch,
  NOTICE_LIMIT,
  NOTICE_WINDOW_MS,
  NoticeGate,
  type FinishedRun,
} from './run-alerts.js';

function job(name: string, finished: string | null, outcome: 'success' | 'failure' = 'failure') {
  return makeJobWire({
    name,
    last_run:
      finished === null
        ? null
        : makeRun({ finished_at: finished, outcome, exit_code: outcome === 'failure' ? 2 : 0 }),
  });
}

function failure(name: string): FinishedRun {
  return { job: name, outcome: 'failure', exitCode: 1, failReason: null, finishedAt: 'x' };
}

describe('FinishedRunWatch', () => {
  it('reports nothing that finished before the first snapshot, then each new finish once', () => {
    const watch = new FinishedRunWatch();
    assert.deepEqual(watch.observe([job('a', 't1'), job('b', null)]), []);
    assert.deepEqual(watch.observe([job('a', 't1'), job('b', null)]), []);
    const next = watch.observe([job('a', 't2'), job('b', 't3', 'success')]);
    assert.deepEqual(
      next.map((run) => [run.job, run.outcome, run.exitCode]),
      [
        ['a', 'failure', 2],
        ['b', 'success', 0],
      ],
    );
    assert.deepEqual(watch.observe([job('a', 't2'), job('b', 't3', 'success')]), []);
  });

  it('does not report the old last run of a job it sees for the first time', () => {
    const watch = new FinishedRunWatch();
    watch.observe([job('a', 't1')]);
    assert.deepEqual(watch.observe([job('a', 't1'), job('added', 't0')]), []);
    assert.equal(watch.observe([job('a', 't1'), job('added', 't5')]).length, 1);
  });

  it('forgets jobs that left the list', () => {
    const watch = new FinishedRunWatch();
    watch.observe([job('a', 't1')]);
    watch.observe([]);
    assert.deepEqual(watch.observe([job('a', 't9')]), []);
  });
});

describe('NoticeGate', () => {
  it('notifies each failure with the job and its exit code, nothing for successes', () => {
    const gate = new NoticeGate();
    const notices = gate.plan(
      [
        { ...failure('backup'), exitCode: 2, failReason: 'failsWhen=nonzeroReturn' },
        { ...failure('ok'), outcome: 'success' },
      ],
      0,
    );
    assert.deepEqual(notices, [
      {
        title: 'yacron2: job failed',
        body: 'backup (exit 2)\nfailsWhen=nonzeroReturn',
        tag: 'yacron2-job-backup',
      },
    ]);
    assert.deepEqual(gate.plan([{ ...failure('ok'), outcome: 'success' }], 1), []);
  });

  it('coalesces a burst into one summary within the limit', () => {
    const gate = new NoticeGate();
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];
    const notices = gate.plan(names.map(failure), 0);
    assert.equal(notices.length, NOTICE_LIMIT);
    assert.deepEqual(
      notices.slice(0, NOTICE_LIMIT - 1).map((n) => n.body),
      ['a (exit 1)', 'b (exit 1)', 'c (exit 1)'],
    );
    assert.deepEqual(notices[NOTICE_LIMIT - 1], {
      title: 'yacron2: 7 jobs failed',
      body: 'd, e, f, g, h and 2 more',
      tag: 'yacron2-failures',
    });
  });

  it('holds back once the window is spent and counts what it held back in the next summary', () => {
    const gate = new NoticeGate();
    assert.equal(gate.plan(['a', 'b', 'c', 'd'].map(failure), 0).length, 4);
    assert.deepEqual(gate.plan([failure('e'), failure('f')], 1000), []);
    assert.deepEqual(gate.plan([failure('g')], NOTICE_WINDOW_MS - 1), []);
    const later = gate.plan([failure('h')], NOTICE_WINDOW_MS);
    assert.deepEqual(later, [
      { title: 'yacron2: 4 jobs failed', body: 'h (3 earlier not shown)', tag: 'yacron2-failures' },
    ]);
    // Then single failures are single notifications again.
    assert.equal(gate.plan([failure('i')], NOTICE_WINDOW_MS + 1)[0]?.title, 'yacron2: job failed');
  });
});
