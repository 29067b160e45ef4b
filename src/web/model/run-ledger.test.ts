import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunRecord } from './api-types.js';
import { makeJobWire, makeRun } from './job-fixture.test.js';
import { LedgerRuns, ledgerRunOf, parseLedgerRun } from './run-ledger.js';

function finishedAt(second: number): string {
  return new Date(Date.UTC(2026, 5, 21, 12, 0, second)).toISOString().replace('Z', '+00:00');
}

function jobAt(name: string, second: number, overrides: Partial<RunRecord> = {}) {
  return makeJobWire({
    name,
    last_run: makeRun({ started_at: null, finished_at: finishedAt(second), ...overrides }),
  });
}

describe('ledgerRunOf', () => {
  it('makes a row of the last run, keyed by job, start and finish', () => {
    const run = ledgerRunOf(
      makeJobWire({
        name: 'backup',
        last_run: makeRun({ outcome: 'failure', exit_code: 2, duration: 4.5, fail_reason: 'boom' }),
      }),
    );
    assert.deepEqual(run, {
      id: 'backup|2026-06-21T11:59:58+00:00|2026-06-21T12:00:00+00:00',
      job: 'backup',
      startedAt: '2026-06-21T11:59:58+00:00',
      finishedAt: '2026-06-21T12:00:00+00:00',
      finishedMs: Date.UTC(2026, 5, 21, 12),
      outcome: 'failure',
      exitCode: 2,
      durationS: 4.5,
      failReason: 'boom',
    });
  });

  it('has none for a job that never ran or an unreadable instant', () => {
    assert.equal(ledgerRunOf(makeJobWire()), null);
    assert.equal(ledgerRunOf(makeJobWire({ last_run: makeRun({ finished_at: 'soon' }) })), null);
  });
});

describe('parseLedgerRun', () => {
  it('reads back what it stored and refuses anything else', () => {
    const run = ledgerRunOf(jobAt('a', 1))!;
    assert.deepEqual(parseLedgerRun(JSON.parse(JSON.stringify(run))), run);
    assert.equal(parseLedgerRun(null), null);
    assert.equal(parseLedgerRun('row'), null);
    assert.equal(parseLedgerRun({ ...run, outcome: 'exploded' }), null);
    assert.equal(parseLedgerRun({ ...run, durationS: '3' }), null);
    const { job: _job, ...withoutJob } = run;
    assert.equal(parseLedgerRun(withoutJob), null);
  });
});

describe('LedgerRuns', () => {
  it('records each finished run once, however often it is polled', () => {
    const ledger = new LedgerRuns();
    const first = ledger.record([jobAt('a', 1), makeJobWire({ name: 'never' })]);
    assert.equal(first.added.length, 1);
    assert.deepEqual(ledger.record([jobAt('a', 1)]), { added: [], dropped: [] });
    assert.equal(ledger.record([jobAt('a', 2)]).added.length, 1);
    assert.equal(ledger.count, 2);
    assert.equal(ledger.jobCount, 1);
    assert.deepEqual(
      ledger.runsOf('a').map((run) => run.finishedAt),
      [finishedAt(1), finishedAt(2)],
    );
    assert.ok(ledger.bytes > 100);
  });

  it('hydrates stored rows in finish order, deduplicated, and does not record them again', () => {
    const ledger = new LedgerRuns();
    const rows = [3, 1, 2, 1].map((second) => ledgerRunOf(jobAt('a', second))!);
    assert.deepEqual(ledger.hydrate(rows), { added: [], dropped: [] });
    assert.equal(ledger.count, 3);
    assert.deepEqual(
      ledger.runsOf('a').map((run) => run.finishedMs % 60_000),
      [1000, 2000, 3000],
    );
    assert.equal(ledger.record([jobAt('a', 3)]).added.length, 0);
  });

  it('keeps at most the per-job cap of a job, dropping the oldest', () => {
    const ledger = new LedgerRuns(3, 100);
    for (let second = 1; second <= 4; second++) ledger.record([jobAt('a', second)]);
    const change = ledger.record([jobAt('a', 5)]);
    assert.equal(change.added.length, 1);
    assert.deepEqual(
      change.dropped.map((run) => run.finishedAt),
      [finishedAt(2)],
    );
    assert.equal(ledger.runsOf('a').length, 3);
    assert.equal(ledger.runsOf('a')[0]!.finishedAt, finishedAt(3));
  });

  it('keeps at most the total cap, dropping the oldest row of any job', () => {
    const ledger = new LedgerRuns(10, 3);
    ledger.record([jobAt('a', 1), jobAt('b', 2)]);
    ledger.record([jobAt('a', 3)]);
    const change = ledger.record([jobAt('b', 4)]);
    assert.deepEqual(
      change.dropped.map((run) => run.id),
      [`a||${finishedAt(1)}`],
    );
    assert.equal(ledger.count, 3);
    // A row older than everything a full ledger keeps is not stored at all.
    const late = ledger.record([jobAt('c', 0)]);
    assert.deepEqual(late, { added: [], dropped: [] });
    assert.equal(ledger.count, 3);
    assert.equal(ledger.runsOf('c').length, 0);
  });

  it('drops the surplus of stored rows over the caps', () => {
    const ledger = new LedgerRuns(2, 100);
    const rows = [1, 2, 3].map((second) => ledgerRunOf(jobAt('a', second))!);
    assert.deepEqual(
      ledger.hydrate(rows).dropped.map((run) => run.finishedAt),
      [finishedAt(1)],
    );
  });

  it('exports every row in the wire names', () => {
    const ledger = new LedgerRuns();
    ledger.record([jobAt('a', 1, { outcome: 'failure', exit_code: 3, fail_reason: 'x' })]);
    assert.deepEqual(ledger.export('2026-06-21T13:00:00.000Z'), {
      schema: 'yacron2-run-ledger/1',
      exported_at: '2026-06-21T13:00:00.000Z',
      runs: {
        a: [
          {
            started_at: null,
            finished_at: finishedAt(1),
            outcome: 'failure',
            exit_code: 3,
            duration: 2,
            fail_reason: 'x',
          },
        ],
      },
    });
    ledger.clear();
    assert.equal(ledger.count, 0);
    assert.equal(ledger.bytes, 0);
  });
});
