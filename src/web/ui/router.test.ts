import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatHash, parseHash } from './router.js';

describe('hash routes', () => {
  it('round-trips job names with slashes, spaces and unicode', () => {
    for (const job of ['backup', 'a/b c', 'nächtlich#1', '%41']) {
      const hash = formatHash({ kind: 'job', job, tab: 'history' });
      assert.deepEqual(parseHash(hash), { kind: 'job', job, tab: 'history' });
    }
  });

  it('reads the wallboard, a job without tab, and falls back to the table', () => {
    assert.deepEqual(parseHash('#tv'), { kind: 'wallboard' });
    assert.deepEqual(parseHash('#job/x'), { kind: 'job', job: 'x', tab: null });
    assert.deepEqual(parseHash(''), { kind: 'table' });
    assert.deepEqual(parseHash('#job/'), { kind: 'table' });
    assert.deepEqual(parseHash('#job/%E0%A4%A'), { kind: 'table' });
    assert.equal(formatHash({ kind: 'table' }), '');
  });

  it('round-trips DAG runs, a DAG alone, and refuses a malformed one', () => {
    for (const [dag, runKey] of [
      ['etl', '2026-07-04T02:00:00_00:00'],
      ['a/b', 'manual-0123456789ab'],
      ['x', null],
    ] as const) {
      assert.deepEqual(parseHash(formatHash({ kind: 'dag', dag, runKey })), {
        kind: 'dag',
        dag,
        runKey,
      });
    }
    assert.equal(formatHash({ kind: 'dag', dag: 'a/b', runKey: 'k' }), '#dag/a%2Fb/k');
    assert.deepEqual(parseHash('#dag/'), { kind: 'table' });
    assert.deepEqual(parseHash('#dag/x/%E0%A4%A'), { kind: 'table' });
  });
});
