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
});
