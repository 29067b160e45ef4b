import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ZEN_BLOCKED,
  zenDotPosition,
  zenDue,
  zenInput,
  zenStep,
  zenSummary,
  type ZenFacts,
  type ZenState,
} from './zen.js';

const CALM: ZenFacts = {
  enabled: true,
  wallboardOpen: true,
  stale: false,
  failing: 0,
  clusterAlert: false,
  idleMs: 30_000,
};

describe('zen state machine', () => {
  it('engages after the idle period of calm, not before', () => {
    let state: ZenState = ZEN_BLOCKED;
    state = zenStep(state, CALM, 1000);
    assert.deepEqual(state, { kind: 'idle', sinceMs: 1000 });
    state = zenStep(state, CALM, 30_999);
    assert.equal(state.kind, 'idle');
    state = zenStep(state, CALM, 31_000);
    assert.deepEqual(state, { kind: 'on', sinceMs: 31_000 });
    assert.equal(zenStep(state, CALM, 90_000), state);
  });

  it('input wakes it and restarts the idle period', () => {
    const on: ZenState = { kind: 'on', sinceMs: 5000 };
    const woken = zenInput(on, 40_000);
    assert.deepEqual(woken, { kind: 'idle', sinceMs: 40_000 });
    assert.equal(zenStep(woken, CALM, 69_999).kind, 'idle');
    assert.equal(zenStep(woken, CALM, 70_000).kind, 'on');
    // Input before it engaged restarts the count too.
    assert.deepEqual(zenInput({ kind: 'idle', sinceMs: 0 }, 20_000), {
      kind: 'idle',
      sinceMs: 20_000,
    });
    assert.equal(zenInput(ZEN_BLOCKED, 1), ZEN_BLOCKED);
  });

  it('a failure, an alert, stale data, the setting or a closed wallboard end it', () => {
    const on: ZenState = { kind: 'on', sinceMs: 0 };
    for (const change of [
      { failing: 1 },
      { clusterAlert: true },
      { stale: true },
      { enabled: false },
      { wallboardOpen: false },
    ]) {
      assert.equal(zenStep(on, { ...CALM, ...change }, 1).kind, 'blocked', JSON.stringify(change));
    }
  });
});

describe('zen field', () => {
  it('counts the armed jobs and names the next fire', () => {
    const summary = zenSummary(
      [
        { name: 'b', enabled: true, nextFireMs: 5000 },
        { name: 'a', enabled: true, nextFireMs: 5000 },
        { name: 'c', enabled: true, nextFireMs: null },
        { name: 'off', enabled: false, nextFireMs: 2000 },
        { name: 'past', enabled: true, nextFireMs: 500 },
      ],
      1000,
    );
    assert.deepEqual(summary, { armed: 4, next: { name: 'a', inMs: 4000 } });
    assert.deepEqual(zenSummary([], 0), { armed: 0, next: null });
  });

  it('lights a dot around its fire', () => {
    assert.equal(zenDue(10_000, 8_999), false);
    assert.equal(zenDue(10_000, 9_000), true);
    assert.equal(zenDue(10_000, 11_500), true);
    assert.equal(zenDue(10_000, 11_501), false);
    assert.equal(zenDue(null, 0), false);
  });

  it('places a dot by its name, the same every time, inside the field', () => {
    const a = zenDotPosition('backup');
    assert.deepEqual(zenDotPosition('backup'), a);
    assert.notDeepEqual(zenDotPosition('backup-2'), a);
    for (const name of ['', 'x', 'a-very-long-job-name-with-unicode-é']) {
      const { x, y } = zenDotPosition(name);
      assert.ok(x >= 0 && x < 100 && y >= 0 && y < 100);
    }
  });
});
