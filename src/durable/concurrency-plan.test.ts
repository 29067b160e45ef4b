// The cluster slot's decision table (concurrency-plan.ts): every attempt kind under both policies, the
// lapsed-but-unreclaimed denial, the store-silence verdicts, the cancel matching and the cadences.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  cancelsTenure,
  holderNode,
  planClaim,
  concurrencyHolder,
  concurrencyTiming,
  unavailableVerdict,
  type ConcurrencyAttempt,
} from './concurrency-plan.js';

const NOW = 1_800_000_000_000;
/** A denial by node-b's tenure (fence 7) expiring at `expiresAtMs`, asked at NOW. */
const foreign = (expiresAtMs: number): ConcurrencyAttempt => ({
  kind: 'denied',
  holder: 'node-b#0123456789ab',
  fence: 7,
  expiresAtMs,
  askedAtMs: NOW,
});

void test('planClaim: the decision table', () => {
  const rows: [string, ConcurrencyAttempt, 'Forbid' | 'Replace', unknown][] = [
    [
      'free slot, first tenure',
      { kind: 'acquired', fence: 1, fresh: true, previousHolder: null },
      'Forbid',
      { kind: 'hold', fence: 1, takeoverFrom: null },
    ],
    [
      'lapsed foreign tenure taken over',
      { kind: 'acquired', fence: 4, fresh: true, previousHolder: 'node-b#0123456789ab' },
      'Replace',
      { kind: 'hold', fence: 4, takeoverFrom: 'node-b#0123456789ab' },
    ],
    [
      'our own live tenure extended (not fresh: nothing to reconcile)',
      { kind: 'acquired', fence: 4, fresh: false, previousHolder: 'node-b#0123456789ab' },
      'Forbid',
      { kind: 'hold', fence: 4, takeoverFrom: null },
    ],
    [
      'Forbid, live foreign holder',
      foreign(NOW + 1),
      'Forbid',
      { kind: 'held-elsewhere', holder: 'node-b#0123456789ab' },
    ],
    [
      'Replace, live foreign holder',
      foreign(NOW + 1),
      'Replace',
      { kind: 'pursue', holder: 'node-b#0123456789ab', fence: 7 },
    ],
    [
      'store error',
      { kind: 'unavailable', detail: 'EIO: i/o error' },
      'Forbid',
      { kind: 'unavailable', detail: 'EIO: i/o error' },
    ],
  ];
  for (const [what, attempt, policy, expected] of rows) {
    assert.deepEqual(planClaim(attempt, policy), expected, what);
  }
});

void test('planClaim: a denial by a lease that had expired before the ask is the store not answering', () => {
  for (const policy of ['Forbid', 'Replace'] as const) {
    for (const expiresAtMs of [NOW, NOW - 5000]) {
      assert.deepEqual(planClaim(foreign(expiresAtMs), policy), {
        kind: 'unavailable',
        detail: 'the slot lease held by node-b expired but was not reclaimed',
      });
    }
  }
});

void test('planClaim: a lease that expired while the call was under way is an ordinary denial', () => {
  // Asked at NOW, the holder's expiry NOW + 1: the store decided while it was live, however long
  // the answer took to come back (the claim must not launch node-local beside the holder).
  assert.deepEqual(planClaim(foreign(NOW + 1), 'Forbid'), {
    kind: 'held-elsewhere',
    holder: 'node-b#0123456789ab',
  });
  assert.deepEqual(planClaim(foreign(NOW + 1), 'Replace'), {
    kind: 'pursue',
    holder: 'node-b#0123456789ab',
    fence: 7,
  });
});

void test('the store silence verdicts follow onStoreUnavailable', () => {
  assert.equal(unavailableVerdict('degrade'), 'run-node-local');
  assert.equal(unavailableVerdict('fail-closed'), 'skip');
});

void test('cancelsTenure: only a well-formed cancel aimed at this exact fence', () => {
  const cancel = { kind: 'cancel', fence: 3, by: 'node-b', at: '2026-01-01T00:00:00+00:00' };
  assert.equal(cancelsTenure(cancel, 3), true);
  assert.equal(cancelsTenure(cancel, 4), false, 'another tenure');
  assert.equal(cancelsTenure(undefined, 3), false, 'an empty stream');
  assert.equal(cancelsTenure({ ...cancel, kind: 'release' }, 3), false, 'an unknown kind');
  assert.equal(cancelsTenure({ ...cancel, fence: '3' }, 3), false, 'a string fence');
  assert.equal(cancelsTenure({ ...cancel, at: 'yesterday' }, 3), false, 'an unreadable instant');
});

void test('holders and cadences', () => {
  assert.equal(concurrencyHolder('node-a', '0123456789ab'), 'node-a#0123456789ab');
  assert.equal(holderNode('node-a#0123456789ab'), 'node-a');
  assert.equal(holderNode('host#with#hash#0123456789ab'), 'host#with#hash');
  assert.equal(holderNode('bare'), 'bare');
  assert.deepEqual(concurrencyTiming(30_000), {
    ttlMs: 30_000,
    renewEveryMs: 10_000,
    pursuitPollMs: 5_000,
    pursuitLimitMs: 60_000,
  });
  // At the smallest TTL (5 s) the pursuit poll is held at its one-second floor.
  assert.deepEqual(concurrencyTiming(5_000), {
    ttlMs: 5_000,
    renewEveryMs: 1_666.6666666666667,
    pursuitPollMs: 1_000,
    pursuitLimitMs: 10_000,
  });
});
