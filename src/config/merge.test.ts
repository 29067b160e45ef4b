// deepMerge(): the defaults merge rules (docs/configuration.md "defaults and merging").
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { LocTable } from './issues.js';
import { deepMerge } from './merge.js';

/** Merged maps have a null prototype; compare plain copies. */
const merge = (base: unknown, override: unknown, key?: string): unknown =>
  JSON.parse(JSON.stringify(deepMerge(base, override, new LocTable(), key)) ?? 'null') as unknown;

void test('maps merge recursively; a key on one side only is kept', () => {
  assert.deepEqual(merge({ a: 1, n: { x: 1, y: 2 } }, { b: 2, n: { y: 3 } }), {
    a: 1,
    n: { x: 1, y: 3 },
    b: 2,
  });
});

void test('a null override keeps a map base; scalars and type changes take the override', () => {
  assert.deepEqual(merge({ x: 1 }, null), { x: 1 });
  assert.equal(merge('a', 'b'), 'b');
  assert.equal(merge(true, null), null);
  assert.deepEqual(merge(true, { interval: 2 }), { interval: 2 });
  assert.equal(merge({ interval: 2 }, false), false);
});

void test('environment lists merge by key: base order, override wins, no duplicates', () => {
  assert.deepEqual(
    merge(
      [
        { key: 'A', value: '1' },
        { key: 'B', value: '1' },
      ],
      [
        { key: 'B', value: '2' },
        { key: 'C', value: '2' },
      ],
      'environment',
    ),
    [
      { key: 'A', value: '1' },
      { key: 'B', value: '2' },
      { key: 'C', value: '2' },
    ],
  );
});

void test('secrets merge by name', () => {
  assert.deepEqual(
    merge(
      [{ name: 's', value: 'old' }],
      [
        { name: 's', value: 'new' },
        { name: 't', value: 'x' },
      ],
      'secrets',
    ),
    [
      { name: 's', value: 'new' },
      { name: 't', value: 'x' },
    ],
  );
});

void test('sentry fingerprints are replaced; other lists concatenate, report commands too', () => {
  assert.deepEqual(merge(['a'], ['b'], 'fingerprint'), ['b']);
  assert.deepEqual(merge(['logger', '-t'], ['myjob'], 'command'), ['logger', '-t', 'myjob']);
  assert.deepEqual(merge(['x'], ['y'], 'stateAllowedScopes'), ['x', 'y']);
});

void test('merging never mutates its inputs', () => {
  const base = Object.freeze({ n: Object.freeze({ x: 1 }), list: Object.freeze(['a']) });
  const override = Object.freeze({ n: Object.freeze({ y: 2 }), list: Object.freeze(['b']) });
  assert.doesNotThrow(() => merge(base, override));
  assert.deepEqual(base, { n: { x: 1 }, list: ['a'] });
});
