// The client-go decision table, pure: create, renew, acquire or wait, with the challenger's own
// observation anchor (a 404 keeps the remembered one).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { observe, planLeaseRound, type ObservedLease, type PlanInput } from './kube-lease-plan.js';

const lease = (overrides: Partial<ObservedLease> = {}): ObservedLease => ({
  holderIdentity: 'other#000000000000',
  renewTime: '2026-05-01T12:00:00.000000Z',
  acquireTime: '2026-05-01T11:00:00.000000Z',
  leaseDurationSeconds: 15,
  leaseTransitions: 4,
  resourceVersion: '9',
  annotations: {},
  ...overrides,
});

function plan(input: Partial<PlanInput>) {
  const full: PlanInput = {
    observed: lease(),
    remembered: null,
    me: 'me#111111111111',
    durationSeconds: 15,
    nowMs: 100_000,
    ...input,
  };
  return planLeaseRound(full, observe(full));
}

void test('absent: create, unless a different holder was seen less than our duration ago', () => {
  assert.deepEqual(plan({ observed: null }), { kind: 'create' });
  const remembered = { holderIdentity: 'other#0', renewTime: 'x', anchorMs: 90_000 };
  assert.deepEqual(plan({ observed: null, remembered }), { kind: 'wait' });
  assert.deepEqual(plan({ observed: null, remembered, nowMs: 105_000 }), { kind: 'create' });
  const mine = { holderIdentity: 'me#111111111111', renewTime: 'x', anchorMs: 99_000 };
  assert.deepEqual(plan({ observed: null, remembered: mine }), { kind: 'create' });
});

void test('ours: renew, keeping acquireTime (dropped when unreadable) and transitions', () => {
  assert.deepEqual(plan({ observed: lease({ holderIdentity: 'me#111111111111' }) }), {
    kind: 'renew',
    acquireTime: '2026-05-01T11:00:00.000000Z',
    transitions: 4,
  });
  assert.deepEqual(
    plan({ observed: lease({ holderIdentity: 'me#111111111111', acquireTime: 'junk' }) }),
    { kind: 'renew', acquireTime: null, transitions: 4 },
  );
});

void test('acquire: no holder, no duration, or a full duration since this node first saw the pair', () => {
  assert.deepEqual(plan({ observed: lease({ holderIdentity: null }) }), {
    kind: 'acquire',
    transitions: 5,
  });
  assert.deepEqual(plan({ observed: lease({ holderIdentity: '' }) }).kind, 'acquire');
  assert.deepEqual(plan({ observed: lease({ leaseDurationSeconds: null }) }).kind, 'acquire');
  assert.deepEqual(plan({ observed: lease({ leaseDurationSeconds: 0 }) }).kind, 'acquire');
  const seen = {
    holderIdentity: 'other#000000000000',
    renewTime: '2026-05-01T12:00:00.000000Z',
    anchorMs: 85_000,
  };
  assert.deepEqual(plan({ remembered: seen }).kind, 'acquire', '15 s on our clock');
  assert.deepEqual(plan({ remembered: seen, nowMs: 99_999 }).kind, 'wait');
  assert.deepEqual(
    plan({ remembered: { ...seen, renewTime: 'older' } }).kind,
    'wait',
    'a changed renewTime resets the anchor',
  );
});

void test('observe: a changed pair re-anchors, the same pair keeps the anchor, a 404 keeps it', () => {
  const base: PlanInput = {
    observed: lease(),
    remembered: null,
    me: 'me',
    durationSeconds: 15,
    nowMs: 5,
  };
  const first = observe(base);
  assert.equal(first?.anchorMs, 5);
  assert.equal(observe({ ...base, remembered: first, nowMs: 9 }), first);
  assert.equal(observe({ ...base, observed: null, remembered: first, nowMs: 9 }), first);
  assert.equal(
    observe({ ...base, observed: lease({ holderIdentity: 'x' }), remembered: first, nowMs: 9 })
      ?.anchorMs,
    9,
  );
});
