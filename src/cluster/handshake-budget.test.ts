// The /peer listener's connection budgets as plain bookkeeping: pending connections per source
// and in all (oldest evicted first), established ones capped apart, closes forgotten.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HandshakeBudget } from './handshake-budget.js';

const LIMITS = { pendingPerSource: 2, pendingTotal: 3, established: 2 };

void test('a source over its share evicts its own oldest pending connection, no one else', () => {
  const budget = new HandshakeBudget<string>(LIMITS);
  assert.deepEqual(budget.admit('a1', 'A'), []);
  assert.deepEqual(budget.admit('a2', 'A'), []);
  assert.deepEqual(budget.admit('a3', 'A'), ['a1']);
  assert.deepEqual(budget.admit('a4', 'A'), ['a2']);
  assert.equal(budget.pendingCount, 2);
});

void test('past the total, the oldest pending connection of any source goes', () => {
  const budget = new HandshakeBudget<string>(LIMITS);
  budget.admit('a1', 'A');
  budget.admit('b1', 'B');
  budget.admit('c1', 'C');
  assert.deepEqual(budget.admit('d1', 'D'), ['a1']);
  assert.deepEqual(budget.admit('e1', 'E'), ['b1']);
  assert.equal(budget.pendingCount, 3);
});

void test('the newest connection always gets its handshake started, however many came before', () => {
  const budget = new HandshakeBudget<number>(LIMITS);
  let evicted = 0;
  for (let i = 0; i < 300; i += 1) evicted += budget.admit(i, 'attacker').length;
  assert.equal(evicted, 298);
  assert.deepEqual(budget.admit(1000, 'attacker'), [298]);
  assert.equal(budget.established(1000), true, 'the newest finishes its handshake');
});

void test('only finished handshakes count against the established cap', () => {
  const budget = new HandshakeBudget<string>(LIMITS);
  for (const c of ['p1', 'p2']) {
    budget.admit(c, c);
    assert.equal(budget.established(c), true);
  }
  budget.admit('p3', 'p3');
  assert.equal(budget.established('p3'), false, 'over the established cap');
  assert.equal(budget.pendingCount, 0);
  budget.closed('p1');
  budget.admit('p4', 'p4');
  assert.equal(budget.established('p4'), true, 'a close frees a place');
  assert.equal(budget.establishedCount, 2);
});

void test('an evicted or unknown connection cannot become established; a close forgets it', () => {
  const budget = new HandshakeBudget<string>(LIMITS);
  budget.admit('a1', 'A');
  budget.admit('a2', 'A');
  budget.admit('a3', 'A');
  assert.equal(budget.established('a1'), false, 'evicted');
  assert.equal(budget.established('zz'), false, 'never admitted');
  budget.closed('a2');
  assert.equal(budget.pendingCount, 1);
  assert.deepEqual(budget.admit('a4', 'A'), [], 'the source has room again');
});
