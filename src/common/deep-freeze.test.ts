// deepFreeze(): freezes the whole graph, stops at objects already frozen.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { deepFreeze } from './deep-freeze.js';

void test('every reachable object is frozen; primitives pass through', () => {
  const value = deepFreeze({ list: [{ x: 1 }], nested: { deeper: { y: 2 } } });
  assert.ok(Object.isFrozen(value.list[0]));
  assert.ok(Object.isFrozen(value.nested.deeper));
  assert.equal(deepFreeze(3), 3);
  assert.equal(deepFreeze(null), null);
});

void test('an object frozen beforehand is not descended into (its children stay as they are)', () => {
  const cache = { hits: 0 };
  const holder = Object.freeze({ cache });
  deepFreeze({ holder });
  assert.equal(Object.isFrozen(cache), false);
});
