import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeJobWire, makeRun } from './job-fixture.test.js';
import { queryRows, toggleSort, type JobQuery } from './job-query.js';
import { countStatuses, deriveRow, statusOf } from './job-status.js';

const NOW = Date.parse('2026-06-21T12:00:00Z');

describe('statusOf', () => {
  it('puts running before disabled and the last outcome after', () => {
    assert.equal(statusOf(makeJobWire({ running: true, enabled: false })), 'running');
    assert.equal(statusOf(makeJobWire({ enabled: false, last_run: makeRun() })), 'disabled');
    assert.equal(statusOf(makeJobWire()), 'pending');
    assert.equal(statusOf(makeJobWire({ last_run: makeRun() })), 'ok');
    assert.equal(
      statusOf(makeJobWire({ last_run: makeRun({ outcome: 'failure', exit_code: 1 }) })),
      'failed',
    );
    assert.equal(
      statusOf(makeJobWire({ last_run: makeRun({ outcome: 'cancelled' }) })),
      'cancelled',
    );
    assert.equal(statusOf(makeJobWire({ last_run: makeRun({ outcome: 'unknown' }) })), 'unknown');
  });
});

describe('deriveRow', () => {
  it('ages the next fire from the poll instant and rates the sparkline runs', () => {
    const row = deriveRow(
      makeJobWire({
        scheduled_in: 12.5,
        history: [
          { outcome: 'success', duration: 1 },
          { outcome: 'failure', duration: 2 },
          { outcome: 'cancelled', duration: 1 },
          { outcome: 'success', duration: 1 },
        ],
        last_run: makeRun({ finished_at: '2026-06-21T11:59:00.250000+00:00' }),
      }),
      NOW,
    );
    assert.equal(row.nextFireMs, NOW + 12_500);
    assert.equal(row.successRate, 2 / 3);
    assert.equal(row.recentFailures, 1);
    assert.equal(row.lastFinishedMs, NOW - 59_750);
  });
});

function rows(): ReturnType<typeof deriveRow>[] {
  return [
    makeJobWire({
      name: 'backup',
      command: 'pg_dump db',
      scheduled_in: 300,
      last_run: makeRun({ duration: 40 }),
    }),
    makeJobWire({
      name: 'Alpha',
      running: true,
      scheduled_in: null,
      last_run: makeRun({ duration: 1 }),
    }),
    makeJobWire({
      name: 'cleanup',
      last_run: makeRun({ outcome: 'failure', exit_code: 2, duration: 3 }),
    }),
    makeJobWire({ name: 'never', scheduled_in: 5 }),
    makeJobWire({ name: 'off', enabled: false, scheduled_in: null }),
  ].map((job) => deriveRow(job, NOW));
}

const names = (query: JobQuery): string[] => queryRows(rows(), query).map((row) => row.name);
const base: JobQuery = { text: '', status: 'all', sort: { key: 'name', descending: false } };

describe('queryRows', () => {
  it('sorts names case-insensitively and reverses on request', () => {
    assert.deepEqual(names(base), ['Alpha', 'backup', 'cleanup', 'never', 'off']);
    assert.deepEqual(names({ ...base, sort: { key: 'name', descending: true } }), [
      'off',
      'never',
      'cleanup',
      'backup',
      'Alpha',
    ]);
  });

  it('puts failing jobs first when sorting by status', () => {
    assert.deepEqual(names({ ...base, sort: { key: 'status', descending: false } }), [
      'cleanup',
      'Alpha',
      'never',
      'backup',
      'off',
    ]);
  });

  it('keeps rows without a value last in both directions', () => {
    const ascending = names({ ...base, sort: { key: 'next', descending: false } });
    const descending = names({ ...base, sort: { key: 'next', descending: true } });
    assert.deepEqual(ascending.slice(0, 3), ['never', 'cleanup', 'backup']);
    assert.deepEqual(descending.slice(0, 3), ['backup', 'cleanup', 'never']);
    assert.deepEqual(ascending.slice(3), ['Alpha', 'off']);
    assert.deepEqual(descending.slice(3), ['Alpha', 'off']);
  });

  it('sorts durations numerically', () => {
    assert.deepEqual(names({ ...base, sort: { key: 'took', descending: true } }).slice(0, 3), [
      'backup',
      'cleanup',
      'Alpha',
    ]);
  });

  it('filters on name and command text and on status', () => {
    assert.deepEqual(names({ ...base, text: 'PG_DUMP' }), ['backup']);
    assert.deepEqual(names({ ...base, text: ' clean ' }), ['cleanup']);
    assert.deepEqual(names({ ...base, status: 'fail' }), ['cleanup']);
    assert.deepEqual(names({ ...base, status: 'run' }), ['Alpha']);
    assert.deepEqual(names({ ...base, status: 'off' }), ['off']);
    assert.deepEqual(names({ ...base, status: 'pending' }), ['never']);
    assert.deepEqual(names({ ...base, status: 'ok' }), ['backup']);
  });

  it('leaves the input order alone', () => {
    const input = rows();
    queryRows(input, { ...base, sort: { key: 'status', descending: false } });
    assert.equal(input[0]!.name, 'backup');
  });
});

describe('toggleSort and countStatuses', () => {
  it('reverses the same key and starts another ascending', () => {
    assert.deepEqual(toggleSort({ key: 'name', descending: false }, 'name'), {
      key: 'name',
      descending: true,
    });
    assert.deepEqual(toggleSort({ key: 'name', descending: true }, 'last'), {
      key: 'last',
      descending: false,
    });
  });

  it('counts the header pills', () => {
    assert.deepEqual(countStatuses(rows()), { total: 5, running: 1, failing: 1, ok: 1 });
  });
});
